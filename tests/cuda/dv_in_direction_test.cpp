// Item 25: the launched path's Δv += α p in the direction kernel instead of the update kernel
// (needs a device; skipped, never passed, where there is none).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// Moving Δv += α p changes which kernel adds it, not what is added: the same bytes and the same
// CG iterations in every step with it and without, fused (3 launches) and unfused (5), with
// graphs of 1, 3 and 8 iterations and without graphs, on the stencil rows in tiles, warm-started,
// in packed float3, under Newton's and BDF2's repeated solves, and when CG stops at a cap of 7
// iterations in the middle of a graph of 8 (the direction kernel of the iteration that ends CG
// must still add its Δv: without it the bytes would differ)
TEST(DvInDirection, GivesTheUpdateKernelsBitsAndIterations) {
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
      Trajectory runs[2];
      for (bool moved : {false, true}) {
        CudaOptions o = c.options;
        o.dv_in_direction = moved;
        std::string why_not;
        auto gpu = createCudaBackend(o, &why_not);
        ASSERT_TRUE(gpu) << why_not;
        runs[moved] = runSteps(*gpu, *scene, c.settings, 20);
        ASSERT_TRUE(runs[moved].ok) << runs[moved].error;
      }
      EXPECT_TRUE(sameBytes(runs[0].state, runs[1].state));
      ASSERT_EQ(runs[0].stats.size(), runs[1].stats.size());
      for (size_t k = 0; k < runs[0].stats.size(); ++k)
        ASSERT_EQ(runs[0].stats[k].cg_iterations, runs[1].stats[k].cg_iterations) << "step " << k;
      // the case moved something: the scene fell
      EXPECT_GT(relativeDifference(runs[1].state, scene->state, extentOf(scene->state)), 1e-4);
      // the cap did end CG in some steps (not the first: from rest the cloth converges in 2)
      if (c.settings.max_iterations == 7) {
        int capped = 0;
        for (const StepStats& s : runs[1].stats)
          capped += s.cg_iterations == 7 && !s.cg_converged;
        EXPECT_GT(capped, 0);
      }
    }
  }
}

}  // namespace
}  // namespace hooke
