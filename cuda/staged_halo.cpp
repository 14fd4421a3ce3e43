#include "cuda/staged_halo.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace hooke::cuda {
namespace {

// Item 31's lists for one round of rows (block b's rows b R .. b R + R): each block's springs
// once, in the order its entries first name them, and per entry its spring's place there with
// its slot. Leaves them empty where a block names more than 65535 springs (a 16-bit place).
void buildStagedSprings(uint32_t blocks, size_t rows_per_round,
                        const std::vector<uint32_t>& row_start, StagedHalo* h) {
  if (h->slots > 65536) return;  // a slot must fit 16 bits too
  const size_t n = row_start.size() - 1;
  uint32_t spring_count = 0;
  for (size_t e = 0; e < h->entries.size() / 2; ++e)
    spring_count = std::max(spring_count, h->entries[2 * e] + 1u);
  std::vector<uint32_t> place(spring_count, UINT32_MAX);  // within the current block
  h->spring_start.reserve(size_t(blocks) + 1);
  h->words.assign(h->entries.size() / 2, 0u);
  for (uint32_t b = 0; b < blocks; ++b) {
    const size_t first = std::min(n, size_t(b) * rows_per_round);
    const size_t end = std::min(n, first + rows_per_round);
    const size_t begin = h->springs.size();
    h->spring_start.push_back(static_cast<uint32_t>(begin));
    for (uint32_t e = row_start[first]; e < row_start[end]; ++e) {
      const uint32_t spring = h->entries[2 * size_t(e)];
      if (place[spring] == UINT32_MAX) {
        place[spring] = static_cast<uint32_t>(h->springs.size() - begin);
        h->springs.push_back(spring);
      }
      h->words[e] = place[spring] | (h->entries[2 * size_t(e) + 1] << 16);
    }
    const size_t count = h->springs.size() - begin;
    for (size_t k = begin; k < h->springs.size(); ++k)
      place[h->springs[k]] = UINT32_MAX;
    if (count > 65535) {
      h->spring_start.clear();
      h->springs.clear();
      h->words.clear();
      h->spring_slots = 0;
      return;
    }
    h->spring_slots = std::max(h->spring_slots, static_cast<uint32_t>(count));
  }
  h->spring_start.push_back(static_cast<uint32_t>(h->springs.size()));
}

}  // namespace

void buildAdjacency(size_t n, const std::vector<glm::uvec2>& ends, std::vector<uint32_t>* row_start,
                    int32_t* pairs) {
  row_start->assign(n + 1, 0);
  for (const glm::uvec2& e : ends) {
    ++(*row_start)[e.x + 1];
    ++(*row_start)[e.y + 1];
  }
  for (size_t i = 0; i < n; ++i)
    (*row_start)[i + 1] += (*row_start)[i];
  std::vector<uint32_t> fill(row_start->begin(), row_start->end() - 1);
  for (size_t s = 0; s < ends.size(); ++s) {
    const glm::uvec2 e = ends[s];
    const uint32_t a = fill[e.x]++, b = fill[e.y]++;
    pairs[2 * size_t(a)] = int32_t(s);
    pairs[2 * size_t(a) + 1] = int32_t(e.y);
    pairs[2 * size_t(b)] = int32_t(s);
    pairs[2 * size_t(b) + 1] = ~int32_t(e.x);
  }
}

bool sortRowsByDirection(const std::vector<glm::vec3>& x, const std::vector<uint32_t>& row_start,
                         int32_t* pairs) {
  auto otherOf = [pairs](uint32_t e) {
    const int32_t other = pairs[2 * size_t(e) + 1];
    return static_cast<uint32_t>(other < 0 ? ~other : other);
  };
  float unit = std::numeric_limits<float>::infinity();
  const size_t n = row_start.size() - 1;
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t e = row_start[i]; e < row_start[i + 1]; ++e) {
      const float length = glm::length(x[otherOf(e)] - x[i]);
      if (length > 0.0f && std::isfinite(length)) unit = std::min(unit, length);
    }
  }
  if (!std::isfinite(unit)) return false;
  std::vector<std::pair<int64_t, std::array<int32_t, 2>>> row;
  for (size_t i = 0; i < n; ++i) {
    row.clear();
    for (uint32_t e = row_start[i]; e < row_start[i + 1]; ++e) {
      const glm::vec3 d = (x[otherOf(e)] - x[i]) / unit;
      auto axis = [](float v) {  // rounded and clamped to [-64, 63]: a non-finite offset last
        return std::isfinite(v) ? int64_t(std::clamp(std::lround(v), -64L, 63L)) + 64 : 127;
      };
      row.emplace_back((axis(d.z) << 14) | (axis(d.y) << 7) | axis(d.x),
                       std::array<int32_t, 2>{pairs[2 * size_t(e)], pairs[2 * size_t(e) + 1]});
    }
    std::stable_sort(row.begin(), row.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t k = 0; k < row.size(); ++k) {
      pairs[2 * (size_t(row_start[i]) + k)] = row[k].second[0];
      pairs[2 * (size_t(row_start[i]) + k) + 1] = row[k].second[1];
    }
  }
  return true;
}

bool buildStagedHalo(uint32_t blocks, uint32_t threads, uint32_t lanes,
                     const std::vector<uint32_t>& row_start, const int32_t* adjacency,
                     uint32_t max_slots, StagedHalo* out) {
  *out = StagedHalo{};
  // lanes: a power of two dividing 32 and threads, as gatherRows needs
  if (blocks == 0 || lanes == 0 || (lanes & (lanes - 1)) != 0 || lanes > 32 ||
      threads % lanes != 0 || row_start.empty()) {
    return false;
  }
  const size_t n = row_start.size() - 1;
  const size_t rows_per_round = threads / lanes;
  const size_t round_stride = size_t(blocks) * rows_per_round;
  StagedHalo h;
  h.start.reserve(size_t(blocks) + 1);
  h.entries.resize(2 * size_t(row_start.back()));
  std::vector<uint32_t> slot_of(n, UINT32_MAX);  // within the current block; reset after it
  std::vector<uint32_t> outside;
  for (uint32_t b = 0; b < blocks; ++b) {
    const size_t first = h.halo.size();
    h.start.push_back(static_cast<uint32_t>(first));
    // own rows, in the order gatherRows visits them
    for (size_t base = size_t(b) * rows_per_round; base < n; base += round_stride) {
      for (size_t i = base; i < std::min(n, base + rows_per_round); ++i) {
        slot_of[i] = static_cast<uint32_t>(h.halo.size() - first);
        h.halo.push_back(static_cast<uint32_t>(i));
      }
    }
    const size_t own_end = h.halo.size();
    // the other ends outside them, ascending
    outside.clear();
    for (size_t k = first; k < own_end; ++k) {
      const uint32_t i = h.halo[k];
      for (uint32_t e = row_start[i]; e < row_start[i + 1]; ++e) {
        const int32_t other = adjacency[2 * size_t(e) + 1];
        const uint32_t o = static_cast<uint32_t>(other < 0 ? ~other : other);
        if (slot_of[o] == UINT32_MAX) {
          slot_of[o] = UINT32_MAX - 1;  // seen
          outside.push_back(o);
        }
      }
    }
    std::sort(outside.begin(), outside.end());
    for (uint32_t o : outside) {
      slot_of[o] = static_cast<uint32_t>(h.halo.size() - first);
      h.halo.push_back(o);
    }
    const size_t count = h.halo.size() - first;
    if (count > max_slots) return false;
    h.slots = std::max(h.slots, static_cast<uint32_t>(count));
    for (size_t k = first; k < own_end; ++k) {
      const uint32_t i = h.halo[k];
      for (uint32_t e = row_start[i]; e < row_start[i + 1]; ++e) {
        const int32_t other = adjacency[2 * size_t(e) + 1];
        const uint32_t o = static_cast<uint32_t>(other < 0 ? ~other : other);
        h.entries[2 * size_t(e)] = static_cast<uint32_t>(adjacency[2 * size_t(e)]);
        h.entries[2 * size_t(e) + 1] = slot_of[o];
      }
    }
    for (size_t k = first; k < h.halo.size(); ++k)
      slot_of[h.halo[k]] = UINT32_MAX;
  }
  h.start.push_back(static_cast<uint32_t>(h.halo.size()));
  if (n <= round_stride) {
    for (uint32_t b = 0; b < blocks; ++b) {
      const size_t first = std::min(n, size_t(b) * rows_per_round);
      const size_t end = std::min(n, first + rows_per_round);
      h.entry_slots = std::max(h.entry_slots, row_start[end] - row_start[first]);
    }
    buildStagedSprings(blocks, rows_per_round, row_start, &h);
  }
  *out = std::move(h);
  return true;
}

bool colourStagedSprings(uint32_t threads, uint32_t lanes, const std::vector<uint32_t>& row_start,
                         uint32_t walked_from, StagedHalo* h) {
  if (h->spring_start.size() < 2 || h->words.empty() || threads == 0 || lanes == 0 ||
      threads % lanes != 0 || row_start.empty()) {
    return false;
  }
  constexpr uint32_t kColours = 8;  // 16-byte places in 128 bytes of banks
  constexpr uint32_t kQuarter = 8;  // threads a pass of a 16-byte load serves
  const size_t n = row_start.size() - 1, rows = threads / lanes;
  const size_t blocks = h->spring_start.size() - 1;
  std::vector<uint32_t> springs, spring_start{0}, words = h->words;
  uint32_t spring_slots = 0;
  for (size_t b = 0; b < blocks; ++b) {
    const size_t first = std::min(n, b * rows), end = std::min(n, first + rows);
    const uint32_t begin = h->spring_start[b], count = h->spring_start[b + 1] - begin;
    uint32_t longest = 0;  // the most entries one thread gathers
    for (size_t i = first; i < end; ++i)
      longest = std::max(longest, (row_start[i + 1] - row_start[i] + lanes - 1) / lanes);
    // the thread t's j-th entry, or UINT32_MAX
    auto entryOf = [&](uint32_t t, uint32_t j) {
      const size_t i = first + t / lanes;
      if (i >= end) return UINT32_MAX;
      const uint32_t e = row_start[i] + t % lanes + lanes * j;
      return e < row_start[i + 1] ? e : UINT32_MAX;
    };
    // the groups read together: (quarter of threads, j); each spring's (at most two: its ends)
    const size_t quarters = (threads + kQuarter - 1) / kQuarter;
    std::vector<std::vector<uint32_t>> members(quarters * size_t(longest));
    std::vector<std::array<uint32_t, 2>> groups_of(count, {UINT32_MAX, UINT32_MAX});
    std::vector<uint32_t> order;  // places in the walk's order: j, then thread; then the rest
    std::vector<char> named(count, 0);
    for (uint32_t j = walked_from; j < longest; ++j) {
      for (uint32_t t = 0; t < threads; ++t) {
        const uint32_t e = entryOf(t, j);
        if (e == UINT32_MAX) continue;
        const uint32_t place = h->words[e] & 0xffffu;
        const uint32_t group = uint32_t((t / kQuarter) * longest + j);
        members[group].push_back(place);
        auto& g = groups_of[place];
        (g[0] == UINT32_MAX ? g[0] : g[1]) = group;
        if (!named[place]) {
          named[place] = 1;
          order.push_back(place);
        }
      }
    }
    for (uint32_t place = 0; place < count; ++place)
      if (!named[place]) order.push_back(place);
    // greedy: the colour fewest of its groups' coloured springs have, then the least used
    std::vector<uint32_t> colour(count, UINT32_MAX);
    std::array<uint32_t, kColours> used_by{};
    for (uint32_t place : order) {
      std::array<uint32_t, kColours> clash{};
      for (uint32_t group : groups_of[place]) {
        if (group == UINT32_MAX) continue;
        for (uint32_t other : members[group])
          if (other != place && colour[other] != UINT32_MAX) ++clash[colour[other]];
      }
      uint32_t best = 0;
      for (uint32_t c = 1; c < kColours; ++c)
        if (clash[c] < clash[best] || (clash[c] == clash[best] && used_by[c] < used_by[best]))
          best = c;
      colour[place] = best;
      ++used_by[best];
    }
    std::vector<uint32_t> moved(count), taken(kColours, 0);
    uint32_t places = 0;
    for (uint32_t place : order) {
      moved[place] = kColours * taken[colour[place]]++ + colour[place];
      places = std::max(places, moved[place] + 1);
    }
    if (places > 65535) return false;
    const size_t at = springs.size();
    springs.resize(at + places, count > 0 ? h->springs[begin] : 0u);
    for (uint32_t place = 0; place < count; ++place)
      springs[at + moved[place]] = h->springs[begin + place];
    spring_start.push_back(static_cast<uint32_t>(springs.size()));
    spring_slots = std::max(spring_slots, places);
    for (uint32_t e = row_start[first]; e < row_start[end]; ++e)
      words[e] = moved[h->words[e] & 0xffffu] | (h->words[e] & 0xffff0000u);
  }
  h->springs = std::move(springs);
  h->spring_start = std::move(spring_start);
  h->words = std::move(words);
  h->spring_slots = spring_slots;
  return true;
}

bool colourStagedHalo(uint32_t threads, uint32_t lanes, const std::vector<uint32_t>& row_start,
                      bool own_rows_unfilled, StagedHalo* h) {
  if (h->entry_slots == 0 || h->start.size() < 2 || threads == 0 || lanes == 0 ||
      threads % lanes != 0 || row_start.empty() ||
      h->entries.size() != 2 * size_t(row_start.back())) {
    return false;
  }
  const size_t n = row_start.size() - 1, rows = threads / lanes;
  const size_t blocks = h->start.size() - 1;
  if (blocks != (n + rows - 1) / rows) return false;  // built for another block of rows
  for (size_t b = 0; b < blocks; ++b) {
    // the halos were built for this shape: block b's own rows first, in order
    const size_t first = std::min(n, b * rows), end = std::min(n, first + rows);
    if (h->start[b + 1] - h->start[b] < end - first) return false;
    for (size_t i = first; i < end; ++i)
      if (h->halo[h->start[b] + (i - first)] != i) return false;
  }
  constexpr uint32_t kColours = 32;  // 4-byte banks; slot s's x at float 3 s: bank 3 s mod 32
  constexpr uint32_t kWarp = 32;
  std::vector<uint32_t> halo = h->halo, entries = h->entries, words = h->words;
  for (size_t b = 0; b < blocks; ++b) {
    const size_t first = std::min(n, b * rows), end = std::min(n, first + rows);
    const uint32_t own = static_cast<uint32_t>(end - first);
    const uint32_t begin = h->start[b], count = h->start[b + 1] - begin;
    if (count <= own) continue;
    uint32_t longest = 0;  // the most entries one thread gathers
    for (size_t i = first; i < end; ++i)
      longest = std::max(longest, (row_start[i + 1] - row_start[i] + lanes - 1) / lanes);
    // the groups read together, (warp, j): their distinct slots; each slot's groups
    const size_t warps = (threads + kWarp - 1) / kWarp;
    std::vector<std::vector<uint32_t>> members(warps * size_t(longest));
    std::vector<std::vector<uint32_t>> groups_of(count);
    for (uint32_t j = 0; j < longest; ++j) {
      for (uint32_t t = 0; t < threads; ++t) {
        const size_t i = first + t / lanes;
        if (i >= end) break;
        const uint32_t e = row_start[i] + t % lanes + lanes * j;
        if (e >= row_start[i + 1]) continue;
        const uint32_t slot = h->entries[2 * size_t(e) + 1];
        const uint32_t group = uint32_t((t / kWarp) * longest + j);
        std::vector<uint32_t>& m = members[group];
        if (std::find(m.begin(), m.end(), slot) != m.end()) continue;
        m.push_back(slot);
        groups_of[slot].push_back(group);
      }
    }
    // per group and colour the distinct slots placed so far (the own rows' from the start), and
    // the group's passes: the most of one colour
    std::vector<std::array<uint16_t, kColours>> placed(members.size());
    std::vector<uint16_t> passes(members.size(), 0);
    for (size_t g = 0; g < members.size(); ++g) {
      placed[g].fill(0);
      for (uint32_t slot : members[g]) {
        if (slot >= own) continue;
        passes[g] = std::max<uint16_t>(passes[g], ++placed[g][slot % kColours]);
      }
    }
    // the places of each colour not yet taken
    std::array<uint32_t, kColours> left{};
    for (uint32_t place = own; place < count; ++place)
      ++left[place % kColours];
    std::vector<uint32_t> order(count - own);
    for (uint32_t k = 0; k < count - own; ++k)
      order[k] = own + k;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t c) {
      return groups_of[a].size() > groups_of[c].size();
    });
    std::vector<uint32_t> moved(count), colour(count, kColours);
    for (uint32_t slot = 0; slot < own; ++slot)
      moved[slot] = slot;
    for (uint32_t slot : order) {
      std::array<uint32_t, kColours> rise{}, shared{};
      for (uint32_t g : groups_of[slot]) {
        for (uint32_t c = 0; c < kColours; ++c) {
          rise[c] += placed[g][c] + 1u > passes[g];
          shared[c] += placed[g][c];
        }
      }
      uint32_t best = kColours;
      for (uint32_t c = 0; c < kColours; ++c) {
        if (left[c] == 0) continue;
        if (best == kColours || rise[c] < rise[best] ||
            (rise[c] == rise[best] &&
             (shared[c] < shared[best] || (shared[c] == shared[best] && left[c] > left[best])))) {
          best = c;
        }
      }
      colour[slot] = best;
      --left[best];
      for (uint32_t g : groups_of[slot])
        passes[g] = std::max<uint16_t>(passes[g], ++placed[g][best]);
    }
    // the places within each colour. The fill's warps load 32 consecutive slots each, from slot
    // `origin` on (the outside slots' first with item 45, else slot 0), so a window of 32 holds at
    // most one place of each colour. The two particles of a 32-byte sector of the float4 vectors
    // (2 q and 2 q + 1) take places in one window where both their colours have one free there, so
    // one of the fill's warp loads serves both; then every other slot the lowest free place of
    // its colour (a colour has as many places as slots)
    const uint32_t origin = own_rows_unfilled ? own : 0u;
    const uint32_t windows = (count - origin + 31) / 32;
    std::vector<uint32_t> in_window(size_t(windows) * kColours, UINT32_MAX);  // (window, colour)
    std::array<std::vector<uint32_t>, kColours> places;
    for (uint32_t place = own; place < count; ++place) {
      places[place % kColours].push_back(place);
      in_window[size_t((place - origin) / 32) * kColours + place % kColours] = place;
    }
    std::vector<char> taken(count, 0), done(count, 0);
    std::vector<std::pair<uint32_t, uint32_t>> by_sector;  // (particle / 2, slot)
    for (uint32_t slot = own; slot < count; ++slot)
      by_sector.emplace_back(h->halo[begin + slot] / 2, slot);
    std::sort(by_sector.begin(), by_sector.end());
    for (size_t k = 0; k + 1 < by_sector.size(); ++k) {
      if (by_sector[k].first != by_sector[k + 1].first) continue;
      const uint32_t a = by_sector[k].second, b = by_sector[k + 1].second;
      const uint32_t ca = colour[a], cb = colour[b];
      if (ca == cb) continue;
      for (uint32_t w = 0; w < windows; ++w) {
        const uint32_t pa = in_window[size_t(w) * kColours + ca];
        const uint32_t pb = in_window[size_t(w) * kColours + cb];
        if (pa == UINT32_MAX || pb == UINT32_MAX || taken[pa] || taken[pb]) continue;
        taken[pa] = taken[pb] = 1;
        moved[a] = pa;
        moved[b] = pb;
        done[a] = done[b] = 1;
        break;
      }
    }
    for (uint32_t slot = own; slot < count; ++slot) {
      if (done[slot]) continue;
      const std::vector<uint32_t>& mine = places[colour[slot]];
      size_t r = 0;
      while (taken[mine[r]])
        ++r;
      taken[mine[r]] = 1;
      moved[slot] = mine[r];
    }
    for (uint32_t slot = own; slot < count; ++slot)
      halo[begin + moved[slot]] = h->halo[begin + slot];
    for (uint32_t e = row_start[first]; e < row_start[end]; ++e) {
      const uint32_t slot = moved[h->entries[2 * size_t(e) + 1]];
      entries[2 * size_t(e) + 1] = slot;
      if (!words.empty()) words[e] = (words[e] & 0xffffu) | (slot << 16);
    }
  }
  h->halo = std::move(halo);
  h->entries = std::move(entries);
  h->words = std::move(words);
  return true;
}

StagedWalkPasses stagedWalkPasses(uint32_t threads, uint32_t lanes,
                                  const std::vector<uint32_t>& row_start, uint32_t walked_from,
                                  bool columns, const StagedHalo& h) {
  StagedWalkPasses out;
  if (threads == 0 || lanes == 0 || threads % lanes != 0 || row_start.empty()) return out;
  const size_t n = row_start.size() - 1, rows = threads / lanes;
  // the most distinct addresses among the loads that share a bank
  auto most = [](std::vector<std::pair<uint32_t, uint32_t>>& loads) {  // (bank, address)
    std::sort(loads.begin(), loads.end());
    loads.erase(std::unique(loads.begin(), loads.end()), loads.end());
    size_t best = 0, run = 0;
    for (size_t k = 0; k < loads.size(); ++k) {
      run = k > 0 && loads[k].first == loads[k - 1].first ? run + 1 : 1;
      best = std::max(best, run);
    }
    return double(best);
  };
  std::vector<std::pair<uint32_t, uint32_t>> words, slots, own_slots, springs[4];
  for (size_t b = 0; b + 1 < h.start.size(); ++b) {
    const size_t first = std::min(n, b * rows), end = std::min(n, first + rows);
    const uint32_t own = static_cast<uint32_t>(end - first);
    for (uint32_t warp = 0; warp < threads; warp += 32) {
      for (uint32_t j = 0;; ++j) {
        words.clear();
        slots.clear();
        own_slots.clear();
        for (auto& quarter : springs)
          quarter.clear();
        for (uint32_t t = warp; t < std::min(threads, warp + 32); ++t) {
          const size_t i = first + t / lanes;
          if (i >= end) break;
          const uint32_t e = row_start[i] + t % lanes + lanes * j;
          if (e >= row_start[i + 1]) continue;
          const uint32_t slot = h.entries[2 * size_t(e) + 1];
          slots.emplace_back((3 * slot) % 32, slot);
          if (slot < own) own_slots.emplace_back((3 * slot) % 32, slot);
          if (j < walked_from || h.words.empty()) continue;
          const uint32_t word = columns ? (j - walked_from) * threads + t : e - row_start[first];
          words.emplace_back(word % 32, word);
          const uint32_t place = h.words[e] & 0xffffu;
          springs[(t - warp) / 8].emplace_back(place % 8, place);
        }
        if (slots.empty()) break;
        out.groups += 1.0;
        out.slots += 3.0 * most(slots);
        out.slots_bound += 3.0 * std::max(1.0, most(own_slots));
        if (!words.empty()) out.words += most(words);
        for (auto& quarter : springs)
          if (!quarter.empty()) out.springs += most(quarter);
      }
    }
  }
  return out;
}

double stagedFillSectors(uint32_t threads, uint32_t lanes, const std::vector<uint32_t>& row_start,
                         bool own_rows_unfilled, const StagedHalo& h) {
  if (threads == 0 || lanes == 0 || row_start.empty()) return 0.0;
  const size_t n = row_start.size() - 1, rows = threads / lanes;
  double sectors = 0.0;
  std::vector<uint32_t> warp;
  for (size_t b = 0; b + 1 < h.start.size(); ++b) {
    const size_t first = std::min(n, b * rows), end = std::min(n, first + rows);
    const uint32_t begin = h.start[b], count = h.start[b + 1] - begin;
    for (uint32_t k = own_rows_unfilled ? static_cast<uint32_t>(end - first) : 0u; k < count;
         k += 32) {
      warp.clear();
      for (uint32_t slot = k; slot < std::min(count, k + 32); ++slot)
        warp.push_back(h.halo[begin + slot] / 2);  // 16 bytes a particle, 32 a sector
      std::sort(warp.begin(), warp.end());
      sectors += double(std::unique(warp.begin(), warp.end()) - warp.begin());
    }
  }
  return sectors;
}

}  // namespace hooke::cuda
