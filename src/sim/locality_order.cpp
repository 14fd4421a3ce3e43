#include "sim/locality_order.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace hooke {

namespace {

// the 21 low bits of v spread to every third bit (bit k -> bit 3k)
uint64_t spreadBits(uint32_t v) {
  uint64_t x = v & 0x1fffffu;
  x = (x | x << 32) & 0x1f00000000ffffULL;
  x = (x | x << 16) & 0x1f0000ff0000ffULL;
  x = (x | x << 8) & 0x100f00f00f00f00fULL;
  x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
  x = (x | x << 2) & 0x1249249249249249ULL;
  return x;
}

uint32_t quantise(float value, float lo, float scale) {
  constexpr float kTop = float((1u << 21) - 1);
  const float t = (value - lo) * scale;
  if (!(t > 0.0f)) return 0u;  // below, or NaN
  if (!(t < kTop)) return (1u << 21) - 1;
  return static_cast<uint32_t>(t);
}

// true when some position of the order holds another index
bool moves(const std::vector<uint32_t>& order) {
  for (size_t k = 0; k < order.size(); ++k) {
    if (order[k] != k) return true;
  }
  return false;
}

// springs by (lower slot, higher slot, index): a counting sort on the lower slot (in index
// order, so stable), then each bucket (a particle's springs towards higher slots: a handful) by
// its higher slot. Linear in the springs, which outnumber the particles 6–13 to 1.
std::vector<uint32_t> springsBySlots(const Model& model, const std::vector<uint32_t>& slot) {
  const size_t n = model.particleCount(), springs = model.springCount();
  auto slotOf = [&](uint32_t particle) { return particle < n ? slot[particle] : 0u; };
  std::vector<uint32_t> lower(springs), higher(springs);
  std::vector<size_t> start(n + 1, 0);
  for (size_t s = 0; s < springs; ++s) {
    const glm::uvec2 e = model.spring_ends[s];
    lower[s] = std::min(slotOf(e.x), slotOf(e.y));
    higher[s] = std::max(slotOf(e.x), slotOf(e.y));
    ++start[size_t(lower[s]) + 1];
  }
  for (size_t k = 0; k < n; ++k)
    start[k + 1] += start[k];
  std::vector<uint32_t> order(springs);
  std::vector<size_t> fill(start.begin(), start.end() - 1);
  for (size_t s = 0; s < springs; ++s)
    order[fill[lower[s]]++] = static_cast<uint32_t>(s);
  // ties on the higher slot by index (the bucket was filled in index order)
  for (size_t k = 0; k < n; ++k) {
    std::sort(order.begin() + start[k], order.begin() + start[k + 1], [&](uint32_t a, uint32_t b) {
      return higher[a] != higher[b] ? higher[a] < higher[b] : a < b;
    });
  }
  return order;
}

}  // namespace

bool LocalityOrder::identity() const {
  return !particlesMove() && !springsMove();
}
bool LocalityOrder::particlesMove() const {
  return moves(particle);
}
bool LocalityOrder::springsMove() const {
  return moves(spring);
}

uint64_t mortonKey(glm::vec3 p, glm::vec3 lo, float extent) {
  const float scale = extent > 0.0f ? float((1u << 21) - 1) / extent : 0.0f;
  return spreadBits(quantise(p.x, lo.x, scale)) | spreadBits(quantise(p.y, lo.y, scale)) << 1 |
         spreadBits(quantise(p.z, lo.z, scale)) << 2;
}

LocalityOrder localityOrder(const Model& model, std::span<const glm::vec3> x) {
  const size_t n = model.particleCount();
  LocalityOrder out;

  // one cube around the finite positions, so the curve's cells are cubes
  glm::vec3 lo(0.0f), hi(0.0f);
  bool any = false;
  for (size_t i = 0; i < n && i < x.size(); ++i) {
    const glm::vec3 p = x[i];
    if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))) continue;
    lo = any ? glm::min(lo, p) : p;
    hi = any ? glm::max(hi, p) : p;
    any = true;
  }
  const glm::vec3 size = hi - lo;
  const float extent = std::max({size.x, size.y, size.z});

  std::vector<std::pair<uint64_t, uint32_t>> keyed(n);
  for (size_t i = 0; i < n; ++i) {
    const glm::vec3 p = i < x.size() ? x[i] : lo;
    keyed[i] = {mortonKey(p, lo, extent), static_cast<uint32_t>(i)};
  }
  std::sort(keyed.begin(), keyed.end());
  out.particle.resize(n);
  out.slot.resize(n);
  for (size_t k = 0; k < n; ++k) {
    out.particle[k] = keyed[k].second;
    out.slot[keyed[k].second] = static_cast<uint32_t>(k);
  }

  out.spring = springsBySlots(model, out.slot);
  return out;
}

LocalityOrder springsByEnds(const Model& model) {
  const size_t n = model.particleCount();
  LocalityOrder out;
  out.particle.resize(n);
  std::iota(out.particle.begin(), out.particle.end(), 0u);
  out.slot = out.particle;
  out.spring = springsBySlots(model, out.slot);
  return out;
}

}  // namespace hooke
