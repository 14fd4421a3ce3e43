// Item 38: with item 26's joined update and direction, every block of the joined kernel forms α
// from q = A p's block partials, and q = A p runs without a last block (needs a device that
// launches cooperatively; skipped, never passed, where there is no device).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// item 38 off (α by q = A p's last block), then on; the joined kernel both times
SwitchRuns runBothWays(const CudaOptions& options, const Scene& scene,
                       const SolverSettings& settings, int steps) {
  return runSwitchBothWays(&CudaOptions::alpha_in_update, cudaAlphaInUpdate, joinedKernelRuns,
                           options, scene, settings, steps);
}

void expectSameBitsAndIterations(const SwitchRuns& runs) {
  cuda_test::expectSameBitsAndIterations(runs.off, runs.on);
}

// α formed by every block is q = A p's last block's α, bit for bit: the same bytes and CG
// iterations with graphs of 1, 3 and 8 and without, on the stencil rows in tiles, warm-started,
// in packed float3, under Newton's and BDF2's repeated solves, when CG stops at a cap of 7 inside
// a graph of 8, with item 33's and cooperative groups' barriers instead of item 41's release, and
// on the pairs (no stencil rows)
TEST(AlphaInUpdate, GivesTheLastBlocksBitsAndIterations) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  std::vector<LaunchedCase> cases = launchedCases();
  CudaOptions o = launchedInPlainOrder();
  o.last_arrival = false;
  o.beta_once = false;  // item 41 would replace the barrier
  cases.push_back({"cooperative groups' barrier", o, settingsFor(Integrator::kImplicit)});
  o.last_arrival = true;
  cases.push_back({"item 33's barrier", o, settingsFor(Integrator::kImplicit)});
  o = launchedInPlainOrder();
  o.stencil_rows = false;
  o.gather_batch = 3;
  cases.push_back({"pairs", o, settingsFor(Integrator::kImplicit)});
  expectSwitchKeepsBits(&CudaOptions::alpha_in_update, cudaAlphaInUpdate, joinedKernelRuns, cases,
                        {&cloth, &volume}, 20);
}

// Several particles per thread (the joined kernel's later rounds load after α is formed)
TEST(AlphaInUpdate, HoldsSeveralParticlesPerThread) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.max_iterations = 40;
  const Scene cloth = makeCloth(600, {});
  EXPECT_GT(askLoaded(launchedInPlainOrder(), cloth, cudaDirectionInUpdate), 1);
  expectSameBitsAndIterations(runBothWays(launchedInPlainOrder(), cloth, settings, 3));
}

// Only with the joined kernel: not with unfused finishing, item 21's dependent launches or the
// grid path; on by default where the launched path runs
TEST(AlphaInUpdate, OnlyWithTheJoinedKernel) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {});
  EXPECT_EQ(askLoaded(launchedInPlainOrder(), cloth, cudaAlphaInUpdate), 1);
  CudaOptions unfused = launchedInPlainOrder();
  unfused.fused_finish = false;
  EXPECT_EQ(askLoaded(unfused, cloth, cudaAlphaInUpdate), 0);
  CudaOptions dependent = launchedInPlainOrder();
  dependent.dependent_launch_max_particles = CudaOptions{}.dependent_launch_max_particles;
  EXPECT_EQ(askLoaded(dependent, cloth, cudaAlphaInUpdate), 0);
  CudaOptions grid;
  grid.cg_path = CgPath::kGrid;
  EXPECT_EQ(askLoaded(grid, cloth, cudaAlphaInUpdate), 0);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeCloth(512, {}), cudaAlphaInUpdate), 1);
}

}  // namespace
}  // namespace hooke
