// Item 44: item 14's kernel forms its scalars after the grid-wide sums on a shorter chain: the stop
// from r'·r' against target², β' and η from 1/γ and 1/α formed an iteration ahead; with item 49
// those reciprocals and α' = (r'·u') / η from reciprocal() (an approximation and one correction,
// no division) and |r| rooted once per launch (needs a device that launches cooperatively;
// skipped, never passed, where there is no device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// The products (and item 49's reciprocals, within about an ulp of the quotients) differ from the
// divisions only in the last bits of a double, before β' and α' are rounded to float, so item 44
// on and off follow each other: the same stop in every
// step (converged or not, within one iteration), the same residual to 1e-6 and states within 1e-6
// of the scene's extent after 20 steps. Each run checked to run item 44 or not and on the kernel
// named: item 27's on 1, 2, 4, 8 and 16 lanes, item 18's without item 27, the unstaged kernel; in
// launches of 3 iterations, in packed float3, warm-started, capped at 2 iterations (the stop at
// the cap) and at tolerance 0 (every solve runs to the cap of 30: target² = 0)
TEST(ScalarsAhead, FollowsTheDividedChain) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth16 = makeCloth(16, {}), cloth32 = makeCloth(32, {});
  const Scene volume10 = makeVolume(10, {}), volume26 = makeVolume(26, {});
  const SolverSettings implicit = settingsFor(Integrator::kImplicit);
  enum Kernel { kUnstaged, kHalos, kRows };  // item 14's kernel: unstaged, item 18's, item 27's
  struct Case {
    std::string name;
    const Scene* scene;
    CudaOptions options;
    SolverSettings settings;
    Kernel kernel;
  };
  std::vector<Case> cases = {{"cloth16 1 lane", &cloth16, gridOptions(1, 64), implicit, kRows},
                             {"cloth16 4 lanes", &cloth16, gridOptions(4, 256), implicit, kRows},
                             {"volume10 2 lanes", &volume10, gridOptions(2, 512), implicit, kRows},
                             {"cloth32 auto", &cloth32, CudaOptions{}, implicit, kRows},
                             {"volume26 auto", &volume26, CudaOptions{}, implicit, kRows}};
  CudaOptions o = gridOptions(2, 512);
  o.stage_rows = false;
  o.stage_halo = 1;
  cases.push_back({"volume10 halos only", &volume10, o, implicit, kHalos});
  o = gridOptions(4, 256);
  o.stage_halo = -1;
  cases.push_back({"cloth16 unstaged", &cloth16, o, implicit, kUnstaged});
  o = gridOptions(4, 256);
  o.whole_cg_interval = 3;
  cases.push_back({"cloth16 launches of 3", &cloth16, o, implicit, kRows});
  o = gridOptions(4, 256);
  o.float4_layout = false;
  cases.push_back({"cloth16 float3", &cloth16, o, implicit, kRows});
  o = gridOptions(4, 256);
  o.warm_start = true;
  cases.push_back({"cloth16 warm", &cloth16, o, implicit, kRows});
  SolverSettings capped = implicit;
  capped.max_iterations = 2;
  cases.push_back({"cloth16 cap 2", &cloth16, gridOptions(4, 256), capped, kRows});
  SolverSettings fixed = implicit;
  fixed.tolerance = 0.0f;
  fixed.max_iterations = 30;
  cases.push_back({"volume10 tolerance 0", &volume10, gridOptions(2, 512), fixed, kRows});
  constexpr int kSteps = 20;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Trajectory runs[2];
    for (bool ahead : {false, true}) {
      CudaOptions options = c.options;
      options.scalars_ahead = ahead;
      std::string why_not;
      std::unique_ptr<Backend> gpu = createCudaBackend(options, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      runs[ahead] = runSteps(*gpu, *c.scene, c.settings, kSteps);
      ASSERT_TRUE(runs[ahead].ok) << runs[ahead].error;
      EXPECT_TRUE(cudaSingleReduction(*gpu));
      EXPECT_EQ(cudaScalarsAhead(*gpu), ahead);
      bool rows = false;
      const bool staged = cudaStagedHalo(*gpu, nullptr, &rows);
      EXPECT_EQ(staged ? (rows ? kRows : kHalos) : kUnstaged, c.kernel);
    }
    ASSERT_EQ(runs[0].stats.size(), size_t(kSteps));
    ASSERT_EQ(runs[1].stats.size(), size_t(kSteps));
    int differing = 0;
    for (size_t k = 0; k < size_t(kSteps); ++k) {
      const StepStats &a = runs[0].stats[k], &b = runs[1].stats[k];
      EXPECT_EQ(a.cg_converged, b.cg_converged) << "step " << k;
      EXPECT_LE(std::abs(a.cg_iterations - b.cg_iterations), 1) << "step " << k;
      EXPECT_NEAR(a.cg_residual, b.cg_residual, 1e-6 * std::max(1.0f, a.cg_residual))
          << "step " << k;
      if (c.settings.tolerance == 0.0f && k > 0) EXPECT_EQ(b.cg_iterations, 30) << "step " << k;
      differing += a.cg_iterations != b.cg_iterations;
    }
    const double extent = extentOf(c.scene->state);
    const double apart = relativeDifference(runs[1].state, runs[0].state, extent);
    EXPECT_LE(apart, 1e-6);
    EXPECT_GT(relativeDifference(runs[1].state, c.scene->state, extent), 1e-4);
    std::printf("[ ahead    ] %-22s %d CG iterations, %d steps with others, states %.2e apart\n",
                c.name.c_str(), totalIterations(runs[1]), differing, apart);
  }
}

// A negative tolerance: no |r| reaches its target, on the CPU or with the square root's
// comparison; item 44's r'·r' <= target² would, so the solve takes the comparison there. No solve
// is reported as converged and every one past the first runs to the cap of 12, item 44 on and off
TEST(ScalarsAhead, NegativeToleranceNeverConverges) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.tolerance = -1e-4f;
  settings.max_iterations = 12;
  const Scene cloth = makeCloth(16, {});
  for (bool ahead : {false, true}) {
    SCOPED_TRACE(ahead ? "item 44 on" : "item 44 off");
    CudaOptions o = gridOptions(4, 256);
    o.scalars_ahead = ahead;
    HOOKE_CUDA_OR_SKIP(gpu, o);
    const Trajectory run = runSteps(*gpu, cloth, settings, 4);
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(cudaScalarsAhead(*gpu), ahead);
    ASSERT_EQ(run.stats.size(), 4u);
    for (size_t k = 0; k < 4; ++k) {
      // (from rest the first solve may end at a breakdown once r is at float's noise)
      if (k > 0) EXPECT_EQ(run.stats[k].cg_iterations, 12) << "step " << k;
      EXPECT_FALSE(run.stats[k].cg_converged) << "step " << k;
    }
  }
}

}  // namespace
}  // namespace hooke
