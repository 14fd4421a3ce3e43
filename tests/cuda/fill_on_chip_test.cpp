// Item 43: item 27's fill reads from global memory only what other blocks wrote: each block keeps
// its own rows' r', w', s' in shared memory from the finish to the next fill, and every halo
// slot's P⁻¹ block there for the launch (needs a device that launches cooperatively; skipped,
// never passed, where there is no device).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// What a loaded backend runs of item 43 (its bits)
int fillLevel(const Backend& backend) {
  return cudaFillOnChip(backend);
}

// `options` with item 43 off, with the P⁻¹ blocks alone, the own rows alone and both: each run
// checked to be on item 27's kernel and to run the bits asked for, all four giving the same bytes
// and iterations (on one lane with item 45 off, whose registers would take the rows' place:
// tests/cuda/rows_in_registers_test.cpp)
void expectEveryLevelKeepsBits(const CudaOptions& options, const Scene& scene,
                               const SolverSettings& settings, int steps) {
  Trajectory runs[4];
  for (int level : {0, kFillInverses, kFillRows, kFillInverses | kFillRows}) {
    SCOPED_TRACE("fill_on_chip " + std::to_string(level));
    CudaOptions o = options;
    o.fill_on_chip = level;
    o.rows_in_registers = false;
    std::string why_not;
    std::unique_ptr<Backend> gpu = createCudaBackend(o, &why_not);
    ASSERT_TRUE(gpu) << why_not;
    runs[level] = runSteps(*gpu, scene, settings, steps);
    ASSERT_TRUE(runs[level].ok) << runs[level].error;
    EXPECT_TRUE(stagedRowsRun(*gpu));
    EXPECT_EQ(fillLevel(*gpu), level);
  }
  for (int level = 1; level < 4; ++level) {
    SCOPED_TRACE("fill_on_chip " + std::to_string(level));
    expectSameBitsAndIterations(runs[0], runs[level]);
  }
  EXPECT_GT(relativeDifference(runs[3].state, scene.state, extentOf(scene.state)), 1e-4);
}

// The kept rows and blocks are the values the global fill loads, so the same bits and iterations:
// on 1 lane (cloth 16 in 64-thread blocks, whose halos take more than one round of the block's
// threads to fill, the own rows all in the first), 2 (volume 10: no lane sums), 4, 8 and 16 lanes
// (item 35's lane sums: the first lane stores), item 28's blocks (cloth 32, volume 26), many
// blocks (cloth 64 in 256-thread blocks), launches of 3 iterations (each launch loads its first
// fill from global memory again), warm-started, in packed float3, under Newton's and BDF2's
// repeated solves, and capped at 2 iterations a solve
TEST(FillOnChip, GivesTheGlobalFillsBitsAndIterations) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth16 = makeCloth(16, {}), cloth32 = makeCloth(32, {}), cloth64 = makeCloth(64, {});
  const Scene volume10 = makeVolume(10, {}), volume26 = makeVolume(26, {});
  const SolverSettings implicit = settingsFor(Integrator::kImplicit);
  std::vector<SwitchCase> cases = {
      {"cloth16 1 lane", &cloth16, gridOptions(1, 64), implicit, 20},
      {"cloth16 4 lanes", &cloth16, gridOptions(4, 256), implicit, 20},
      {"volume10 2 lanes", &volume10, gridOptions(2, 512), implicit, 20},
      {"cloth32 auto", &cloth32, CudaOptions{}, implicit, 10},
      {"volume26 auto", &volume26, CudaOptions{}, implicit, 10},
      {"cloth64 many blocks", &cloth64, gridOptions(16, 256), implicit, 5}};
  appendSolverVariants(&cases, cloth16, gridOptions(4, 256), volume10, gridOptions(2, 512));
  for (const SwitchCase& c : cases) {
    SCOPED_TRACE(c.name);
    expectEveryLevelKeepsBits(c.options, *c.scene, c.settings, c.steps);
  }
}

// Short solves (a cap of 6) on 1 and 4 lanes: the first fill of each launch from global memory,
// the next five from the kept rows (small enough for compute-sanitizer's racecheck)
TEST(FillOnChip, ShortSolvesOnOneAndFourLanes) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  for (int lanes : {1, 4}) {
    SCOPED_TRACE(std::to_string(lanes) + " lanes");
    CudaOptions off = gridOptions(lanes, lanes == 1 ? 64 : 256);
    off.rows_in_registers = false;  // item 43's rows in shared memory on one lane too
    off.fill_on_chip = 0;
    CudaOptions on = off;
    on.fill_on_chip = kFillInverses | kFillRows;
    expectShortSolvesKeepBits(off, on, makeCloth(16, {}), [](const Backend& backend) {
      return fillLevel(backend) == (kFillInverses | kFillRows);
    });
  }
}

// Cloth 256 on the automatic grid: 65,536 particles on one lane in blocks of 512 rows (item 43's
// largest shared memory of the tests)
TEST(FillOnChip, LargestBlocksGiveTheSameBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.max_iterations = 60;
  expectEveryLevelKeepsBits(CudaOptions{}, makeCloth(256, {}), settings, 3);
}

// Only where item 27 runs: not with its rows or the halos off, not on the launched path; by
// default the P⁻¹ blocks, and the own rows on blocks of at least 128 rows (volume 41: 4 lanes in
// blocks of 512 threads; cloth 256: 1 lane, with item 45 off: on, item 45 keeps them in
// registers) but not of 8 (cloth 32: 16 lanes in blocks of 128); anything but -1 to 3 is refused
// with a reason
TEST(FillOnChip, OnlyWithItem27) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(32, {}), cloth256 = makeCloth(256, {});
  const int both = kFillInverses | kFillRows;
  EXPECT_EQ(askLoaded(CudaOptions{}, cloth, fillLevel), kFillInverses);      // 8 rows a block
  EXPECT_EQ(askLoaded(CudaOptions{}, makeVolume(41, {}), fillLevel), both);  // 128
  EXPECT_EQ(askLoaded(CudaOptions{}, cloth256, fillLevel), kFillInverses);   // 512, item 45
  CudaOptions shared_rows;
  shared_rows.rows_in_registers = false;
  EXPECT_EQ(askLoaded(shared_rows, cloth256, fillLevel), both);
  CudaOptions o;
  o.fill_on_chip = both;
  EXPECT_EQ(askLoaded(o, cloth, fillLevel), both);
  CudaOptions off;
  off.fill_on_chip = 0;
  EXPECT_EQ(askLoaded(off, cloth, fillLevel), 0);
  CudaOptions no_rows;
  no_rows.stage_rows = false;
  EXPECT_EQ(askLoaded(no_rows, cloth, fillLevel), 0);
  CudaOptions unstaged;
  unstaged.stage_halo = -1;
  EXPECT_EQ(askLoaded(unstaged, cloth, fillLevel), 0);
  CudaOptions launched;
  launched.cg_path = CgPath::kLaunches;
  EXPECT_EQ(askLoaded(launched, cloth, fillLevel), 0);
  for (int bad : {-2, 4}) {
    CudaOptions o;
    o.fill_on_chip = bad;
    std::string why_not;
    EXPECT_EQ(createCudaBackend(o, &why_not), nullptr) << bad;
    EXPECT_NE(why_not.find("fill_on_chip"), std::string::npos) << why_not;
  }
}

}  // namespace
}  // namespace hooke
