// Items 41 and 42: item 26's joined update and direction forms β once, in the block that arrives
// last, and α once, in block 0, each released to the other blocks in one word, instead of every
// block summing every block's partials (needs a device that launches cooperatively; skipped,
// never passed, where there is no device).
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
  Trajectory every_block, once;
};

// The switch `item` (CudaOptions::beta_once or alpha_once) off, then on; `in_use` says whether
// the loaded backend runs it
Runs runBothWays(bool CudaOptions::*item, bool (*in_use)(const Backend&),
                 const CudaOptions& options, const Scene& scene, const SolverSettings& settings,
                 int steps) {
  Runs out;
  for (bool on : {false, true}) {
    CudaOptions o = options;
    o.*item = on;
    std::string why_not;
    auto gpu = createCudaBackend(o, &why_not);
    EXPECT_TRUE(gpu) << why_not;
    if (!gpu) return out;
    Trajectory run = runSteps(*gpu, scene, settings, steps);
    EXPECT_EQ(in_use(*gpu), on);
    EXPECT_GE(cudaDirectionInUpdate(*gpu), 1) << "no joined kernel";
    (on ? out.once : out.every_block) = run;
  }
  return out;
}

Runs betaBothWays(const CudaOptions& options, const Scene& scene, const SolverSettings& settings,
                  int steps) {
  return runBothWays(&CudaOptions::beta_once, cudaBetaOnce, options, scene, settings, steps);
}

Runs alphaBothWays(const CudaOptions& options, const Scene& scene, const SolverSettings& settings,
                   int steps) {
  return runBothWays(&CudaOptions::alpha_once, cudaAlphaOnce, options, scene, settings, steps);
}

// The launched cases, item 38 off, items 33 and cooperative groups' barriers, and the pairs
std::vector<LaunchedCase> joinedCases() {
  std::vector<LaunchedCase> cases = launchedCases();
  CudaOptions o = launched();
  o.alpha_in_update = false;
  cases.push_back({"alpha by the last block", o, settingsFor(Integrator::kImplicit)});
  o = launched();
  o.beta_once = false;
  cases.push_back({"item 33's barrier", o, settingsFor(Integrator::kImplicit)});
  o.last_arrival = false;
  cases.push_back({"cooperative groups' barrier", o, settingsFor(Integrator::kImplicit)});
  o = launched();
  o.stencil_rows = false;
  o.gather_batch = 3;
  cases.push_back({"pairs", o, settingsFor(Integrator::kImplicit)});
  return cases;
}

// β formed once is every block's β, bit for bit: the same bytes and CG iterations with graphs of
// 1, 3 and 8 and without, on the stencil rows in tiles, warm-started, in packed float3, under
// Newton's and BDF2's repeated solves, when CG stops at a cap of 7 inside a graph of 8 (the stop
// travels in the released word), with α formed by q = A p's last block (item 38 off), with item
// 42 off, and on the pairs; and α formed once likewise, with item 41 off and with item 33's and
// cooperative groups' barriers
TEST(ReleasedScalars, GiveEveryBlocksBitsAndIterations) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  const std::vector<LaunchedCase> cases = joinedCases();
  for (const Scene* scene : {&cloth, &volume}) {
    for (const LaunchedCase& c : cases) {
      SCOPED_TRACE(scene->name + ", " + c.name);
      CudaOptions plain = c.options;
      plain.dependent_launch_max_particles = 0;
      const bool alpha = plain.alpha_in_update;
      if (plain.beta_once) {  // item 41 each way, item 42 on and off
        for (bool alpha_once : {true, false}) {
          plain.alpha_once = alpha_once;
          const Runs runs = betaBothWays(plain, *scene, c.settings, 20);
          expectSameBitsAndIterations(runs.every_block, runs.once);
          EXPECT_GT(relativeDifference(runs.once.state, scene->state, extentOf(scene->state)),
                    1e-4);
        }
        plain.alpha_once = true;
      }
      if (alpha) {  // item 42 each way (where item 38 runs)
        const Runs runs = alphaBothWays(plain, *scene, c.settings, 20);
        expectSameBitsAndIterations(runs.every_block, runs.once);
      }
    }
  }
}

// Solves capped at 2 iterations, one after another, inside graphs of 8 launches: each launch's
// scalars travel in the released words, which must tell this launch's word from every earlier
// one although every solve runs the same iterations (item 41: a count of releases; item 42: the
// iteration, its word zeroed at each solve's start); the launches after the cap return at once
// and leave the words alone
TEST(ReleasedScalars, ShortSolvesInARow) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.max_iterations = 2;
  const Scene cloth = makeCloth(24, {});
  for (const Runs& runs : {betaBothWays(launched(), cloth, settings, 30),
                           alphaBothWays(launched(), cloth, settings, 30)}) {
    expectSameBitsAndIterations(runs.every_block, runs.once);
    ASSERT_EQ(runs.once.stats.size(), 30u);
    for (const StepStats& s : runs.once.stats)
      EXPECT_LE(s.cg_iterations, 2);
  }
}

// Several particles per thread, and a grid of many blocks (cloth 600: 360,000 particles)
TEST(ReleasedScalars, HoldSeveralParticlesPerThread) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.max_iterations = 40;
  const Scene cloth = makeCloth(600, {});
  EXPECT_GT(askLoaded(launched(), cloth, cudaDirectionInUpdate), 1);
  for (const Runs& runs : {betaBothWays(launched(), cloth, settings, 3),
                           alphaBothWays(launched(), cloth, settings, 3)}) {
    expectSameBitsAndIterations(runs.every_block, runs.once);
  }
}

// Only where the joined kernel runs (item 42: where it forms α, item 38): not with unfused
// finishing or on the grid path; on by default where the launched path runs
TEST(ReleasedScalars, OnlyWithTheJoinedKernel) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {});
  for (auto in_use : {cudaBetaOnce, cudaAlphaOnce}) {
    EXPECT_EQ(askLoaded(launched(), cloth, in_use), 1);
    CudaOptions unfused = launched();
    unfused.fused_finish = false;
    EXPECT_EQ(askLoaded(unfused, cloth, in_use), 0);
    CudaOptions grid;
    grid.cg_path = CgPath::kGrid;
    EXPECT_EQ(askLoaded(grid, cloth, in_use), 0);
    EXPECT_EQ(askLoaded(CudaOptions{}, makeCloth(512, {}), in_use), 1);
  }
  CudaOptions off = launched();
  off.beta_once = false;
  EXPECT_EQ(askLoaded(off, cloth, cudaBetaOnce), 0);
  off = launched();
  off.alpha_once = false;
  EXPECT_EQ(askLoaded(off, cloth, cudaAlphaOnce), 0);
  off = launched();
  off.alpha_in_update = false;  // item 38 off: no α in the joined kernel
  EXPECT_EQ(askLoaded(off, cloth, cudaAlphaOnce), 0);
  EXPECT_EQ(askLoaded(off, cloth, cudaBetaOnce), 1);
}

}  // namespace
}  // namespace hooke
