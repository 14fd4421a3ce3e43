// Item 44: item 14's kernel forms its scalars after the grid-wide sums on a shorter chain: the stop
// from r'·r' against target², β' and η from 1/γ and 1/α formed an iteration ahead (needs a device
// that launches cooperatively; skipped, never passed, where there is no device).
#include <gtest/gtest.h>

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

CudaOptions grid(int lanes, int block) {
  CudaOptions o;
  o.cg_path = CgPath::kGrid;
  o.gather_lanes = lanes;
  o.grid_block = block;
  return o;
}

// The products round differently from the divisions only in the last bit of a double, before β'
// and α' are rounded to float, so item 44 on and off follow each other: the same stop in every
// step (converged or not, within one iteration) and states within 1e-6 of the scene's extent
// after 20 steps. On item 27's kernel on 1, 2, 4, 8 and 16 lanes, item 18's without item 27, the
// unstaged kernel, in launches of 3 iterations, in packed float3, warm-started and capped at 2
// iterations (the stop at the cap, not the tolerance)
TEST(ScalarsAhead, FollowsTheDividedChain) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth16 = makeCloth(16, {}), cloth32 = makeCloth(32, {});
  const Scene volume10 = makeVolume(10, {}), volume26 = makeVolume(26, {});
  const SolverSettings implicit = settingsFor(Integrator::kImplicit);
  struct Case {
    std::string name;
    const Scene* scene;
    CudaOptions options;
    SolverSettings settings;
  };
  std::vector<Case> cases = {{"cloth16 1 lane", &cloth16, grid(1, 64), implicit},
                             {"cloth16 4 lanes", &cloth16, grid(4, 256), implicit},
                             {"volume10 2 lanes", &volume10, grid(2, 512), implicit},
                             {"cloth32 auto", &cloth32, CudaOptions{}, implicit},
                             {"volume26 auto", &volume26, CudaOptions{}, implicit}};
  CudaOptions o = grid(2, 512);
  o.stage_rows = false;
  cases.push_back({"volume10 halos only", &volume10, o, implicit});
  o = grid(4, 256);
  o.stage_halo = -1;
  cases.push_back({"cloth16 unstaged", &cloth16, o, implicit});
  o = grid(4, 256);
  o.whole_cg_interval = 3;
  cases.push_back({"cloth16 launches of 3", &cloth16, o, implicit});
  o = grid(4, 256);
  o.float4_layout = false;
  cases.push_back({"cloth16 float3", &cloth16, o, implicit});
  o = grid(4, 256);
  o.warm_start = true;
  cases.push_back({"cloth16 warm", &cloth16, o, implicit});
  SolverSettings capped = implicit;
  capped.max_iterations = 2;
  cases.push_back({"cloth16 cap 2", &cloth16, grid(4, 256), capped});
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
    }
    ASSERT_EQ(runs[0].stats.size(), size_t(kSteps));
    ASSERT_EQ(runs[1].stats.size(), size_t(kSteps));
    int differing = 0;
    for (size_t k = 0; k < size_t(kSteps); ++k) {
      const StepStats &a = runs[0].stats[k], &b = runs[1].stats[k];
      EXPECT_EQ(a.cg_converged, b.cg_converged) << "step " << k;
      EXPECT_LE(std::abs(a.cg_iterations - b.cg_iterations), 1) << "step " << k;
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

}  // namespace
}  // namespace hooke
