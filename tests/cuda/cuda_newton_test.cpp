// GPU tests of newton and bdf2 (the Newton-solved integrators) beyond the parity suite in
// cuda_backend_test.cpp: every CG path, determinism, BDF2's history when h changes, and a large
// stiff step. Every test that needs a device skips (never passes) with the factory's reason where
// there is none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "sim/cpu_backend.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

constexpr Integrator kNewtonIntegrators[] = {Integrator::kNewton, Integrator::kBdf2};

std::string nameOf(Integrator integrator) {
  return std::string(integratorName(integrator));
}

// A drag on the free corner of a cloth: exercises the external term of the forces and of Φ.
std::vector<glm::vec3> cornerDrag(const Scene& scene) {
  std::vector<glm::vec3> external(scene.model.particleCount(), glm::vec3(0.0f));
  external.back() = glm::vec3(0.0f, 0.5f, 0.2f);
  return external;
}

// ---- every CG path and layout runs the Newton iterations ----

TEST(CudaNewtonPaths, EveryCgPathAndLayoutMatchesCpu) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene scene = makeCloth(16, convergingMaterial());
  const double extent = extentOf(scene.state);
  struct Variant {
    const char* name;
    CudaOptions options;
  };
  std::vector<Variant> variants;
  for (CgPath path : {CgPath::kOneBlock, CgPath::kGrid, CgPath::kLaunches}) {
    for (bool float4 : {true, false}) {
      CudaOptions o;
      o.cg_path = path;
      o.float4_layout = float4;
      o.timing = float4;  // the untimed sequence too
      variants.push_back({float4 ? "float4" : "float3", o});
    }
  }
  CudaOptions l2;
  l2.cg_path = CgPath::kLaunches;
  l2.l2_persist = true;
  l2.cg_graph = false;
  l2.fused_finish = false;
  variants.push_back({"unfused-L2", l2});
  for (Integrator integrator : kNewtonIntegrators) {
    CpuBackend cpu;
    Trajectory expected = runSteps(cpu, scene, settingsFor(integrator), kSteps);
    ASSERT_TRUE(expected.ok && allFinite(expected.state)) << expected.error;
    for (const Variant& variant : variants) {
      SCOPED_TRACE(nameOf(integrator) + " " + cgPathName(variant.options.cg_path) + " " +
                   variant.name);
      std::string why_not;
      auto gpu = createCudaBackend(variant.options, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      Trajectory actual = runSteps(*gpu, scene, settingsFor(integrator), kSteps);
      ASSERT_TRUE(actual.ok) << actual.error;
      CgPath resolved = CgPath::kAuto;
      ASSERT_TRUE(cudaCgPath(*gpu, &resolved));
      EXPECT_EQ(resolved, variant.options.cg_path);
      const double difference = relativeDifference(actual.state, expected.state, extent);
      std::printf("[ newton   ] %-6s %-9s %-10s max|dx|/extent = %.3g\n",
                  nameOf(integrator).c_str(), cgPathName(resolved), variant.name, difference);
      EXPECT_LE(difference, kTolerance);
      if (variant.options.timing) {
        for (const StepStats& s : actual.stats) {
          EXPECT_GT(s.force_ms, 0.0);
          EXPECT_GT(s.solve_ms, 0.0);
          EXPECT_GT(s.commit_ms, 0.0);  // the line search and the residual
        }
      }
    }
  }
}

// A tiny cloth for a few steps on every CG path, newton and bdf2, a drag on one corner: small
// enough for compute-sanitizer's racecheck and memcheck to finish within a device call
// (scripts/device-checks.sh sanitize), and still compared with the CPU.
TEST(CudaNewtonSmall, FewStepsOfATinyClothOnEveryPathMatchCpu) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene scene = makeCloth(4, convergingMaterial());
  const std::vector<glm::vec3> external = cornerDrag(scene);
  constexpr int kFewSteps = 4;
  for (Integrator integrator : kNewtonIntegrators) {
    CpuBackend cpu;
    Trajectory expected = runSteps(cpu, scene, settingsFor(integrator), kFewSteps, external);
    ASSERT_TRUE(expected.ok && allFinite(expected.state)) << expected.error;
    for (CgPath path : {CgPath::kOneBlock, CgPath::kGrid, CgPath::kLaunches}) {
      SCOPED_TRACE(nameOf(integrator) + " " + cgPathName(path));
      CudaOptions options;
      options.cg_path = path;
      std::string why_not;
      auto gpu = createCudaBackend(options, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      Trajectory actual = runSteps(*gpu, scene, settingsFor(integrator), kFewSteps, external);
      ASSERT_TRUE(actual.ok) << actual.error;
      ASSERT_GT(actual.stats.back().newton_iterations, 0);
      EXPECT_LE(relativeDifference(actual.state, expected.state, extentOf(scene.state)),
                kTolerance);
    }
  }
}

// ---- determinism ----

TEST(CudaNewtonDeterminism, TwoRunsGiveIdenticalBytes) {
  HOOKE_CUDA_OR_SKIP(first, CudaOptions{});
  HOOKE_CUDA_OR_SKIP(second, CudaOptions{});
  // the default cloth: Newton often hits its cap and the line search halves, so every branch the
  // host takes on a read-back scalar must come out the same; volume 24 has several blocks per
  // reduction
  const Scene scenes[] = {makeCloth(16, {}), makeVolume(24, {})};
  for (Integrator integrator : kNewtonIntegrators) {
    for (const Scene& scene : scenes) {
      SCOPED_TRACE(nameOf(integrator) + " " + std::to_string(scene.model.particleCount()));
      const std::vector<glm::vec3> external = cornerDrag(scene);
      const int steps = scene.model.particleCount() > 1000 ? 30 : kSteps;
      Trajectory a = runSteps(*first, scene, settingsFor(integrator), steps, external);
      Trajectory b = runSteps(*second, scene, settingsFor(integrator), steps, external);
      ASSERT_TRUE(a.ok && b.ok) << a.error << b.error;
      EXPECT_TRUE(sameBytes(a.state, b.state));
      ASSERT_EQ(a.stats.size(), b.stats.size());
      for (size_t k = 0; k < a.stats.size(); ++k) {
        ASSERT_EQ(a.stats[k].newton_iterations, b.stats[k].newton_iterations) << "step " << k;
        ASSERT_EQ(a.stats[k].cg_iterations, b.stats[k].cg_iterations) << "step " << k;
      }
      // and the same backend loaded again (load() forgets bdf2's history)
      Trajectory c = runSteps(*first, scene, settingsFor(integrator), steps, external);
      ASSERT_TRUE(c.ok) << c.error;
      EXPECT_TRUE(sameBytes(a.state, c.state));
    }
  }
}

// ---- bdf2's history: restarts on the first step and when h changes, as the CPU ----

TEST(CudaBdf2History, ChangingStepsMatchCpu) {
  HOOKE_CUDA_OR_SKIP(gpu, CudaOptions{});
  const Scene scene = makeCloth(16, convergingMaterial());
  const std::vector<glm::vec3> external = cornerDrag(scene);
  // h = 0.01 for 10 steps, 0.005 for 10, and so on: a backward-Euler restart every 10 steps
  auto stepOf = [](int k) { return (k / 10) % 2 == 0 ? 0.01f : 0.005f; };
  auto run = [&](Backend& backend, Integrator integrator, State* out) -> Status {
    Status done = backend.load(scene.model, scene.state);
    backend.setSettings(settingsFor(integrator));
    for (int k = 0; k < 60 && done; ++k)
      done = backend.step(stepOf(k), external, nullptr);
    if (done) backend.readState(out);
    return done;
  };
  const double extent = extentOf(scene.state);
  for (Integrator integrator : kNewtonIntegrators) {
    SCOPED_TRACE(nameOf(integrator));
    CpuBackend cpu;
    State expected, actual, again;
    ASSERT_TRUE(run(cpu, integrator, &expected).isOk());
    Status done = run(*gpu, integrator, &actual);
    ASSERT_TRUE(done.isOk()) << done.message();
    const double difference = relativeDifference(actual, expected, extent);
    std::printf("[ history  ] %-6s h 0.01/0.005 every 10 steps max|dx|/extent = %.3g\n",
                nameOf(integrator).c_str(), difference);
    EXPECT_LE(difference, kTolerance);
    done = run(*gpu, integrator, &again);
    ASSERT_TRUE(done.isOk()) << done.message();
    EXPECT_TRUE(sameBytes(actual, again));
  }
  // the history matters: bdf2 and newton end apart (1.5e-3 of the extent on the CPU)
  CpuBackend cpu;
  State newton, bdf2;
  ASSERT_TRUE(run(cpu, Integrator::kNewton, &newton).isOk());
  ASSERT_TRUE(run(cpu, Integrator::kBdf2, &bdf2).isOk());
  EXPECT_GT(relativeDifference(newton, bdf2, extent), 5 * kTolerance);
}

// ---- a large, stiff step ----

struct StiffRun {
  State state;
  double max_strain = 0.0;  // largest (l − L) / L of any spring after any step
  bool ok = true;
  std::string error;
};

StiffRun runStiff(Backend& backend, const Scene& scene, Integrator integrator, float h, int steps,
                  float nudge = 0.0f) {
  StiffRun run;
  State start = scene.state;
  for (glm::vec3& x : start.x)
    x.x += nudge;
  Status loaded = backend.load(scene.model, start);
  if (!loaded) return {State{}, 0.0, false, loaded.message()};
  backend.setSettings(settingsFor(integrator));
  for (int k = 0; k < steps; ++k) {
    Status stepped = backend.step(h, {}, nullptr);
    if (!stepped) return {State{}, 0.0, false, stepped.message()};
    backend.readState(&run.state);
    for (size_t s = 0; s < scene.model.springCount(); ++s) {
      const glm::uvec2 e = scene.model.spring_ends[s];
      const double length = glm::length(run.state.x[e.y] - run.state.x[e.x]);
      const double rest = scene.model.rest_length[s];
      run.max_strain = std::max(run.max_strain, (length - rest) / rest);
    }
  }
  return run;
}

TEST(CudaNewtonLargeStep, StiffClothStaysFiniteUnstretchedAndNearCpu) {
  HOOKE_CUDA_OR_SKIP(gpu, CudaOptions{});
  // cloth 16, k = 1e5, dt = 0.05, 20 steps (issue 6's large-step case). Newton stalls at the
  // float floor above its tolerance here, so the trajectory is sensitive to rounding: on the CPU
  // a 1e-6 m shift of the start moves newton's end state by about 0.05 m and bdf2's by about
  // 0.3 m (measured). So the GPU may differ from the CPU by no more than three times what that
  // shift does to the CPU itself (at least 0.05 of the extent), and must not stretch springs
  // more than twice as much (the linearised implicit Euler stretches them by 28 %, newton and
  // bdf2 by under 1 %).
  Material stiff;
  stiff.stiffness = 1e5f;
  const Scene scene = makeCloth(16, stiff);
  const double extent = extentOf(scene.state);
  for (Integrator integrator : kNewtonIntegrators) {
    SCOPED_TRACE(nameOf(integrator));
    CpuBackend cpu;
    StiffRun expected = runStiff(cpu, scene, integrator, 0.05f, 20);
    ASSERT_TRUE(expected.ok && allFinite(expected.state)) << expected.error;
    StiffRun actual = runStiff(*gpu, scene, integrator, 0.05f, 20);
    ASSERT_TRUE(actual.ok) << actual.error;
    ASSERT_TRUE(allFinite(actual.state));
    CpuBackend shifted_cpu;
    StiffRun shifted = runStiff(shifted_cpu, scene, integrator, 0.05f, 20, 1e-6f);
    ASSERT_TRUE(shifted.ok && allFinite(shifted.state)) << shifted.error;
    const double sensitivity = relativeDifference(shifted.state, expected.state, extent);
    const double difference = relativeDifference(actual.state, expected.state, extent);
    std::printf(
        "[ stiff    ] %-6s max|dx|/extent = %.3g (cpu shifted by 1e-6: %.3g)  max strain "
        "gpu %.4f cpu %.4f\n",
        nameOf(integrator).c_str(), difference, sensitivity, actual.max_strain,
        expected.max_strain);
    EXPECT_LE(difference, std::max(0.05, 3.0 * sensitivity));
    EXPECT_LE(actual.max_strain, 2.0 * expected.max_strain);
    // and it fell: the state is not the start
    EXPECT_GT(relativeDifference(actual.state, scene.state, extent), 0.1);
  }
}

}  // namespace
}  // namespace hooke
