#include "cuda/stencil_rows.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace hooke::cuda {

bool buildStencilRows(const std::vector<glm::uvec2>& ends, size_t particles, StencilRows* out) {
  *out = StencilRows{};
  if (particles == 0 || particles > size_t(std::numeric_limits<int32_t>::max())) return false;
  // the offsets, and the order: lower ends increasing, higher ends strictly increasing within one
  std::vector<uint32_t> offsets;
  uint32_t last_lower = 0, last_higher = 0;
  for (size_t s = 0; s < ends.size(); ++s) {
    const uint32_t lower = std::min(ends[s].x, ends[s].y), higher = std::max(ends[s].x, ends[s].y);
    if (higher >= particles || higher == lower) return false;
    if (s > 0 && (lower < last_lower || (lower == last_lower && higher <= last_higher)))
      return false;
    last_lower = lower;
    last_higher = higher;
    const uint32_t offset = higher - lower;
    if (std::find(offsets.begin(), offsets.end(), offset) == offsets.end()) {
      if (offsets.size() == size_t(kStencilMaxOffsets)) return false;
      offsets.push_back(offset);
    }
  }
  std::sort(offsets.begin(), offsets.end());
  const uint32_t d_count = static_cast<uint32_t>(offsets.size());
  auto direction = [&](uint32_t offset) {
    return static_cast<uint32_t>(std::lower_bound(offsets.begin(), offsets.end(), offset) -
                                 offsets.begin());
  };
  StencilRows r;
  r.meta.assign(2 * particles, 0);
  // own springs: the run of each lower end (the sort makes it consecutive, in offset order)
  for (size_t s = ends.size(); s-- > 0;) {
    const uint32_t lower = std::min(ends[s].x, ends[s].y), higher = std::max(ends[s].x, ends[s].y);
    const uint32_t d = direction(higher - lower);
    r.meta[2 * size_t(lower)] = static_cast<uint32_t>(s);  // the run's first, in the end
    r.meta[2 * size_t(lower) + 1] |= 1u << (d_count + d);
    r.meta[2 * size_t(higher) + 1] |= 1u << (d_count - 1 - d);
  }
  // a particle without own springs: its run starts where the next one's does (unread)
  uint32_t next = static_cast<uint32_t>(ends.size());
  for (size_t i = particles; i-- > 0;) {
    if ((r.meta[2 * i + 1] >> d_count) == 0) r.meta[2 * i] = next;
    next = r.meta[2 * i];
  }
  r.offsets = std::move(offsets);
  *out = std::move(r);
  return true;
}

bool offsetBlockSlots(const std::vector<glm::uvec2>& ends, size_t particles,
                      const std::vector<uint32_t>& offsets, std::vector<uint32_t>* slots) {
  slots->clear();
  if (offsets.empty() || !std::is_sorted(offsets.begin(), offsets.end()) ||
      uint64_t(offsets.size()) * uint64_t(particles) >= (uint64_t(1) << 32))
    return false;
  std::vector<uint32_t> out(ends.size());
  for (size_t s = 0; s < ends.size(); ++s) {
    const uint32_t lower = std::min(ends[s].x, ends[s].y), higher = std::max(ends[s].x, ends[s].y);
    const auto at = std::lower_bound(offsets.begin(), offsets.end(), higher - lower);
    if (higher >= particles || higher == lower || at == offsets.end() || *at != higher - lower)
      return false;
    out[s] = static_cast<uint32_t>(uint64_t(at - offsets.begin()) * particles + lower);
  }
  *slots = std::move(out);
  return true;
}

}  // namespace hooke::cuda
