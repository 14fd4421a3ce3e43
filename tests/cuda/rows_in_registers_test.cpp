// Item 45: item 27's rows on one lane keep their values in registers: the thread that gathers the
// block's row t is the one whose first round of the fill forms slot t, so the row's s', r', u and
// its r', w', s' never go through shared memory, and the loads right after each grid barrier are
// the other blocks' slots (needs a device that launches cooperatively; skipped, never passed,
// where there is no device).
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

// `options` with item 45 off and on, under item 43 off and with the P⁻¹ blocks (and, off, the own
// rows in shared memory): every run on item 27's kernel, running item 45 as asked, all giving the
// same bytes and iterations, and the scene moved
void expectRegistersKeepBits(const CudaOptions& options, const Scene& scene,
                             const SolverSettings& settings, int steps) {
  std::vector<Trajectory> runs;
  for (int level : {0, kFillInverses, kFillInverses | kFillRows}) {
    for (bool registers : {false, true}) {
      SCOPED_TRACE("fill_on_chip " + std::to_string(level) + ", rows_in_registers " +
                   std::to_string(registers));
      CudaOptions o = options;
      o.fill_on_chip = level;
      o.rows_in_registers = registers;
      std::string why_not;
      std::unique_ptr<Backend> gpu = createCudaBackend(o, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      runs.push_back(runSteps(*gpu, scene, settings, steps));
      ASSERT_TRUE(runs.back().ok) << runs.back().error;
      EXPECT_TRUE(stagedRowsRun(*gpu));
      EXPECT_EQ(cudaRowsInRegisters(*gpu), registers);
      // with item 45 the rows bit has nothing to keep in shared memory
      EXPECT_EQ(cudaFillOnChip(*gpu), registers ? level & kFillInverses : level);
    }
  }
  for (size_t k = 1; k < runs.size(); ++k) {
    SCOPED_TRACE("run " + std::to_string(k));
    expectSameBitsAndIterations(runs[0], runs[k]);
  }
  EXPECT_GT(relativeDifference(runs.back().state, scene.state, extentOf(scene.state)), 1e-4);
}

// On one lane: cloth 16 in blocks of 64 (its halos take two rounds of a block's threads: the own
// slots and the other blocks' in one round after the barrier) and in blocks of 32 (the other
// blocks' slots in a second round too), cloth 15 in blocks of 64 in launches of 3 (a last block of
// 33 rows: its threads' other blocks' slots start at 33, so each thread's P⁻¹ blocks must be the
// ones it copied, in launches that start with no barrier before the fill), cloth 32 in blocks of
// 128 and volume 10 in blocks of 256 (12 and 26 entries a row); launches of 3 iterations (each
// launch loads the own rows from global memory again), warm-started, in packed float3, under
// Newton's and BDF2's repeated solves, and capped at 2 iterations a solve
TEST(RowsInRegisters, GiveTheSharedRowsBitsAndIterations) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth16 = makeCloth(16, {}), cloth32 = makeCloth(32, {});
  const Scene cloth15 = makeCloth(15, {}), volume10 = makeVolume(10, {});
  const SolverSettings implicit = settingsFor(Integrator::kImplicit);
  CudaOptions partial = gridOptions(1, 64);
  partial.whole_cg_interval = 3;
  std::vector<SwitchCase> cases = {
      {"cloth16 blocks of 64", &cloth16, gridOptions(1, 64), implicit, 20},
      {"cloth16 blocks of 32", &cloth16, gridOptions(1, 32), implicit, 20},
      {"cloth15 blocks of 64, launches of 3", &cloth15, partial, implicit, 20},
      {"cloth32 blocks of 128", &cloth32, gridOptions(1, 128), implicit, 10},
      {"volume10 blocks of 256", &volume10, gridOptions(1, 256), implicit, 10}};
  appendSolverVariants(&cases, cloth16, gridOptions(1, 64), volume10, gridOptions(1, 256));
  for (const SwitchCase& c : cases) {
    SCOPED_TRACE(c.name);
    expectRegistersKeepBits(c.options, *c.scene, c.settings, c.steps);
  }
}

// Short solves (a cap of 6) on one lane: the first fill of each launch from global memory, the
// next five from registers (small enough for compute-sanitizer's racecheck)
TEST(RowsInRegisters, ShortSolves) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaOptions off = gridOptions(1, 64);
  off.rows_in_registers = false;
  CudaOptions on = off;
  on.rows_in_registers = true;
  expectShortSolvesKeepBits(off, on, makeCloth(16, {}), cudaRowsInRegisters);
}

// The same in a part-full last block (cloth 15 in blocks of 64: 33 rows) and launches of 3, so the
// second launch of each solve fills without a barrier before it: the case of item 43's P⁻¹ blocks
// read only by the thread that copied them (small enough for racecheck)
TEST(RowsInRegisters, ShortSolvesInAPartFullBlock) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaOptions off = gridOptions(1, 64);
  off.whole_cg_interval = 3;
  off.rows_in_registers = false;
  CudaOptions on = off;
  on.rows_in_registers = true;
  expectShortSolvesKeepBits(off, on, makeCloth(15, {}), cudaRowsInRegisters);
}

// The automatic grid's systems on one lane: cloth 256 and volume 64 (65,536 and 65,536
// particles in blocks of 512 rows), the same bits with item 45 off and on
TEST(RowsInRegisters, LargestBlocksGiveTheSameBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.max_iterations = 60;
  for (const Scene& scene : {makeCloth(256, {}), makeVolume(64, {})}) {
    SCOPED_TRACE(scene.name);
    Trajectory runs[2];
    for (bool registers : {false, true}) {
      CudaOptions o;
      o.rows_in_registers = registers;
      HOOKE_CUDA_OR_SKIP(gpu, o);
      runs[registers] = runSteps(*gpu, scene, settings, 3);
      ASSERT_TRUE(runs[registers].ok) << runs[registers].error;
      EXPECT_TRUE(stagedRowsRun(*gpu));
      EXPECT_EQ(cudaRowsInRegisters(*gpu), registers);
    }
    expectSameBitsAndIterations(runs[0], runs[1]);
  }
}

// Only where item 27's rows are on one lane: not on 4 lanes (volume 41) or 16 (cloth 32), not with
// item 27 off; by default at cloth 256 and volume 64. Without the own rows' area in shared memory
// (36 bytes a row) volume 64 has room for item 43's P⁻¹ blocks on an sm_90 device such as the
// H200, 227 KB a block (215,584 bytes for item 27 there, 221,156 with item 45 and the P⁻¹ blocks)
TEST(RowsInRegisters, OnlyOnOneLane) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene volume64 = makeVolume(64, {});
  EXPECT_EQ(askLoaded(CudaOptions{}, makeCloth(256, {}), cudaRowsInRegisters), 1);
  EXPECT_EQ(askLoaded(CudaOptions{}, volume64, cudaRowsInRegisters), 1);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeVolume(41, {}), cudaRowsInRegisters), 0);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeCloth(32, {}), cudaRowsInRegisters), 0);
  CudaOptions off;
  off.rows_in_registers = false;
  EXPECT_EQ(askLoaded(off, makeCloth(256, {}), cudaRowsInRegisters), 0);
  CudaOptions no_rows = gridOptions(1, 64);
  no_rows.stage_rows = false;
  EXPECT_EQ(askLoaded(no_rows, makeCloth(16, {}), cudaRowsInRegisters), 0);
  CudaDeviceInfo info;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &info, &why_not)) << why_not;
  if (info.compute_major == 9) {  // sm_90: 227 KB of shared memory a block
    EXPECT_EQ(askLoaded(CudaOptions{}, volume64, cudaFillOnChip), kFillInverses);
    EXPECT_EQ(askLoaded(off, volume64, cudaFillOnChip), 0);  // as before item 45
  }
}

}  // namespace
}  // namespace hooke
