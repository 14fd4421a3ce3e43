// Item 37: the launched q = A p reads its spring blocks from offset blocks, one place per stencil
// offset and particle; item 39 streams them through L2. The places (no device needed), and the
// kernels that use them (need a device; skipped, never passed, where there is none).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "cuda/stencil_rows.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// Each spring's place is d · particles + lower for its offset's rank d: distinct places, and every
// place a row computes from a set bit of its mask is the place of that very spring
TEST(OffsetBlocks, PlacesAreTheSpringsOwnAtItsLowerEnd) {
  for (const Scene& scene : {makeCloth(16, {}), makeVolume(8, {})}) {
    SCOPED_TRACE(scene.name);
    const Scene sorted = springsSortedByEnds(scene);
    const size_t n = sorted.model.particleCount();
    const std::vector<glm::uvec2> ends = adjacencyOf(n, sorted.model.spring_ends).ends;
    cuda::StencilRows rows;
    ASSERT_TRUE(cuda::buildStencilRows(ends, n, &rows));
    std::vector<uint32_t> places;
    ASSERT_TRUE(cuda::offsetBlockSlots(ends, n, rows.offsets, &places));
    ASSERT_EQ(places.size(), ends.size());
    const uint32_t count = static_cast<uint32_t>(rows.offsets.size());
    std::vector<int> spring_at(count * n, -1);
    for (size_t s = 0; s < ends.size(); ++s) {
      const uint32_t lower = std::min(ends[s].x, ends[s].y);
      const uint32_t higher = std::max(ends[s].x, ends[s].y);
      ASSERT_LT(places[s], count * n);
      EXPECT_EQ(places[s] % n, lower);
      EXPECT_EQ(rows.offsets[places[s] / n], higher - lower);
      ASSERT_EQ(spring_at[places[s]], -1) << "two springs at one place";
      spring_at[places[s]] = static_cast<int>(s);
    }
    // the kernel's rule: own bit D + d at i → place d·n + i; lower bit D − 1 − d → d·n + (i − o_d)
    size_t visited = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t mask = rows.meta[2 * size_t(i) + 1];
      for (uint32_t b = 0; b < 2 * count; ++b) {
        if (((mask >> b) & 1u) == 0) continue;
        const uint32_t d = b >= count ? b - count : count - 1 - b;
        const uint32_t other = b >= count ? i + rows.offsets[d] : i - rows.offsets[d];
        const int s = spring_at[size_t(d) * n + (b >= count ? i : other)];
        ASSERT_GE(s, 0);
        EXPECT_EQ(std::min(ends[s].x, ends[s].y), std::min(i, other));
        EXPECT_EQ(std::max(ends[s].x, ends[s].y), std::max(i, other));
        ++visited;
      }
    }
    EXPECT_EQ(visited, 2 * ends.size());  // every spring from both ends
  }
}

// No places for a spring at an offset the list lacks, for out-of-range ends, or where the places
// and item 40's zero place after them (D · particles) would pass 2^32
TEST(OffsetBlocks, RefusesWhatHasNoPlace) {
  std::vector<uint32_t> places{7};
  const std::vector<glm::uvec2> ends{{0, 1}, {1, 3}};
  EXPECT_TRUE(cuda::offsetBlockSlots(ends, 4, {1, 2}, &places));
  EXPECT_EQ(places, (std::vector<uint32_t>{0, 4 + 1}));
  EXPECT_FALSE(cuda::offsetBlockSlots(ends, 4, {1}, &places));
  EXPECT_TRUE(places.empty());
  EXPECT_FALSE(cuda::offsetBlockSlots({{0, 4}}, 4, {4}, &places));
  EXPECT_FALSE(cuda::offsetBlockSlots(ends, size_t(1) << 31, {1, 2, 3}, &places));
  EXPECT_FALSE(cuda::offsetBlockSlots(ends, size_t(1) << 31, {1, 2}, &places));  // D · n = 2^32
  EXPECT_TRUE(cuda::offsetBlockSlots(ends, (size_t(1) << 31) - 1, {1, 2}, &places));
  EXPECT_EQ(places, (std::vector<uint32_t>{0, uint32_t(1) << 31}));  // 1 · n + 1
  EXPECT_FALSE(cuda::offsetBlockSlots(ends, 4, {}, &places));
}

// The launched path in the plain launch order (item 21 off at these sizes)
CudaOptions launched(int lanes, bool tiles) {
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  o.dependent_launch_max_particles = 0;
  o.gather_lanes = lanes;
  o.gather_batch = 3;  // batched, as the stencil rows need at these sizes
  o.lattice_tiles = tiles;
  return o;
}

struct Runs {
  Trajectory runs_of_springs, offset_blocks;
};

Runs runBothWays(const CudaOptions& options, const Scene& scene, const SolverSettings& settings,
                 int steps) {
  Runs out;
  for (bool on : {false, true}) {
    CudaOptions o = options;
    o.offset_blocks = on;
    std::string why_not;
    auto gpu = createCudaBackend(o, &why_not);
    EXPECT_TRUE(gpu) << why_not;
    if (!gpu) return out;
    Trajectory run = runSteps(*gpu, scene, settings, steps);
    EXPECT_EQ(cudaOffsetBlocks(*gpu), on);
    EXPECT_TRUE(cudaStencilRows(*gpu));
    (on ? out.offset_blocks : out.runs_of_springs) = run;
  }
  return out;
}

void expectSameBitsAndIterations(const Runs& runs) {
  cuda_test::expectSameBitsAndIterations(runs.runs_of_springs, runs.offset_blocks);
}

// The places change where a row reads its springs, not what it sums: the same bytes and CG
// iterations with them and without, on cloth and volume, for one lane and several, tiled and not,
// batches of 3 and 4, and packed float3; the spring runs with item 24's words ahead and at the row
// (with the offset blocks item 24 does not apply: variants 0 and 1 run the same kernel there)
TEST(OffsetBlocks, GiveTheSpringRunsBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(24, {}), volume = makeVolume(10, {});
  const SolverSettings settings = settingsFor(Integrator::kImplicit);
  for (const Scene* scene : {&cloth, &volume}) {
    for (int lanes : {1, 2, 4, 32}) {
      for (bool tiles : {false, true}) {
        for (int variant = 0; variant < 4; ++variant) {
          // 0: automatic batch, ahead; 1: at the row; 2: batches of 4; 3: float3 (2 lanes only)
          if (variant == 3 && lanes != 2) continue;
          CudaOptions o = launched(lanes, tiles);
          o.stencil_ahead = variant != 1;
          if (variant == 2) o.gather_batch = 4;
          o.float4_layout = variant != 3;
          SCOPED_TRACE(scene->name + ", " + std::to_string(lanes) + " lanes" +
                       (tiles ? ", tiled" : "") + ", variant " + std::to_string(variant));
          const Runs runs = runBothWays(o, *scene, settings, 20);
          expectSameBitsAndIterations(runs);
          EXPECT_GT(
              relativeDifference(runs.offset_blocks.state, scene->state, extentOf(scene->state)),
              1e-4);
        }
      }
    }
  }
}

// The same across the launched path's CG configurations: graphs of 1, 3 and 8 and none, warm
// starts, float3, Newton's and BDF2's repeated solves (their prepare kernels write the places
// too), a cap of 7 inside graphs of 8; and with unfused finishing (five launches)
TEST(OffsetBlocks, GiveTheSpringRunsBitsInEveryLaunchedConfiguration) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  std::vector<LaunchedCase> cases = launchedCases();
  CudaOptions unfused;
  unfused.cg_path = CgPath::kLaunches;
  unfused.fused_finish = false;
  cases.push_back({"unfused", unfused, settingsFor(Integrator::kImplicit)});
  for (const Scene* scene : {&cloth, &volume}) {
    for (const LaunchedCase& c : cases) {
      SCOPED_TRACE(scene->name + ", " + c.name);
      CudaOptions o = c.options;
      o.gather_batch = 3;  // the stencil rows (batched loads) at these sizes
      expectSameBitsAndIterations(runBothWays(o, *scene, c.settings, 12));
    }
  }
}

// A few steps each way, tiled on one lane and untiled on two (short enough for compute-sanitizer's
// memcheck, racecheck and synccheck, which the tests above outlast)
TEST(OffsetBlocks, FewStepsGiveTheSpringRunsBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const SolverSettings settings = settingsFor(Integrator::kImplicit);
  for (const Scene& scene : {makeCloth(16, {}), makeVolume(10, {})}) {
    for (int lanes : {1, 2}) {
      SCOPED_TRACE(scene.name + ", " + std::to_string(lanes) + " lanes");
      expectSameBitsAndIterations(runBothWays(launched(lanes, lanes == 1), scene, settings, 3));
    }
  }
}

// On by default with the stencil rows; off without them and on the grid path; item 24's words
// ahead only without it
TEST(OffsetBlocks, LeaveTheWordsAheadToTheSpringRuns) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {});
  EXPECT_EQ(askLoaded(launched(1, true), cloth, cudaStencilAhead), 0);
  CudaOptions off = launched(1, true);
  off.offset_blocks = false;
  EXPECT_EQ(askLoaded(off, cloth, cudaStencilAhead), 1);
}

TEST(OffsetBlocks, OnWithTheStencilRows) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {});
  EXPECT_EQ(askLoaded(launched(0, true), cloth, cudaOffsetBlocks), 1);
  EXPECT_EQ(askLoaded(launched(0, false), cloth, cudaOffsetBlocks), 1);
  CudaOptions off = launched(0, true);
  off.offset_blocks = false;
  EXPECT_EQ(askLoaded(off, cloth, cudaOffsetBlocks), 0);
  CudaOptions no_stencil = launched(0, true);
  no_stencil.stencil_rows = false;
  EXPECT_EQ(askLoaded(no_stencil, cloth, cudaOffsetBlocks), 0);
  CudaOptions grid;
  grid.cg_path = CgPath::kGrid;
  EXPECT_EQ(askLoaded(grid, cloth, cudaOffsetBlocks), 0);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeVolume(102, {}), cudaOffsetBlocks), 1);
}

// Item 40's rules where the launched path batches by itself (past one round of the grid: 128k
// particles, for devices of up to 250 multiprocessors): rows on one lane through the offset
// blocks walk in batches of 3, tiled or not, a volume's in tiles of at most 128 rows whatever
// q = A p's block, a cloth's as many rows as the block has threads; a batch asked for is kept
TEST(OffsetBlocks, RowsOnOneLaneWalkInBatchesOf3) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene volume = makeVolume(80, {}), cloth = makeCloth(360, {});
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  for (const Scene* scene : {&volume, &cloth}) {
    SCOPED_TRACE(scene->name);
    std::string why_not;
    auto gpu = createCudaBackend(o, &why_not);
    ASSERT_TRUE(gpu) << why_not;
    ASSERT_TRUE(gpu->load(scene->model, scene->state));
    ASSERT_TRUE(cudaOffsetBlocks(*gpu));
    EXPECT_EQ(cudaGatherLanes(*gpu), 1);
    EXPECT_EQ(cudaGatherBatch(*gpu), 3);
    int tile[3];
    ASSERT_TRUE(cudaLatticeTiles(*gpu, tile));
    int rows = 1;
    while (rows * 2 <= cudaApplyBlock(*gpu))
      rows *= 2;
    EXPECT_EQ(tile[0] * tile[1] * tile[2], scene == &volume ? std::min(rows, 128) : rows);
  }
  CudaOptions untiled = o;
  untiled.lattice_tiles = false;
  untiled.gather_lanes = 1;
  EXPECT_EQ(askLoaded(untiled, volume, cudaGatherBatch), 3);
  o.gather_batch = 4;
  EXPECT_EQ(askLoaded(o, volume, cudaGatherBatch), 4);
}

// Item 39 streams the offset blocks through L2 (an access-policy window with hit ratio 0): a cache
// hint, so the same bytes and CG iterations streamed and not, across the launched configurations;
// the window is the stream's during CG only (none left on the stream after the steps)
TEST(StreamedBlocks, GiveTheCachedBlocksBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  for (const Scene* scene : {&cloth, &volume}) {
    for (const LaunchedCase& c : launchedCases()) {
      SCOPED_TRACE(scene->name + ", " + c.name);
      Trajectory runs[2];
      for (int streamed : {0, 1}) {
        CudaOptions o = c.options;
        o.gather_batch = 3;  // the stencil rows (batched loads) at these sizes
        o.stream_offset_blocks = streamed ? 1 : -1;
        std::string why_not;
        auto gpu = createCudaBackend(o, &why_not);
        ASSERT_TRUE(gpu) << why_not;
        runs[streamed] = runSteps(*gpu, *scene, c.settings, 12);
        EXPECT_TRUE(cudaOffsetBlocks(*gpu));
        EXPECT_EQ(cudaStreamedBlocks(*gpu), streamed == 1);
        EXPECT_EQ(cudaStreamL2WindowBytes(*gpu), 0u);
      }
      cuda_test::expectSameBitsAndIterations(runs[0], runs[1]);
    }
  }
}

// Automatic: where the rest of the iteration's 104 bytes a particle (float4; 88 in float3) take at
// most 3/4 of the device's L2 (on the H200: the 262k cloth yes, the 524k one only in float3);
// forced each way; never without offset blocks, on the grid, or with item 6's window on
TEST(StreamedBlocks, WhereTheRestFitsL2) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaDeviceInfo device;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
  const Scene small = makeCloth(16, {});
  for (int res : {512, 724}) {
    const Scene cloth = makeCloth(res, {});
    for (bool float4 : {true, false}) {
      const size_t particles = size_t(res) * size_t(res), rest = float4 ? 104 : 88;
      const bool fits = double(particles * rest) <= 0.75 * double(device.l2_bytes);
      SCOPED_TRACE("cloth " + std::to_string(res) + (float4 ? "" : ", float3") +
                   (fits ? ": fits" : ": does not fit"));
      CudaOptions automatic;
      automatic.float4_layout = float4;
      EXPECT_EQ(askLoaded(automatic, cloth, cudaStreamedBlocks), int(fits));
    }
  }
  EXPECT_EQ(askLoaded(launched(1, true), small, cudaStreamedBlocks), 1);
  CudaOptions o = launched(1, true);
  o.stream_offset_blocks = -1;
  EXPECT_EQ(askLoaded(o, small, cudaStreamedBlocks), 0);
  o.stream_offset_blocks = 1;
  EXPECT_EQ(askLoaded(o, small, cudaStreamedBlocks), 1);
  o.l2_persist = true;
  EXPECT_EQ(askLoaded(o, small, cudaStreamedBlocks), 0);
  o.l2_persist = false;
  o.offset_blocks = false;
  EXPECT_EQ(askLoaded(o, small, cudaStreamedBlocks), 0);
  CudaOptions grid;
  grid.cg_path = CgPath::kGrid;
  grid.stream_offset_blocks = 1;
  EXPECT_EQ(askLoaded(grid, small, cudaStreamedBlocks), 0);
}

}  // namespace
}  // namespace hooke
