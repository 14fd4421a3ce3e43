// Item 47: on item 14's grid with its rows on one lane in one round, each CSR row's entries are
// sorted at load by the direction of their other end. The same system summed in another order, so
// not the same bits as the spring order: checked against the CPU reference and against the
// spring order within the parity tolerance (needs a device that launches cooperatively; skipped,
// never passed, where there is no device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "cuda/staged_halo.h"
#include "cuda/staged_model.h"
#include "sim/cpu_backend.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// The backend's CSR adjacency (buildAdjacency, on the host): each row's springs in spring order,
// the other end as ~other at the spring's second end, as this suite's reference builds it
TEST(RowsByDirection, TheAdjacencyStartsInSpringOrder) {
  for (const Scene& scene : {makeCloth(8, {}), makeVolume(6, {})}) {
    SCOPED_TRACE(scene.name);
    std::vector<glm::vec3> x;
    const Adjacency reference = deviceOrderAdjacency(scene, &x);
    std::vector<uint32_t> row_start;
    std::vector<int32_t> pairs(reference.pairs.size());
    cuda::buildAdjacency(x.size(), reference.ends, &row_start, pairs.data());
    EXPECT_EQ(row_start, reference.row_start);
    EXPECT_EQ(pairs, reference.pairs);
  }
}

// The sort itself, on the host: cloth 8 and volume 6 in the locality order's slots. Each row keeps
// its entries, ordered by the (z, y, x) offset to their other end in units of the shortest spring
// (each offset's components whole numbers here: a lattice), and some rows change (the spring
// order is not that order); positions all at one point are refused, the pairs unchanged
TEST(RowsByDirection, SortsEachRowByTheOffsetToItsNeighbour) {
  for (const Scene& scene : {makeCloth(8, {}), makeVolume(6, {})}) {
    SCOPED_TRACE(scene.name);
    const size_t n = scene.model.particleCount();
    std::vector<glm::vec3> x;
    const Adjacency before = deviceOrderAdjacency(scene, &x);
    Adjacency after = before;
    ASSERT_TRUE(cuda::sortRowsByDirection(x, after.row_start, after.pairs.data()));
    float unit = std::numeric_limits<float>::infinity();
    for (const glm::uvec2& e : before.ends)
      unit = std::min(unit, glm::length(x[e.x] - x[e.y]));
    auto other = [](int32_t o) { return uint32_t(o < 0 ? ~o : o); };
    EXPECT_NE(after.pairs, before.pairs);
    for (size_t i = 0; i < n; ++i) {
      std::multiset<std::pair<int32_t, int32_t>> was, is;
      long previous = std::numeric_limits<long>::min();
      for (uint32_t e = after.row_start[i]; e < after.row_start[i + 1]; ++e) {
        was.insert({before.pairs[2 * e], before.pairs[2 * e + 1]});
        is.insert({after.pairs[2 * e], after.pairs[2 * e + 1]});
        const glm::vec3 d = (x[other(after.pairs[2 * e + 1])] - x[i]) / unit;
        const long key = (std::lround(d.z) * 256 + std::lround(d.y)) * 256 + std::lround(d.x);
        EXPECT_LE(previous, key) << "row " << i << " entry " << e;
        previous = key;
      }
      EXPECT_EQ(was, is) << "row " << i;
    }
  }
  const Scene cloth = makeCloth(4, {});
  const size_t n = cloth.model.particleCount();
  Adjacency a = adjacencyOf(n, cloth.model.spring_ends);
  const std::vector<int32_t> pairs = a.pairs;
  const std::vector<glm::vec3> one_point(n, glm::vec3(1.0f));
  EXPECT_FALSE(cuda::sortRowsByDirection(one_point, a.row_start, a.pairs.data()));
  EXPECT_EQ(a.pairs, pairs);
}

// 100 steps of cloth 16 and volume 10 on one lane (blocks of 64 and 256: items 45 and 46 run), and
// 3 capped steps of the automatic cloth 256: item 47 on and off each within the parity tolerance
// of the CPU's trajectory (cloth 16, volume 10) and of each other, on comparable CG iterations,
// and two runs with it on give the same bytes
TEST(RowsByDirection, FollowTheCpuAndTheSpringOrder) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const SolverSettings implicit = settingsFor(Integrator::kImplicit);
  SolverSettings capped = implicit;
  capped.max_iterations = 60;
  struct Case {
    std::string name;
    Scene scene;
    CudaOptions options;
    SolverSettings settings;
    int steps;
    bool cpu;
  };
  const std::vector<Case> cases = {
      {"cloth16 blocks of 64", makeCloth(16, {}), gridOptions(1, 64), implicit, kSteps, true},
      {"volume10 blocks of 256", makeVolume(10, {}), gridOptions(1, 256), implicit, kSteps, true},
      {"cloth256 auto", makeCloth(256, {}), CudaOptions{}, capped, 3, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const double extent = extentOf(c.scene.state);
    Trajectory runs[2];
    for (bool sorted : {false, true}) {
      CudaOptions o = c.options;
      o.rows_by_direction = sorted;
      std::string why_not;
      std::unique_ptr<Backend> gpu = createCudaBackend(o, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      runs[sorted] = runSteps(*gpu, c.scene, c.settings, c.steps);
      ASSERT_TRUE(runs[sorted].ok) << runs[sorted].error;
      EXPECT_EQ(cudaRowsByDirection(*gpu), sorted);
      EXPECT_TRUE(cudaRowsInRegisters(*gpu));
    }
    const double apart = relativeDifference(runs[1].state, runs[0].state, extent);
    const int iterations[2] = {totalIterations(runs[0]), totalIterations(runs[1])};
    std::printf("[ order    ] %-24s by direction and by spring %.3g apart, CG iterations %d, %d\n",
                c.name.c_str(), apart, iterations[1], iterations[0]);
    EXPECT_LE(apart, kTolerance);
    EXPECT_GT(apart, 0.0);  // the sums' order did change
    EXPECT_NEAR(iterations[1], iterations[0], 0.02 * iterations[0] + 2);
    EXPECT_GT(relativeDifference(runs[1].state, c.scene.state, extent), 1e-4);
    if (c.cpu) {
      CpuBackend cpu;
      const Trajectory expected = runSteps(cpu, c.scene, c.settings, c.steps);
      ASSERT_TRUE(expected.ok) << expected.error;
      EXPECT_LE(relativeDifference(runs[1].state, expected.state, extent), kTolerance);
    }
    CudaOptions o = c.options;
    HOOKE_CUDA_OR_SKIP(again, o);
    const Trajectory repeat = runSteps(*again, c.scene, c.settings, c.steps);
    EXPECT_TRUE(sameBytes(repeat.state, runs[1].state));
  }
}

// Only on item 14's grid on one lane in one round of rows: by default at cloth 256 and volume 64,
// not on 4 lanes (volume 41), not on the launched path, not past one round (cloth 362 on the grid)
// and not when switched off
TEST(RowsByDirection, OnlyOnOneLaneInOneRound) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  EXPECT_EQ(askLoaded(CudaOptions{}, makeCloth(256, {}), cudaRowsByDirection), 1);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeVolume(64, {}), cudaRowsByDirection), 1);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeVolume(41, {}), cudaRowsByDirection), 0);
  CudaOptions launched;
  launched.cg_path = CgPath::kLaunches;
  EXPECT_EQ(askLoaded(launched, makeCloth(256, {}), cudaRowsByDirection), 0);
  CudaOptions grid;
  grid.cg_path = CgPath::kGrid;
  EXPECT_EQ(askLoaded(grid, makeCloth(362, {}), cudaRowsByDirection), 0);
  CudaOptions off;
  off.rows_by_direction = false;
  EXPECT_EQ(askLoaded(off, makeCloth(256, {}), cudaRowsByDirection), 0);
}

}  // namespace
}  // namespace hooke
