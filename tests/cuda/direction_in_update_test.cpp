// Item 26: the launched path's update and direction kernels as one cooperative launch with a grid
// barrier between them (needs a device that launches cooperatively; skipped, never passed, where
// there is no device).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

struct Runs {
  Trajectory two_kernels, joined;
  int held = 0;  // cudaDirectionInUpdate of the joined run
};

Runs runBothWays(const CudaOptions& options, const Scene& scene, const SolverSettings& settings,
                 int steps) {
  Runs out;
  for (bool joined : {false, true}) {
    CudaOptions o = options;
    o.direction_in_update = joined;
    std::string why_not;
    auto gpu = createCudaBackend(o, &why_not);
    EXPECT_TRUE(gpu) << why_not;
    if (!gpu) return out;
    Trajectory run = runSteps(*gpu, scene, settings, steps);
    const int held = cudaDirectionInUpdate(*gpu);
    if (joined) {
      out.joined = run;
      out.held = held;
    } else {
      EXPECT_EQ(held, 0) << "switched off, yet joined";
      out.two_kernels = run;
    }
  }
  return out;
}

void expectSameBitsAndIterations(const Runs& runs) {
  cuda_test::expectSameBitsAndIterations(runs.two_kernels, runs.joined);
}

// The launched path in the plain launch order: at these tests' small sizes item 21's dependent
// launches would otherwise keep the two kernels
CudaOptions launched() {
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  o.dependent_launch_max_particles = 0;
  return o;
}

// One cooperative launch forms what the update's last block and the direction kernel formed: the
// same bytes and CG iterations in every step, with graphs of 1, 3 and 8 iterations and without
// graphs, with item 25 off (Δv in the update) and on, on the stencil rows in tiles,
// warm-started, in packed float3, under Newton's and BDF2's repeated solves, and when CG stops at
// a cap of 7 in the middle of a graph of 8 (the iteration that ends CG adds its Δv and writes no
// p). Unfused finishing, item 21's dependent launches and the grid path keep the kernels.
TEST(DirectionInUpdate, GivesTheTwoKernelsBitsAndIterations) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  std::vector<LaunchedCase> cases = launchedCases();
  CudaOptions o = launched();
  o.dv_in_direction = false;
  cases.push_back({"dv in update", o, settingsFor(Integrator::kImplicit)});
  for (const Scene* scene : {&cloth, &volume}) {
    for (const LaunchedCase& c : cases) {
      SCOPED_TRACE(scene->name + ", " + c.name);
      CudaOptions plain = c.options;
      plain.dependent_launch_max_particles = 0;
      const Runs runs = runBothWays(plain, *scene, c.settings, 20);
      EXPECT_EQ(runs.held, 1) << "not joined (or not one particle per thread) at this size";
      expectSameBitsAndIterations(runs);
      // the case moved something: the scene fell
      EXPECT_GT(relativeDifference(runs.joined.state, scene->state, extentOf(scene->state)), 1e-4);
      if (c.settings.max_iterations == 7) {
        int capped = 0;
        for (const StepStats& s : runs.joined.stats)
          capped += s.cg_iterations == 7 && !s.cg_converged;
        EXPECT_GT(capped, 0);
      }
    }
  }
  // unfused finishing (five launches), dependent launches and the grid path have no joined kernel
  CudaOptions unfused = launched();
  unfused.fused_finish = false;
  EXPECT_EQ(askLoaded(unfused, cloth, cudaDirectionInUpdate), 0);
  CudaOptions dependent = launched();
  dependent.dependent_launch_max_particles = CudaOptions{}.dependent_launch_max_particles;
  EXPECT_EQ(askLoaded(dependent, cloth, cudaDirectionInUpdate), 0);
  CudaOptions grid;
  grid.cg_path = CgPath::kGrid;
  EXPECT_EQ(askLoaded(grid, cloth, cudaDirectionInUpdate), 0);
}

// A few steps of each scene (graphs of 8, a cap of 7 iterations: the cap ends CG inside a graph
// from the second step on) with both kernels' bits: short enough for compute-sanitizer's
// racecheck and memcheck, which the test above outlasts
TEST(DirectionInUpdate, FewCappedStepsGiveTheTwoKernelsBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings capped = settingsFor(Integrator::kImplicit);
  capped.max_iterations = 7;
  for (const Scene& scene : {makeCloth(16, {}), makeVolume(10, {})}) {
    SCOPED_TRACE(scene.name);
    const Runs runs = runBothWays(launched(), scene, capped, 4);
    EXPECT_EQ(runs.held, 1);
    expectSameBitsAndIterations(runs);
    int ended_by_cap = 0;
    for (const StepStats& s : runs.joined.stats)
      ended_by_cap += s.cg_iterations == 7 && !s.cg_converged;
    EXPECT_GT(ended_by_cap, 0);
  }
}

// Beyond one particle per thread of the update's grid each thread keeps the z and p of several
// (the grid-stride rounds) in shared memory: cloth 600 (360k particles) and volume 162 (1.06M)
// give the two kernels' bits and iterations over a few capped steps; a system whose threads would
// hold more than shared memory keeps resident (3M particles) runs the two kernels.
TEST(DirectionInUpdate, HoldsSeveralParticlesPerThreadOnLargeSystems) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.max_iterations = 40;
  int last_held = 0;
  for (const Scene& scene : {makeCloth(600, {}), makeVolume(162, {})}) {
    SCOPED_TRACE(scene.name + " " + std::to_string(scene.model.particleCount()) + " particles");
    const Runs runs = runBothWays(launched(), scene, settings, 3);
    EXPECT_GT(runs.held, 1);
    EXPECT_GT(runs.held, last_held);  // the larger system, the more particles per thread
    last_held = runs.held;
    expectSameBitsAndIterations(runs);
    EXPECT_GT(relativeDifference(runs.joined.state, scene.state, extentOf(scene.state)), 1e-6);
  }
  const Scene huge = makeCloth(1740, {});
  EXPECT_EQ(askLoaded(launched(), huge, cudaDirectionInUpdate), 0)
      << huge.model.particleCount() << " particles' z and p held past shared memory";
}

}  // namespace
}  // namespace hooke
