// The staged grid's halos and entries as the backend builds them at load (the locality order's
// CSR adjacency, one round of rows), and a model of the shared memory's banks for the loads its
// walk issues together: host only, for the tests of items 46 and 51.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "cuda/cuda_test_support.h"
#include "cuda/staged_halo.h"
#include "sim/locality_order.h"
#include "sim/scenes.h"

namespace hooke::cuda_test {

struct StagedShape {
  Scene scene;
  uint32_t threads, lanes;    // a block's threads, threads to a row
  bool by_direction = false;  // each row's entries sorted by direction (item 47)
};

struct Staged {
  Adjacency adjacency;  // in the device order
  uint32_t blocks = 0;
  cuda::StagedHalo halo;
};

// The CSR adjacency of `scene` in the locality order's slots, as the backend builds it (each row's
// springs in spring order), and the positions by slot
inline Adjacency deviceOrderAdjacency(const Scene& scene, std::vector<glm::vec3>* x) {
  const size_t n = scene.model.particleCount();
  const LocalityOrder order = localityOrder(scene.model, scene.state.x);
  std::vector<glm::uvec2> ends(scene.model.springCount());
  for (size_t s = 0; s < ends.size(); ++s) {
    const glm::uvec2 e = scene.model.spring_ends[order.spring[s]];
    ends[s] = glm::uvec2(order.slot[e.x], order.slot[e.y]);
  }
  x->resize(n);
  for (size_t d = 0; d < n; ++d)
    (*x)[d] = scene.state.x[order.particle[d]];
  return adjacencyOf(n, ends);
}

inline Staged stagedOf(const StagedShape& shape) {
  const size_t n = shape.scene.model.particleCount();
  std::vector<glm::vec3> x;
  Staged out;
  out.adjacency = deviceOrderAdjacency(shape.scene, &x);
  if (shape.by_direction)
    EXPECT_TRUE(cuda::sortRowsByDirection(x, out.adjacency.row_start, out.adjacency.pairs.data()));
  const uint32_t rows = shape.threads / shape.lanes;
  out.blocks = uint32_t((n + rows - 1) / rows);
  EXPECT_TRUE(cuda::buildStagedHalo(out.blocks, shape.threads, shape.lanes, out.adjacency.row_start,
                                    out.adjacency.pairs.data(), 4096, &out.halo));
  return out;
}

// Passes of the banks that the loads of thread t's j-th entries (j >= first_j; row t / lanes of
// the block, entries t % lanes + lanes j) take, `group` threads served together: for each block,
// group and j, the most distinct addresses among its loads that share a bank. `where(e)` gives
// entry e's load as (bank, address).
template <typename Where>
double bankPasses(const std::vector<uint32_t>& row_start, size_t blocks, uint32_t threads,
                  uint32_t lanes, uint32_t first_j, uint32_t group, Where where) {
  const size_t n = row_start.size() - 1, rows = threads / lanes;
  double passes = 0.0;
  for (size_t b = 0; b < blocks; ++b) {
    const size_t first = std::min(n, b * rows), end = std::min(n, first + rows);
    for (uint32_t at = 0; at < threads; at += group) {
      for (uint32_t j = first_j;; ++j) {
        std::map<uint32_t, std::set<uint32_t>> banks;
        for (uint32_t t = at; t < at + group; ++t) {
          const size_t i = first + t / lanes;
          if (i >= end) continue;
          const uint32_t e = row_start[i] + t % lanes + lanes * j;
          if (e >= row_start[i + 1]) continue;
          const std::pair<uint32_t, uint32_t> load = where(e);
          banks[load.first].insert(load.second);
        }
        if (banks.empty()) break;
        size_t most = 0;
        for (const auto& [bank, addresses] : banks)
          most = std::max(most, addresses.size());
        passes += double(most);
      }
    }
  }
  return passes;
}

}  // namespace hooke::cuda_test
