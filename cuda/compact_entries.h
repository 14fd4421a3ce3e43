// Item 20's 4-byte adjacency entries (host side) for the launched q = A p. The device order sorts
// springs by their lower particle slot (sim/locality_order.h), so each particle's springs towards
// higher slots form one run of consecutive spring indices starting at own_start[particle]. An
// adjacency entry then needs only the other end and the spring's place in the run of its lower
// end: spring = own_start[min(i, other)] + k. Half the bytes of the (spring, other) pair the
// gather otherwise reads per entry; the sum runs over the same entries in the same order.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

namespace hooke::cuda {

// An entry: other << kCompactShift | k, k < kCompactMaxRun
inline constexpr uint32_t kCompactShift = 5;
inline constexpr uint32_t kCompactMaxRun = 1u << kCompactShift;
inline constexpr uint32_t kCompactMaxParticles = 1u << (32 - kCompactShift);

struct CompactEntries {
  std::vector<uint32_t> own_start;  // (particles + 1) the first spring whose lower end is >= it
  std::vector<uint32_t> entries;    // (2 springs) one per adjacency entry, in its place
};

// The compact form of the backend's CSR adjacency (row_start, and row_start.back() pairs (spring,
// other end or ~other end) as uploaded as int2) over springs with these ends. False, with `out`
// left empty, when it cannot hold them: the springs' lower ends are not in increasing order (a
// model in its own order, CudaOptions::locality_order off), a lower end has more than
// kCompactMaxRun springs, or there are kCompactMaxParticles particles or more.
bool buildCompactEntries(const std::vector<glm::uvec2>& ends,
                         const std::vector<uint32_t>& row_start, const int32_t* adjacency,
                         CompactEntries* out);

}  // namespace hooke::cuda
