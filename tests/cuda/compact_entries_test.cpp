// Item 20's 4-byte adjacency entries: the host builder (no device needed) and the launched
// q = A p that reads them; item 21's dependent launches of the launched path (both need a device;
// skipped, never passed, where there is none).
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "cuda/compact_entries.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "sim/locality_order.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// The scene's springs in the backend's device order (item 15)
Adjacency deviceAdjacency(const Scene& scene) {
  const LocalityOrder order = localityOrder(scene.model, scene.state.x);
  std::vector<glm::uvec2> ends(scene.model.springCount());
  for (size_t s = 0; s < ends.size(); ++s) {
    const glm::uvec2 e = scene.model.spring_ends[order.spring[s]];
    ends[s] = glm::uvec2(order.slot[e.x], order.slot[e.y]);
  }
  return adjacencyOf(scene.model.particleCount(), std::move(ends));
}

// Each entry names the other end of its pair and, through its lower end's first spring, the
// pair's spring; own_start counts each particle's springs towards higher slots
TEST(CompactEntries, EachEntryNamesItsPairsSpringAndOtherEnd) {
  for (const Scene& scene : {makeCloth(16, {}), makeVolume(8, {})}) {
    SCOPED_TRACE(scene.name);
    const Adjacency a = deviceAdjacency(scene);
    const size_t n = scene.model.particleCount(), springs = a.ends.size();
    cuda::CompactEntries c;
    ASSERT_TRUE(cuda::buildCompactEntries(a.ends, a.row_start, a.pairs.data(), &c));
    ASSERT_EQ(c.own_start.size(), n + 1);
    ASSERT_EQ(c.entries.size(), 2 * springs);
    EXPECT_EQ(c.own_start.front(), 0u);
    EXPECT_EQ(c.own_start.back(), springs);
    std::vector<uint32_t> towards_higher(n, 0);
    for (const glm::uvec2& e : a.ends)
      ++towards_higher[std::min(e.x, e.y)];
    uint32_t longest = 0;
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(c.own_start[i + 1] - c.own_start[i], towards_higher[i]) << "particle " << i;
      longest = std::max(longest, towards_higher[i]);
    }
    EXPECT_GT(longest, 1u);
    for (uint32_t i = 0; i < n; ++i) {
      for (uint32_t e = a.row_start[i]; e < a.row_start[i + 1]; ++e) {
        const uint32_t entry = c.entries[e];
        const uint32_t other = entry >> cuda::kCompactShift;
        const uint32_t spring =
            c.own_start[std::min(i, other)] + (entry & (cuda::kCompactMaxRun - 1));
        const int32_t y = a.pairs[2 * e + 1];
        ASSERT_EQ(other, uint32_t(y < 0 ? ~y : y)) << "entry " << e;
        ASSERT_EQ(spring, uint32_t(a.pairs[2 * e])) << "entry " << e;
      }
    }
  }
}

// Springs not in increasing lower-end order (a model in its own order), a particle with more
// than 32 springs towards higher slots, or an adjacency of another size: refused, nothing built
TEST(CompactEntries, RefusesWhatFourBytesCannotHold) {
  cuda::CompactEntries c;
  const Adjacency unordered = adjacencyOf(3, {{1, 2}, {0, 1}});
  EXPECT_FALSE(
      cuda::buildCompactEntries(unordered.ends, unordered.row_start, unordered.pairs.data(), &c));
  EXPECT_TRUE(c.entries.empty());
  EXPECT_TRUE(c.own_start.empty());
  const Scene cloth = makeCloth(16, {});  // its own order: springs by kind, then by row
  const Adjacency own = adjacencyOf(cloth.model.particleCount(), cloth.model.spring_ends);
  EXPECT_FALSE(cuda::buildCompactEntries(own.ends, own.row_start, own.pairs.data(), &c));

  const Adjacency ordered = adjacencyOf(3, {{0, 1}, {2, 1}});  // lower ends 0, 1
  EXPECT_TRUE(cuda::buildCompactEntries(ordered.ends, ordered.row_start, ordered.pairs.data(), &c));
  EXPECT_EQ(c.entries.size(), 4u);

  auto star = [](uint32_t arms) {  // particle 0 joined to every other
    std::vector<glm::uvec2> ends;
    for (uint32_t k = 1; k <= arms; ++k)
      ends.push_back({0u, k});
    return adjacencyOf(arms + 1, std::move(ends));
  };
  const Adjacency fits = star(cuda::kCompactMaxRun), over = star(cuda::kCompactMaxRun + 1);
  EXPECT_TRUE(cuda::buildCompactEntries(fits.ends, fits.row_start, fits.pairs.data(), &c));
  EXPECT_FALSE(cuda::buildCompactEntries(over.ends, over.row_start, over.pairs.data(), &c));
  EXPECT_TRUE(c.entries.empty());

  std::vector<uint32_t> short_rows = ordered.row_start;
  short_rows.back() -= 1;
  EXPECT_FALSE(cuda::buildCompactEntries(ordered.ends, short_rows, ordered.pairs.data(), &c));
}

// item 22 off: on a lattice its stencil rows would be read instead of any entries
CudaOptions launched(int lanes, int batch, bool compact) {
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  o.gather_lanes = lanes;
  o.gather_batch = batch;
  o.compact_entries = compact;
  o.stencil_rows = false;
  return o;
}

// Item 20 changes how the launched q = A p finds a spring, not what it sums: with 4-byte entries
// the run gives the pairs' bytes, for batches of 3 and 4, one lane and several
TEST(CompactEntries, LaunchedApplyGivesThePairsBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  for (const Scene* scene : {&cloth, &volume}) {
    for (int lanes : {1, 4}) {
      for (int batch : {3, 4}) {
        SCOPED_TRACE(scene->name + ", " + std::to_string(lanes) + " lanes, batches of " +
                     std::to_string(batch));
        State ends[2];
        for (bool compact : {false, true}) {
          std::string why_not;
          auto gpu = createCudaBackend(launched(lanes, batch, compact), &why_not);
          ASSERT_TRUE(gpu) << why_not;
          Trajectory run = runSteps(*gpu, *scene, settingsFor(Integrator::kImplicit), 20);
          ASSERT_TRUE(run.ok) << run.error;
          ASSERT_EQ(cudaCompactEntries(*gpu), compact);
          ASSERT_EQ(cudaGatherBatch(*gpu), batch);
          ends[compact] = run.state;
        }
        EXPECT_TRUE(sameBytes(ends[0], ends[1]));
      }
    }
  }
}

// On by default where it applies: the launched path with batched loads in the locality order;
// not with one entry at a time, not in the model's own order (its springs are not by lower end),
// not on the grid path, not where item 22's stencil rows are read
TEST(CompactEntries, OnWhereTheLaunchedPathBatchesInTheLocalityOrder) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  auto compactFor = [](const CudaOptions& o, const Scene& scene) {
    return askLoaded(o, scene, [](const Backend& b) { return cudaCompactEntries(b); });
  };
  const Scene cloth = makeCloth(16, {});
  CudaOptions batched;
  batched.cg_path = CgPath::kLaunches;
  batched.gather_batch = 3;
  EXPECT_EQ(compactFor(batched, cloth), 0);  // item 22
  batched.stencil_rows = false;
  EXPECT_EQ(compactFor(batched, cloth), 1);
  CudaOptions unbatched = batched;
  unbatched.gather_batch = 1;
  EXPECT_EQ(compactFor(unbatched, cloth), 0);
  CudaOptions own_order = batched;
  own_order.locality_order = false;
  EXPECT_EQ(compactFor(own_order, cloth), 0);
  CudaOptions grid = batched;
  grid.cg_path = CgPath::kGrid;
  EXPECT_EQ(compactFor(grid, cloth), 0);
  // the automatic path and batch at a size the launched path takes
  CudaOptions automatic;
  automatic.stencil_rows = false;
  EXPECT_EQ(compactFor(automatic, makeCloth(512, {})), 1);
}

// Item 21 changes when the launched path's kernels are scheduled, never what they read: with
// dependent launches the run gives the plain order's bytes, fused and unfused (five launches per
// iteration), with graphs and without, and on a batched size with item 20's entries
TEST(DependentLaunch, LaunchedPathGivesThePlainOrdersBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  struct Case {
    bool fused, graph;
    int batch;
  };
  for (const Scene* scene : {&cloth, &volume}) {
    for (const Case c :
         {Case{true, true, 0}, Case{false, true, 0}, Case{true, false, 0}, Case{true, true, 3}}) {
      SCOPED_TRACE(scene->name + (c.fused ? ", fused" : ", unfused") +
                   (c.graph ? ", graph" : ", stream") + ", batch " + std::to_string(c.batch));
      State ends[2];
      for (bool dependent : {false, true}) {
        CudaOptions o = launched(0, c.batch, true);
        o.fused_finish = c.fused;
        o.cg_graph = c.graph;
        o.dependent_launch_max_particles = dependent ? std::numeric_limits<int>::max() : 0;
        std::string why_not;
        auto gpu = createCudaBackend(o, &why_not);
        ASSERT_TRUE(gpu) << why_not;
        Trajectory run = runSteps(*gpu, *scene, settingsFor(Integrator::kImplicit), 20);
        ASSERT_TRUE(run.ok) << run.error;
        CudaDeviceInfo device;
        ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
        ASSERT_EQ(cudaDependentLaunch(*gpu), dependent && device.compute_major >= 9);
        ends[dependent] = run.state;
      }
      EXPECT_TRUE(sameBytes(ends[0], ends[1]));
    }
  }
}

// By default up to 32768 particles on the launched path (sm_90), never on the others
TEST(DependentLaunch, DefaultUpToTheMeasuredSizeOnTheLaunchedPath) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaDeviceInfo device;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
  auto dependentFor = [](const CudaOptions& o, const Scene& scene) {
    return askLoaded(o, scene, [](const Backend& b) { return cudaDependentLaunch(b); });
  };
  const bool sm90 = device.compute_major >= 9;
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  EXPECT_EQ(dependentFor(o, makeCloth(16, {})), int(sm90));
  EXPECT_EQ(dependentFor(o, makeCloth(128, {})), int(sm90));  // 16384
  EXPECT_EQ(dependentFor(o, makeCloth(256, {})), 0);          // 65536
  o.cg_path = CgPath::kGrid;
  EXPECT_EQ(dependentFor(o, makeCloth(16, {})), 0);
}

}  // namespace
}  // namespace hooke
