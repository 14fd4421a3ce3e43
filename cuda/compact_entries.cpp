#include "cuda/compact_entries.h"

#include <algorithm>
#include <utility>

namespace hooke::cuda {

bool buildCompactEntries(const std::vector<glm::uvec2>& ends,
                         const std::vector<uint32_t>& row_start, const int32_t* adjacency,
                         CompactEntries* out) {
  *out = CompactEntries{};
  if (row_start.empty()) return false;
  const size_t particles = row_start.size() - 1, springs = ends.size();
  if (particles >= kCompactMaxParticles || row_start.back() != 2 * springs) return false;
  CompactEntries c;
  c.own_start.assign(particles + 1, 0);
  uint32_t previous = 0;
  for (size_t s = 0; s < springs; ++s) {
    const uint32_t lower = std::min(ends[s].x, ends[s].y);
    if (lower < previous || std::max(ends[s].x, ends[s].y) >= particles) return false;
    previous = lower;
    ++c.own_start[lower + 1];
  }
  for (size_t i = 0; i < particles; ++i) {
    if (c.own_start[i + 1] > kCompactMaxRun) return false;
    c.own_start[i + 1] += c.own_start[i];
  }
  c.entries.resize(2 * springs);
  for (size_t i = 0; i < particles; ++i) {
    for (uint32_t e = row_start[i]; e < row_start[i + 1]; ++e) {
      const uint32_t spring = static_cast<uint32_t>(adjacency[2 * size_t(e)]);
      const int32_t y = adjacency[2 * size_t(e) + 1];
      const uint32_t other = static_cast<uint32_t>(y < 0 ? ~y : y);
      const uint32_t anchor = std::min(static_cast<uint32_t>(i), other);
      const uint32_t k = spring - c.own_start[anchor];
      // the entry's spring must lie in its lower end's run (a consistent adjacency)
      if (spring < c.own_start[anchor] || spring >= c.own_start[anchor + 1]) return false;
      c.entries[e] = other << kCompactShift | k;
    }
  }
  *out = std::move(c);
  return true;
}

}  // namespace hooke::cuda
