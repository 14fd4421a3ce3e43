#include "cuda/staged_halo.h"

#include <algorithm>
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

}  // namespace hooke::cuda
