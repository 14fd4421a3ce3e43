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

// The launched path in the plain launch order: at these tests' small sizes item 21's dependent
// launches would otherwise keep the update and direction kernels apart
CudaOptions launched() {
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  o.dependent_launch_max_particles = 0;
  return o;
}

struct Runs {
  Trajectory by_last_block, by_every_block;
};

Runs runBothWays(const CudaOptions& options, const Scene& scene, const SolverSettings& settings,
                 int steps) {
  Runs out;
  for (bool on : {false, true}) {
    CudaOptions o = options;
    o.alpha_in_update = on;
    std::string why_not;
    auto gpu = createCudaBackend(o, &why_not);
    EXPECT_TRUE(gpu) << why_not;
    if (!gpu) return out;
    Trajectory run = runSteps(*gpu, scene, settings, steps);
    EXPECT_EQ(cudaAlphaInUpdate(*gpu), on);
    EXPECT_GE(cudaDirectionInUpdate(*gpu), 1) << "no joined kernel";
    (on ? out.by_every_block : out.by_last_block) = run;
  }
  return out;
}

void expectSameBitsAndIterations(const Runs& runs) {
  cuda_test::expectSameBitsAndIterations(runs.by_last_block, runs.by_every_block);
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
  CudaOptions o = launched();
  o.last_arrival = false;
  o.beta_once = false;  // item 41 would replace the barrier
  cases.push_back({"cooperative groups' barrier", o, settingsFor(Integrator::kImplicit)});
  o.last_arrival = true;
  cases.push_back({"item 33's barrier", o, settingsFor(Integrator::kImplicit)});
  o = launched();
  o.stencil_rows = false;
  o.gather_batch = 3;
  cases.push_back({"pairs", o, settingsFor(Integrator::kImplicit)});
  for (const Scene* scene : {&cloth, &volume}) {
    for (const LaunchedCase& c : cases) {
      SCOPED_TRACE(scene->name + ", " + c.name);
      CudaOptions plain = c.options;
      plain.dependent_launch_max_particles = 0;
      const Runs runs = runBothWays(plain, *scene, c.settings, 20);
      expectSameBitsAndIterations(runs);
      EXPECT_GT(relativeDifference(runs.by_every_block.state, scene->state, extentOf(scene->state)),
                1e-4);
    }
  }
}

// Several particles per thread (the joined kernel's later rounds load after α is formed)
TEST(AlphaInUpdate, HoldsSeveralParticlesPerThread) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.max_iterations = 40;
  const Scene cloth = makeCloth(600, {});
  EXPECT_GT(askLoaded(launched(), cloth, cudaDirectionInUpdate), 1);
  expectSameBitsAndIterations(runBothWays(launched(), cloth, settings, 3));
}

// Only with the joined kernel: not with unfused finishing, item 21's dependent launches or the
// grid path; on by default where the launched path runs
TEST(AlphaInUpdate, OnlyWithTheJoinedKernel) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {});
  EXPECT_EQ(askLoaded(launched(), cloth, cudaAlphaInUpdate), 1);
  CudaOptions unfused = launched();
  unfused.fused_finish = false;
  EXPECT_EQ(askLoaded(unfused, cloth, cudaAlphaInUpdate), 0);
  CudaOptions dependent = launched();
  dependent.dependent_launch_max_particles = CudaOptions{}.dependent_launch_max_particles;
  EXPECT_EQ(askLoaded(dependent, cloth, cudaAlphaInUpdate), 0);
  CudaOptions grid;
  grid.cg_path = CgPath::kGrid;
  EXPECT_EQ(askLoaded(grid, cloth, cudaAlphaInUpdate), 0);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeCloth(512, {}), cudaAlphaInUpdate), 1);
}

}  // namespace
}  // namespace hooke
