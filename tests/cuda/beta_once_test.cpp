// Item 41: item 26's joined update and direction forms β once, in the block that arrives last,
// and releases the other blocks with one word, instead of a grid barrier after which every block
// sums every block's partials (needs a device that launches cooperatively; skipped, never
// passed, where there is no device).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// item 41 off (every block forms β after a barrier), then on; the joined kernel both times
SwitchRuns runBothWays(const CudaOptions& options, const Scene& scene,
                       const SolverSettings& settings, int steps) {
  return runSwitchBothWays(&CudaOptions::beta_once, cudaBetaOnce, joinedKernelRuns, options, scene,
                           settings, steps);
}

// β formed once is every block's β, bit for bit: the same bytes and CG iterations with graphs of
// 1, 3 and 8 and without, on the stencil rows in tiles, warm-started, in packed float3, under
// Newton's and BDF2's repeated solves, when CG stops at a cap of 7 inside a graph of 8 (the stop
// travels in the released word), with cooperative groups' barrier (item 33 off, which item 41
// replaces) and on the pairs
TEST(BetaOnce, GivesEveryBlocksBitsAndIterations) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  std::vector<LaunchedCase> cases = launchedCases();
  CudaOptions o = launchedInPlainOrder();
  o.last_arrival = false;
  cases.push_back({"cooperative groups' barrier", o, settingsFor(Integrator::kImplicit)});
  o = launchedInPlainOrder();
  o.stencil_rows = false;
  o.gather_batch = 3;
  cases.push_back({"pairs", o, settingsFor(Integrator::kImplicit)});
  expectSwitchKeepsBits(&CudaOptions::beta_once, cudaBetaOnce, joinedKernelRuns, cases,
                        {&cloth, &volume}, 20);
}

// Solves capped at 2 iterations, one after another, inside graphs of 8 launches: each launch's β
// or stop travels in the released word, which must differ from the word before it in every
// launch, although every solve runs the same iterations; the launches after the cap return at
// once and leave the word alone
TEST(BetaOnce, ShortSolvesInARow) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.max_iterations = 2;
  const Scene cloth = makeCloth(24, {});
  const SwitchRuns runs = runBothWays(launchedInPlainOrder(), cloth, settings, 30);
  expectSameBitsAndIterations(runs.off, runs.on);
  ASSERT_EQ(runs.on.stats.size(), 30u);
  for (const StepStats& s : runs.on.stats)
    EXPECT_LE(s.cg_iterations, 2);
}

// Several particles per thread, and a grid of many blocks (cloth 600: 360,000 particles)
TEST(BetaOnce, HoldsSeveralParticlesPerThread) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.max_iterations = 40;
  const Scene cloth = makeCloth(600, {});
  EXPECT_GT(askLoaded(launchedInPlainOrder(), cloth, cudaDirectionInUpdate), 1);
  const SwitchRuns runs = runBothWays(launchedInPlainOrder(), cloth, settings, 3);
  expectSameBitsAndIterations(runs.off, runs.on);
}

// Only where the joined kernel runs and forms α (item 38): not with unfused finishing, with item
// 38 off or on the grid path; on by default where the launched path runs
TEST(BetaOnce, OnlyWithTheJoinedKernel) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {});
  EXPECT_EQ(askLoaded(launchedInPlainOrder(), cloth, cudaBetaOnce), 1);
  CudaOptions unfused = launchedInPlainOrder();
  unfused.fused_finish = false;
  EXPECT_EQ(askLoaded(unfused, cloth, cudaBetaOnce), 0);
  CudaOptions grid;
  grid.cg_path = CgPath::kGrid;
  EXPECT_EQ(askLoaded(grid, cloth, cudaBetaOnce), 0);
  CudaOptions off = launchedInPlainOrder();
  off.beta_once = false;
  EXPECT_EQ(askLoaded(off, cloth, cudaBetaOnce), 0);
  CudaOptions no_alpha = launchedInPlainOrder();
  no_alpha.alpha_in_update = false;
  EXPECT_EQ(askLoaded(no_alpha, cloth, cudaBetaOnce), 0);
  EXPECT_GE(askLoaded(no_alpha, cloth, cudaDirectionInUpdate), 1);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeCloth(512, {}), cudaBetaOnce), 1);
}

}  // namespace
}  // namespace hooke
