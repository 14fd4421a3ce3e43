// GPU parity tests of cuda/: CUDA against the CPU reference per scene and integrator, every
// CudaOptions switch, determinism, updateModel, bad loads and writeVisual. Every test that needs
// a device skips (never passes) with the factory's reason where there is none.
#include "cuda/cuda_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "cuda/cuda_test_support.h"
#include "sim/cpu_backend.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// Explicit Euler at the default materials diverges within 100 steps of 0.01 s (k = 1e4 N/m on
// ~4 g particles); these soft, damped materials keep explicit and symplectic Euler bounded and
// insensitive (a 1e-7 perturbation of the start stays below 1e-6 of the extent on the CPU).
Material softCloth() {
  Material m;
  m.stiffness = 1.0f;
  m.damping = 0.03f;
  m.drag = 0.03f;
  return m;
}
Material softVolume() {
  Material m;
  m.stiffness = 1.0f;
  m.damping = 0.03f;
  return m;
}

// The parity scenes: soft materials for explicit and symplectic Euler, the defaults for implicit,
// convergingMaterial() for newton and bdf2 (cuda_test_support.h says why); "volume-default" is
// the default volume for newton and bdf2 too, where Newton hits its iteration cap in most steps
// and the line search halves often (insensitive: 1e-7 at the start moves it by < 2e-7).
Scene sceneFor(const std::string& scene, Integrator integrator) {
  const bool soft = integrator == Integrator::kExplicit || integrator == Integrator::kSymplectic;
  const bool newton = integrator == Integrator::kNewton || integrator == Integrator::kBdf2;
  const Material cloth = soft ? softCloth() : newton ? convergingMaterial() : Material{};
  const Material volume = soft ? softVolume() : newton ? convergingMaterial() : Material{};
  if (scene == "cloth") return makeCloth(16, cloth);
  if (scene == "volume") return makeVolume(8, volume);
  if (scene == "volume-default") return makeVolume(8, {});
  return makeSpring1d({});
}

// ---- CUDA vs CPU, every scene and integrator ----

struct ParityParam {
  const char* scene;
  Integrator integrator;
};

class Parity : public ::testing::TestWithParam<ParityParam> {};

TEST_P(Parity, HundredStepsMatchCpu) {
  HOOKE_CUDA_OR_SKIP(gpu, CudaOptions{});
  const ParityParam param = GetParam();
  const Scene scene = sceneFor(param.scene, param.integrator);
  const SolverSettings settings = settingsFor(param.integrator);

  CpuBackend cpu;
  Trajectory expected = runSteps(cpu, scene, settings, kSteps);
  ASSERT_TRUE(expected.ok) << expected.error;
  Trajectory actual = runSteps(*gpu, scene, settings, kSteps);
  ASSERT_TRUE(actual.ok) << actual.error;

  const double extent = extentOf(scene.state);
  if (!allFinite(expected.state)) {
    // the CPU diverged: all that can be asked is that the GPU diverged too
    EXPECT_FALSE(allFinite(actual.state) &&
                 relativeDifference(actual.state, scene.state, extent) < 10.0);
    return;
  }
  const double difference = relativeDifference(actual.state, expected.state, extent);
  std::printf("[ parity   ] %-8s %-10s max|dx|/extent = %.3g  CG iterations gpu %d cpu %d\n",
              param.scene, std::string(integratorName(param.integrator)).c_str(), difference,
              totalIterations(actual), totalIterations(expected));
  EXPECT_LE(difference, kTolerance);
  if (param.integrator == Integrator::kNewton || param.integrator == Integrator::kBdf2) {
    // float rounding may change how many Newton iterations a step takes, so the counts are not
    // compared; what each step reports must be consistent with the settings
    for (size_t k = 0; k < actual.stats.size(); ++k) {
      const StepStats& s = actual.stats[k];
      ASSERT_GE(s.newton_iterations, 1) << "step " << k;
      ASSERT_LE(s.newton_iterations, settings.newton_max_iterations) << "step " << k;
      ASSERT_TRUE(std::isfinite(s.newton_residual)) << "step " << k;
      // a step that stopped before the cap converged, or stalled at the float floor (which
      // takes at least kNewtonStallFrom iterates)
      if (s.newton_iterations < settings.newton_max_iterations &&
          s.newton_residual > settings.newton_tolerance) {
        EXPECT_GE(s.newton_iterations, kNewtonStallFrom) << "step " << k;
      }
    }
    int gpu_newton = 0, cpu_newton = 0;
    for (const StepStats& s : actual.stats)
      gpu_newton += s.newton_iterations;
    for (const StepStats& s : expected.stats)
      cpu_newton += s.newton_iterations;
    std::printf("[ parity   ] %-8s %-10s Newton iterations gpu %d cpu %d\n", param.scene,
                std::string(integratorName(param.integrator)).c_str(), gpu_newton, cpu_newton);
    return;
  }
  if (param.integrator != Integrator::kImplicit) return;
  for (size_t k = 0; k < actual.stats.size(); ++k) {
    EXPECT_TRUE(actual.stats[k].cg_converged) << "step " << k;
    EXPECT_LE(actual.stats[k].cg_residual, settings.tolerance) << "step " << k;
  }
  // the same solver under slightly different rounding: about the same total work
  const int gpu_total = totalIterations(actual), cpu_total = totalIterations(expected);
  EXPECT_NEAR(gpu_total, cpu_total, std::max(3.0, 0.05 * cpu_total));
}

INSTANTIATE_TEST_SUITE_P(ScenesAndIntegrators, Parity,
                         ::testing::Values(ParityParam{"cloth", Integrator::kExplicit},
                                           ParityParam{"cloth", Integrator::kSymplectic},
                                           ParityParam{"cloth", Integrator::kImplicit},
                                           ParityParam{"volume", Integrator::kExplicit},
                                           ParityParam{"volume", Integrator::kSymplectic},
                                           ParityParam{"volume", Integrator::kImplicit},
                                           ParityParam{"spring1d", Integrator::kExplicit},
                                           ParityParam{"spring1d", Integrator::kSymplectic},
                                           ParityParam{"spring1d", Integrator::kImplicit},
                                           ParityParam{"cloth", Integrator::kNewton},
                                           ParityParam{"cloth", Integrator::kBdf2},
                                           ParityParam{"volume", Integrator::kNewton},
                                           ParityParam{"volume", Integrator::kBdf2},
                                           ParityParam{"spring1d", Integrator::kNewton},
                                           ParityParam{"spring1d", Integrator::kBdf2},
                                           ParityParam{"volume-default", Integrator::kNewton},
                                           ParityParam{"volume-default", Integrator::kBdf2}),
                         [](const ::testing::TestParamInfo<ParityParam>& info) {
                           std::string name = std::string(info.param.scene) + "_" +
                                              std::string(integratorName(info.param.integrator));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// ---- every switch gives the same result ----

struct Variant {
  std::string name;
  CudaOptions options;
};

// The launched path as the original design ran it: 5 launches per iteration, no graph, K = 8,
// the L2 persisting window on.
CudaOptions launched() {
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  o.cg_graph = false;
  o.fused_finish = false;
  o.l2_persist = true;
  return o;
}

std::vector<Variant> variants() {
  std::vector<Variant> out;
  out.push_back({"default", CudaOptions{}});
  CudaOptions o = launched();
  out.push_back({"launched", o});
  o = launched();
  o.check_interval = 1;
  out.push_back({"K=1", o});
  o = launched();
  o.check_interval = 3;
  out.push_back({"K=3", o});
  o = launched();
  o.check_interval = 64;
  out.push_back({"K=64", o});
  o = launched();
  o.float4_layout = false;
  out.push_back({"float3", o});
  o = launched();
  o.prefer_l1 = false;
  out.push_back({"no-L1-carveout", o});
  o = launched();
  o.l2_persist = false;
  out.push_back({"no-L2-window", o});
  o = launched();
  o.cg_graph = true;
  out.push_back({"graph", o});
  o = launched();
  o.cg_graph = true;
  o.check_interval = 5;
  o.float4_layout = false;
  out.push_back({"graph-K=5-float3", o});
  o = launched();
  o.timing = false;
  out.push_back({"no-timing", o});
  o = launched();
  o.fused_finish = true;
  out.push_back({"fused", o});
  o = launched();
  o.fused_finish = true;
  o.cg_graph = true;
  out.push_back({"fused-graph", o});
  o = launched();
  o.fused_finish = true;
  o.cg_graph = true;
  o.check_interval = 1;
  o.float4_layout = false;
  out.push_back({"fused-graph-K=1-f3", o});
  // the whole-CG paths (tests/cuda/cuda_paths_test.cpp has more)
  for (CgPath path : {CgPath::kOneBlock, CgPath::kGrid}) {
    const std::string name = cgPathName(path);
    o = {};
    o.cg_path = path;
    out.push_back({name, o});
    o.fused_finish = false;
    out.push_back({name + "-unfused", o});
    o = {};
    o.cg_path = path;
    o.whole_cg_interval = path == CgPath::kGrid ? 1 : 3;
    o.l2_persist = true;
    out.push_back({name + "-interval-L2", o});
    o = {};
    o.cg_path = path;
    o.float4_layout = false;
    out.push_back({name + "-float3", o});
    o = {};
    o.cg_path = path;
    o.prefer_l1 = false;
    o.l2_persist = false;
    o.timing = false;
    out.push_back({name + "-no-L1-L2-timing", o});
    o = {};
    o.cg_path = path;
    o.block_jacobi = false;
    out.push_back({name + "-point-jacobi", o});
    o = {};
    o.cg_path = path;
    o.warm_start = true;
    out.push_back({name + "-warm", o});
    for (int ablation : {4, 5, 7, 8}) {
      o = {};
      o.cg_path = path;
      o.ablate_static = ablation;
      out.push_back({name + "-ablate-" + std::to_string(ablation), o});
    }
    o = {};
    o.cg_path = path;
    o.ablate_static = 5;
    o.float4_layout = false;
    out.push_back({name + "-ablate-5-float3", o});
  }
  // item 13: a particle's springs over 1 to 32 lanes, on every path; 32 lanes leave most of a
  // group without a spring (cloth has at most 12, volume 26)
  for (CgPath path : {CgPath::kLaunches, CgPath::kOneBlock, CgPath::kGrid}) {
    for (int lanes : {1, 2, 8, 32}) {
      o = {};
      o.cg_path = path;
      o.gather_lanes = lanes;
      out.push_back({std::string(cgPathName(path)) + "-lanes-" + std::to_string(lanes), o});
    }
  }
  // item 15 off: the device arrays in the model's own order, on every path
  for (CgPath path : {CgPath::kLaunches, CgPath::kOneBlock, CgPath::kGrid}) {
    o = {};
    o.cg_path = path;
    o.locality_order = false;
    out.push_back({std::string(cgPathName(path)) + "-model-order", o});
  }
  o = launched();
  o.locality_order = false;
  o.float4_layout = false;
  out.push_back({"launched-model-order-float3", o});
  // item 16: batched entries in the launched q = A p (automatic only beyond 512 particles per SM)
  for (int lanes : {1, 2, 8}) {
    o = {};
    o.cg_path = CgPath::kLaunches;
    o.gather_batch = 4;
    o.gather_lanes = lanes;
    out.push_back({"launched-batched-lanes-" + std::to_string(lanes), o});
  }
  o.gather_batch = 3;
  out.push_back({"launched-batched-3-lanes-8", o});
  // item 22 off: item 20's entries in the locality order, and item 22 with packed float3
  o.gather_lanes = 2;
  o.stencil_rows = false;
  out.push_back({"launched-batched-3-lanes-2-entries", o});
  o.stencil_rows = true;
  o.float4_layout = false;
  out.push_back({"launched-batched-3-lanes-2-float3", o});
  // items 23, 24 and 25 each off (23: another grouping of p·A p's partials; 24, 25: the same bits)
  o.float4_layout = true;
  o.lattice_tiles = false;
  out.push_back({"launched-batched-3-lanes-2-untiled", o});
  o.lattice_tiles = true;
  o.stencil_ahead = false;
  out.push_back({"launched-batched-3-lanes-2-behind", o});
  o.stencil_ahead = true;
  o.dv_in_direction = false;
  out.push_back({"launched-batched-3-lanes-2-dv-in-update", o});
  // item 26 (in the plain launch order: item 21's dependent launches keep two kernels), and off:
  // the update and the direction as two kernels (the same bits), with item 25 and without
  o.dv_in_direction = true;
  o.dependent_launch_max_particles = 0;
  out.push_back({"launched-batched-3-lanes-2-plain-order", o});
  o.direction_in_update = false;
  out.push_back({"launched-batched-3-lanes-2-plain-order-two-kernels", o});
  o.dv_in_direction = false;
  out.push_back({"launched-batched-3-lanes-2-plain-order-dv-in-update", o});
  // 512-thread grid blocks, with one barrier per iteration (item 14) and with two
  o = {};
  o.cg_path = CgPath::kGrid;
  o.grid_block = 512;
  out.push_back({"grid-512", o});
  o.single_reduction_max_particles = 0;
  o.gather_lanes = 2;
  out.push_back({"grid-512-two-barriers-lanes-2", o});
  // item 28 off: 256- or 512-thread blocks (another grouping of the block partials)
  o = {};
  o.cg_path = CgPath::kGrid;
  o.balance_grid = false;
  out.push_back({"grid-unbalanced", o});
  o.gather_lanes = 4;
  out.push_back({"grid-unbalanced-lanes-4", o});
  // item 27 off: item 18's staged kernel alone (the same bits), and with its entries unstaged
  o = {};
  o.cg_path = CgPath::kGrid;
  o.stage_rows = false;
  out.push_back({"grid-staged-entries", o});
  o.stage_halo = 1;
  o.stage_entries = false;
  out.push_back({"grid-staged-halo", o});
  // item 14 off: the grid path's standard PCG with two barriers per iteration
  o = {};
  o.cg_path = CgPath::kGrid;
  o.single_reduction_max_particles = 0;
  out.push_back({"grid-two-barriers", o});
  o.float4_layout = false;
  o.gather_lanes = 2;
  out.push_back({"grid-two-barriers-lanes-2-float3", o});
  {
    o = {};
    o.cg_path = CgPath::kGrid;
    o.gather_lanes = 4;
    o.fused_finish = false;
    o.float4_layout = false;
    out.push_back({"grid-lanes-4-unfused-float3", o});
  }
  return out;
}

// Variants under one key may differ only in what cannot change a bit or a CG iteration: K,
// graphs, the L2 window, timing and the whole-CG interval (item 14's kernel resumes with the 1/γ
// and 1/α the launch before formed).
// item 23's tile groups p·A p's block partials
std::string tileKey(const Backend& backend) {
  int tile[3];
  if (!cudaLatticeTiles(backend, tile)) return "";
  return "-tile" + std::to_string(tile[0]) + "x" + std::to_string(tile[1]) + "x" +
         std::to_string(tile[2]);
}

std::string bitKey(const Backend& backend, const CudaOptions& o) {
  CgPath path = CgPath::kAuto;
  cudaCgPath(backend, &path);
  // an ablated kernel may get another block size from the occupancy query, hence another tree;
  // the lanes per particle change the order a row's springs are summed in
  const int tree = o.ablate_static;
  return std::string(cgPathName(path)) + std::to_string(o.float4_layout) +
         std::to_string(o.prefer_l1) + std::to_string(o.fused_finish) +
         std::to_string(o.block_jacobi) + std::to_string(o.warm_start) + std::to_string(tree) +
         "l" + std::to_string(cudaGatherLanes(backend)) +
         (cudaSingleReduction(backend) ? "cg1" : "") + (o.locality_order ? "" : "-model-order") +
         (cudaStencilRows(backend) ? "-stencil" : "") + tileKey(backend) + "-b" +
         std::to_string(cudaGridBlock(backend));
}

TEST(CudaOptionsSwitches, EverySwitchMatchesCpuAndReportsTheSameIterations) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  for (const char* scene_name : {"cloth", "volume"}) {
    for (Integrator integrator : {Integrator::kImplicit, Integrator::kSymplectic}) {
      const Scene scene = sceneFor(scene_name, integrator);
      const SolverSettings settings = settingsFor(integrator);
      CpuBackend cpu;
      Trajectory expected = runSteps(cpu, scene, settings, kSteps);
      ASSERT_TRUE(expected.ok && allFinite(expected.state));
      const double extent = extentOf(scene.state);
      // one reference per layout, carve-out and finishing scheme: those may change FMA
      // contraction or the reduction tree; K, graphs, the L2 window and timing must not change
      // a single bit or CG iteration
      std::map<std::string, Trajectory> reference;
      for (const Variant& variant : variants()) {
        SCOPED_TRACE(std::string(scene_name) + " " + std::string(integratorName(integrator)) + " " +
                     variant.name);
        std::string why_not;
        auto gpu = createCudaBackend(variant.options, &why_not);
        ASSERT_TRUE(gpu) << why_not;
        Trajectory actual = runSteps(*gpu, scene, settings, kSteps);
        ASSERT_TRUE(actual.ok) << actual.error;
        const double difference = relativeDifference(actual.state, expected.state, extent);
        EXPECT_LE(difference, kTolerance);
        // item 14 runs exactly where it should: the grid path, fused, at these small sizes
        const bool grid = bitKey(*gpu, variant.options).rfind("grid", 0) == 0;
        EXPECT_EQ(cudaSingleReduction(*gpu),
                  grid && variant.options.fused_finish &&
                      variant.options.single_reduction_max_particles > 0);
        const std::string key = bitKey(*gpu, variant.options);
        if (reference.empty()) reference["default"] = actual;
        Trajectory& same_layout = reference[key];
        if (same_layout.stats.empty()) {
          same_layout = actual;
        } else {
          // iteration counts are exact whatever K or graphs: the device freezes at convergence
          for (size_t k = 0; k < actual.stats.size(); ++k) {
            ASSERT_EQ(actual.stats[k].cg_iterations, same_layout.stats[k].cg_iterations)
                << "step " << k;
          }
          EXPECT_TRUE(sameBytes(actual.state, same_layout.state));
        }
        std::printf(
            "[ switch   ] %-7s %-10s %-26s max|dx|/extent = %.3g  same bits as default: %s\n",
            scene_name, std::string(integratorName(integrator)).c_str(), variant.name.c_str(),
            difference, sameBytes(actual.state, reference["default"].state) ? "yes" : "no");
      }
    }
  }
}

// ---- several blocks per reduction (the scenes above fit in one block per kernel) ----

TEST(CudaMultiBlock, LargerSystemsMatchCpuAndRepeatBitForBit) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const SolverSettings settings = settingsFor(Integrator::kImplicit);
  // volume 24: 3456 particles; insensitive (FMA-level rounding moves it < 2e-7 of its extent)
  const Scene volume = makeVolume(24, {});
  CpuBackend cpu;
  Trajectory expected = runSteps(cpu, volume, settings, 30);
  ASSERT_TRUE(expected.ok);
  // cloth 64: 4096 particles; chaotic at k = 1e4 (rounding alone moves it ~1e-3), so only
  // determinism is checked on it
  const Scene cloth = makeCloth(64, {});
  for (const Variant& variant : variants()) {
    const std::string name = variant.name;
    if (name != "default" && name != "launched" && name != "float3" && name != "graph" &&
        name != "fused" && name != "fused-graph" && name != "one-block" && name != "grid" &&
        name != "grid-unfused" && name != "grid-float3" && name != "grid-two-barriers" &&
        name != "grid-lanes-8" && name != "launches-lanes-8" && name != "grid-unbalanced" &&
        name != "grid-unbalanced-lanes-4") {
      continue;
    }
    SCOPED_TRACE(name);
    std::string why_not;
    auto first = createCudaBackend(variant.options, &why_not);
    auto second = createCudaBackend(variant.options, &why_not);
    ASSERT_TRUE(first && second) << why_not;
    Trajectory a = runSteps(*first, volume, settings, 30);
    Trajectory b = runSteps(*second, volume, settings, 30);
    ASSERT_TRUE(a.ok && b.ok) << a.error << b.error;
    EXPECT_TRUE(sameBytes(a.state, b.state));
    const double difference = relativeDifference(a.state, expected.state, extentOf(volume.state));
    EXPECT_LE(difference, kTolerance);
    std::printf("[ multi    ] volume 24 %-12s max|dx|/extent = %.3g  CG iterations gpu %d cpu %d\n",
                variant.name.c_str(), difference, totalIterations(a), totalIterations(expected));
    Trajectory c = runSteps(*first, cloth, settings, 30);
    Trajectory d = runSteps(*second, cloth, settings, 30);
    ASSERT_TRUE(c.ok && d.ok) << c.error << d.error;
    EXPECT_TRUE(sameBytes(c.state, d.state));
  }
}

// ---- determinism ----

TEST(CudaDeterminism, TwoRunsGiveIdenticalBytes) {
  HOOKE_CUDA_OR_SKIP(first, CudaOptions{});
  HOOKE_CUDA_OR_SKIP(second, CudaOptions{});
  for (Integrator integrator : {Integrator::kImplicit, Integrator::kSymplectic}) {
    const Scene scene = sceneFor("cloth", integrator);
    std::vector<glm::vec3> external(scene.model.particleCount(), glm::vec3(0.0f));
    external.back() = glm::vec3(0.0f, 0.5f, 0.2f);  // a drag on the free corner
    Trajectory a = runSteps(*first, scene, settingsFor(integrator), kSteps, external);
    Trajectory b = runSteps(*second, scene, settingsFor(integrator), kSteps, external);
    ASSERT_TRUE(a.ok && b.ok) << a.error << b.error;
    EXPECT_TRUE(sameBytes(a.state, b.state)) << integratorName(integrator);
    // and the same backend loaded again
    Trajectory c = runSteps(*first, scene, settingsFor(integrator), kSteps, external);
    ASSERT_TRUE(c.ok) << c.error;
    EXPECT_TRUE(sameBytes(a.state, c.state)) << integratorName(integrator);
  }
}

TEST(CudaExternalForces, MatchCpu) {
  HOOKE_CUDA_OR_SKIP(gpu, CudaOptions{});
  const Scene scene = sceneFor("cloth", Integrator::kImplicit);
  std::vector<glm::vec3> external(scene.model.particleCount(), glm::vec3(0.0f));
  external.back() = glm::vec3(0.0f, 0.5f, 0.2f);
  CpuBackend cpu;
  Trajectory expected = runSteps(cpu, scene, settingsFor(Integrator::kImplicit), kSteps, external);
  Trajectory actual = runSteps(*gpu, scene, settingsFor(Integrator::kImplicit), kSteps, external);
  ASSERT_TRUE(expected.ok && actual.ok) << actual.error;
  EXPECT_LE(relativeDifference(actual.state, expected.state, extentOf(scene.state)), kTolerance);
  // and it did something
  Trajectory free_fall = runSteps(*gpu, scene, settingsFor(Integrator::kImplicit), kSteps);
  EXPECT_GT(relativeDifference(actual.state, free_fall.state, extentOf(scene.state)), 1e-3);
}

// ---- updateModel ----

TEST(CudaUpdateModel, ChangesStiffnessWithoutReloadAndMatchesCpu) {
  HOOKE_CUDA_OR_SKIP(gpu, CudaOptions{});
  const Scene scene = sceneFor("cloth", Integrator::kImplicit);
  Model softer = scene.model;
  // 5000 N/m: away from the stiffness range (~1e3) where this cloth is chaotic at h = 0.01
  for (float& k : softer.stiffness)
    k *= 0.5f;
  const SolverSettings settings = settingsFor(Integrator::kImplicit);

  auto run = [&](Backend& backend, bool update) {
    Trajectory r = runSteps(backend, scene, settings, 30);
    if (!r.ok) return r;
    if (update) {
      Status updated = backend.updateModel(softer);
      if (!updated) {
        r.ok = false;
        r.error = updated.message();
        return r;
      }
    }
    for (int k = 0; k < 70; ++k) {
      Status stepped = backend.step(kH, {}, nullptr);
      if (!stepped) {
        r.ok = false;
        r.error = stepped.message();
        return r;
      }
    }
    backend.readState(&r.state);
    return r;
  };
  CpuBackend cpu;
  Trajectory expected = run(cpu, true);
  Trajectory actual = run(*gpu, true);
  ASSERT_TRUE(expected.ok && actual.ok) << expected.error << actual.error;
  const double extent = extentOf(scene.state);
  EXPECT_LE(relativeDifference(actual.state, expected.state, extent), kTolerance);

  // the update mattered: without it the cloth ends elsewhere
  auto unchanged = createCudaBackend(CudaOptions{}, nullptr);
  ASSERT_TRUE(unchanged);
  Trajectory stiff = run(*unchanged, false);
  ASSERT_TRUE(stiff.ok) << stiff.error;
  EXPECT_GT(relativeDifference(actual.state, stiff.state, extent), 1e-3);

  // a changed topology is refused
  Model other = scene.model;
  other.pinned[5] = 1;
  EXPECT_FALSE(gpu->updateModel(other).isOk());
}

// ---- bad input never crashes ----

TEST(CudaLoad, MismatchedStateIsAnError) {
  HOOKE_CUDA_OR_SKIP(gpu, CudaOptions{});
  Scene scene = makeCloth(8, {});
  State short_state = scene.state;
  short_state.x.pop_back();
  Status loaded = gpu->load(scene.model, short_state);
  EXPECT_FALSE(loaded.isOk());
  EXPECT_FALSE(loaded.message().empty());
  EXPECT_FALSE(gpu->step(kH, {}, nullptr).isOk());  // nothing loaded: an error, not a crash

  Model broken = scene.model;
  broken.spring_ends[3] = glm::uvec2(0, 100000);
  EXPECT_FALSE(gpu->load(broken, scene.state).isOk());

  // the packed system block needs stiffness and damping >= 0 (every scene source enforces it)
  Model negative = scene.model;
  negative.damping[5] = -1.0f;
  Status refused = gpu->load(negative, scene.state);
  EXPECT_FALSE(refused.isOk());
  EXPECT_NE(refused.message().find("spring 5"), std::string::npos) << refused.message();
  negative = scene.model;
  negative.stiffness[2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(gpu->load(negative, scene.state).isOk());

  ASSERT_TRUE(gpu->load(scene.model, scene.state).isOk());
  std::vector<glm::vec3> wrong_external(3, glm::vec3(1.0f));
  EXPECT_FALSE(gpu->step(kH, wrong_external, nullptr).isOk());
  EXPECT_TRUE(gpu->step(kH, {}, nullptr).isOk());
}

// ---- writeVisual ----

TEST(CudaWriteVisual, IsLerpOfPreviousAndCurrent) {
  HOOKE_CUDA_OR_SKIP(gpu, CudaOptions{});
  const Scene scene = makeCloth(16, {});
  ASSERT_TRUE(gpu->load(scene.model, scene.state).isOk());
  gpu->setSettings(settingsFor(Integrator::kImplicit));
  for (int k = 0; k < 5; ++k)
    ASSERT_TRUE(gpu->step(kH, {}, nullptr).isOk());
  State previous, current;
  gpu->readState(&previous);
  ASSERT_TRUE(gpu->step(kH, {}, nullptr).isOk());
  gpu->readState(&current);

  std::vector<glm::vec3> out(scene.model.particleCount());
  for (float alpha : {0.0f, 1.0f / 3.0f, 0.5f, 2.0f / 3.0f, 1.0f}) {
    gpu->writeVisual(alpha, out);
    for (size_t i = 0; i < out.size(); ++i) {
      const glm::vec3 expected = previous.x[i] + alpha * (current.x[i] - previous.x[i]);
      for (int c = 0; c < 3; ++c) {
        ASSERT_FLOAT_EQ(out[i][c], expected[c]) << "alpha " << alpha << " particle " << i;
      }
    }
  }
  // right after load, previous = current
  ASSERT_TRUE(gpu->load(scene.model, scene.state).isOk());
  gpu->writeVisual(0.5f, out);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], scene.state.x[i]);
}

// ---- item 15: the locality order ----

// The cloth's row-major particles are stored along a Morton curve on the device (the interop
// writer gets the slots), and the host sees the model's order: the state round trip, a push on
// one particle and stiffer springs named in model order land where the CPU puts them, and every
// CG path gives the model-order result, visual positions included (a partial read too).
TEST(CudaLocalityOrder, IsUsedAndInvisibleToTheHost) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  Scene scene = makeCloth(16, {});
  for (size_t i = 0; i < scene.state.v.size(); ++i) {  // a distinct velocity per particle
    if (!scene.model.pinned[i]) scene.state.v[i] = 1e-3f * glm::vec3(float(i), 2.0f, -float(i % 7));
  }
  std::vector<glm::vec3> external(scene.model.particleCount(), glm::vec3(0.0f));
  external[17] = glm::vec3(0.3f, 0.0f, -0.4f);  // one particle pushed: it must be that one
  Model stiffer = scene.model;
  for (size_t s = 0; s < stiffer.springCount(); s += 3)
    stiffer.stiffness[s] *= 4.0f;  // every third spring, in model order

  {
    CudaOptions model_order;
    model_order.locality_order = false;
    HOOKE_CUDA_OR_SKIP(a, CudaOptions{});
    HOOKE_CUDA_OR_SKIP(b, model_order);
    ASSERT_TRUE(a->load(scene.model, scene.state).isOk());
    ASSERT_TRUE(b->load(scene.model, scene.state).isOk());
    CudaVisualSource source_a, source_b;
    ASSERT_TRUE(cudaVisualSource(*a, &source_a));
    ASSERT_TRUE(cudaVisualSource(*b, &source_b));
    EXPECT_NE(source_a.slots, nullptr);
    EXPECT_EQ(source_b.slots, nullptr);
    State back;
    a->readState(&back);
    ASSERT_EQ(back.x, scene.state.x);
    ASSERT_EQ(back.v, scene.state.v);
  }

  // symplectic Euler without gravity against the CPU, at a step well inside its stability limit
  // (h ω_max < 1): the push moves particle 17 alone in the first step, its springs (every third
  // of them 4× stiffer) its neighbours in the next ones; a push or a stiffness put on another
  // particle or spring would be off by the whole motion. The push is 100× the implicit runs' so
  // that the neighbours' small stretches (|x_j − x_i| − L of ~1e-4 on lengths ~0.07) keep a few
  // significant digits; each particle's velocity must match the CPU's within 1 %
  {
    std::vector<glm::vec3> push(external.size(), glm::vec3(0.0f));
    push[17] = 100.0f * external[17];
    Scene weightless = scene;
    weightless.model = stiffer;
    weightless.model.gravity = glm::vec3(0.0f);
    weightless.state.v.assign(weightless.state.v.size(), glm::vec3(0.0f));
    SolverSettings settings = settingsFor(Integrator::kSymplectic);
    CpuBackend cpu;
    HOOKE_CUDA_OR_SKIP(gpu, CudaOptions{});
    constexpr float kSmallH = 1e-4f;
    Trajectory expected = runSteps(cpu, weightless, settings, 3, push, kSmallH);
    Trajectory actual = runSteps(*gpu, weightless, settings, 3, push, kSmallH);
    ASSERT_TRUE(expected.ok && actual.ok) << actual.error;
    double largest = 0.0, worst_relative = 0.0;
    for (const glm::vec3& v : expected.state.v)
      largest = std::max(largest, double(glm::length(v)));
    int moving = 0;
    for (size_t i = 0; i < expected.state.v.size(); ++i) {
      const double speed = glm::length(expected.state.v[i]);
      if (speed <= 1e-4 * largest) {  // out of the push's reach (or rounding): so on the GPU
        EXPECT_LE(glm::length(actual.state.v[i]), 1e-3 * largest) << "particle " << i;
        continue;
      }
      ++moving;
      const double relative = glm::length(actual.state.v[i] - expected.state.v[i]) / speed;
      worst_relative = std::max(worst_relative, relative);
      EXPECT_LE(relative, 1e-2) << "particle " << i;
    }
    std::printf(
        "[ order    ] push on particle 17, 3 steps: %d particles move, each within %.3g of "
        "the CPU's velocity\n",
        moving, worst_relative);
    EXPECT_GT(moving, 4);  // 17 and its neighbours
  }

  // implicit, every CG path, in the order and in the model's order
  for (CgPath path : {CgPath::kOneBlock, CgPath::kGrid, CgPath::kLaunches}) {
    SCOPED_TRACE(cgPathName(path));
    CudaOptions ordered, model_order;
    ordered.cg_path = model_order.cg_path = path;
    model_order.locality_order = false;
    HOOKE_CUDA_OR_SKIP(a, ordered);
    HOOKE_CUDA_OR_SKIP(b, model_order);
    State end_a, end_b;
    for (Backend* gpu : {a.get(), b.get()}) {
      ASSERT_TRUE(gpu->load(scene.model, scene.state).isOk());
      gpu->setSettings(settingsFor(Integrator::kImplicit));
      ASSERT_TRUE(gpu->updateModel(stiffer).isOk());
      for (int k = 0; k < 50; ++k)
        ASSERT_TRUE(gpu->step(kH, external, nullptr).isOk());
    }
    a->readState(&end_a);
    b->readState(&end_b);
    const double gap = relativeDifference(end_a, end_b, extentOf(scene.state));
    const double moved = relativeDifference(end_b, scene.state, extentOf(scene.state));
    std::printf(
        "[ order    ] %-9s cloth 16, 50 implicit steps: Morton vs model order %.3g "
        "(moved %.3g)\n",
        cgPathName(path), gap, moved);
    EXPECT_LE(gap, kTolerance);
    EXPECT_GT(moved, 100 * kTolerance);
    // all particles, then the first 100 only (every slot is still read)
    for (size_t count : {scene.model.particleCount(), size_t(100)}) {
      std::vector<glm::vec3> va(count), vb(count);
      a->writeVisual(0.25f, va);
      b->writeVisual(0.25f, vb);
      for (size_t i = 0; i < count; ++i) {
        ASSERT_LE(glm::length(va[i] - vb[i]), 1e-4f) << "particle " << i << " of " << count;
      }
    }
  }
}

// ---- the CG cap and stats ----

TEST(CudaPcg, CapIsExactAndReportedAsNotConverged) {
  for (int check_interval : {1, 4, 8}) {
    for (int scheme = 0; scheme < 4; ++scheme) {
      CudaOptions options;
      options.cg_path = CgPath::kLaunches;
      options.check_interval = check_interval;
      options.cg_graph = (scheme & 1) != 0;
      options.fused_finish = (scheme & 2) != 0;
      HOOKE_CUDA_OR_SKIP(gpu, options);
      const Scene scene = makeCloth(16, {});
      SolverSettings settings = settingsFor(Integrator::kImplicit);
      settings.max_iterations = 3;
      settings.tolerance = 1e-7f;
      CpuBackend cpu;
      Trajectory expected = runSteps(cpu, scene, settings, 10);
      Trajectory actual = runSteps(*gpu, scene, settings, 10);
      ASSERT_TRUE(expected.ok && actual.ok) << actual.error;
      for (const StepStats& s : actual.stats) {
        EXPECT_EQ(s.cg_iterations, 3);
        EXPECT_FALSE(s.cg_converged);
        EXPECT_GT(s.cg_residual, 0.0f);
      }
      EXPECT_LE(relativeDifference(actual.state, expected.state, extentOf(scene.state)),
                kTolerance);
    }
  }
}

TEST(CudaPcg, ReportsPhaseTimes) {
  HOOKE_CUDA_OR_SKIP(gpu, CudaOptions{});
  Trajectory run = runSteps(*gpu, makeCloth(16, {}), settingsFor(Integrator::kImplicit), 3);
  ASSERT_TRUE(run.ok) << run.error;
  for (const StepStats& s : run.stats) {
    EXPECT_GT(s.force_ms, 0.0);
    EXPECT_GT(s.solve_ms, 0.0);
    EXPECT_GE(s.commit_ms, 0.0);
    EXPECT_GT(s.cg_iterations, 0);
  }
}

// ---- without a device ----

TEST(CudaFactory, SaysWhyWhenCudaIsHidden) {
  // a fresh process, so CUDA_VISIBLE_DEVICES is read before CUDA initialises
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("CUDA_VISIBLE_DEVICES", "", 1);
        std::string why_not;
        auto backend = createCudaBackend(CudaOptions{}, &why_not);
        std::fprintf(stderr, "reason: %s\n", why_not.c_str());
        std::exit(backend == nullptr && !why_not.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "reason: .+");
}

// ---- informational: time per step on this GPU (never asserted) ----

TEST(CudaTiming, PrintsStepTimes) {
  CudaDeviceInfo info;
  std::string why_not;
  if (!queryCudaDevice(0, &info, &why_not)) GTEST_SKIP() << why_not;
  std::printf("[ device   ] %s, cc %d.%d, %d SMs, L2 %zu KiB, driver %d, runtime %d\n",
              info.name.c_str(), info.compute_major, info.compute_minor, info.multiprocessors,
              info.l2_bytes >> 10, info.driver_version, info.runtime_version);
  for (int res : {16, 64, 256}) {
    for (const Variant& variant : variants()) {
      const std::string name = variant.name;
      if (name != "default" && name != "launched" && name != "graph" && name != "K=1" &&
          name != "fused" && name != "fused-graph" && name != "one-block" && name != "grid") {
        continue;
      }
      auto gpu = createCudaBackend(variant.options, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      const Scene scene = makeCloth(res, {});
      SolverSettings settings = settingsFor(Integrator::kImplicit);
      settings.tolerance = 1e-4f;
      Trajectory warm = runSteps(*gpu, scene, settings, 3);
      if (!warm.ok && name == "one-block") continue;  // too large for one block's shared memory
      ASSERT_TRUE(warm.ok) << warm.error;
      Trajectory run = runSteps(*gpu, scene, settings, 20);
      ASSERT_TRUE(run.ok) << run.error;
      double force = 0, solve = 0, commit = 0;
      int iterations = 0;
      for (const StepStats& s : run.stats) {
        force += s.force_ms;
        solve += s.solve_ms;
        commit += s.commit_ms;
        iterations += s.cg_iterations;
      }
      const double n = double(run.stats.size());
      std::printf(
          "[ timing   ] cloth %4d %-8s step %.3f ms (force %.3f, CG %.3f, commit %.3f), "
          "%.1f it/step, %.2f us/it\n",
          res, variant.name.c_str(), (force + solve + commit) / n, force / n, solve / n, commit / n,
          iterations / n, 1000.0 * solve / std::max(1, iterations));
    }
  }
}

}  // namespace
}  // namespace hooke
