// GPU tests of the whole-CG paths (one block, cooperative grid; items 10–12): parity with the CPU
// reference, determinism, the automatic choice, the iteration cap and refusals. Every test that
// needs a device skips (never passes) with the factory's reason where there is none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "cuda/staged_halo.h"
#include "sim/cpu_backend.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

SolverSettings implicitSettings() {
  return settingsFor(Integrator::kImplicit);
}

Scene sceneNamed(const std::string& name) {
  if (name == "cloth") return makeCloth(16, {});
  if (name == "volume") return makeVolume(8, {});
  return makeSpring1d({});
}

CudaOptions onPath(CgPath path) {
  CudaOptions o;
  o.cg_path = path;
  return o;
}

// ---- parity with the CPU, each path and scene ----

struct PathParam {
  CgPath path;
  const char* scene;
  bool block_jacobi;
  bool warm_start = false;
};

class PathParity : public ::testing::TestWithParam<PathParam> {};

TEST_P(PathParity, HundredImplicitStepsMatchCpu) {
  const PathParam param = GetParam();
  CudaOptions options = onPath(param.path);
  options.block_jacobi = param.block_jacobi;
  options.warm_start = param.warm_start;
  HOOKE_CUDA_OR_SKIP(gpu, options);
  const Scene scene = sceneNamed(param.scene);
  const SolverSettings settings = implicitSettings();
  CpuBackend cpu;
  Trajectory expected = runSteps(cpu, scene, settings, kSteps);
  ASSERT_TRUE(expected.ok) << expected.error;
  Trajectory actual = runSteps(*gpu, scene, settings, kSteps);
  ASSERT_TRUE(actual.ok) << actual.error;
  CgPath resolved = CgPath::kAuto;
  ASSERT_TRUE(cudaCgPath(*gpu, &resolved));
  EXPECT_EQ(resolved, param.path);
  const double difference = relativeDifference(actual.state, expected.state, extentOf(scene.state));
  std::printf(
      "[ path     ] %-9s %-8s %-12s %-4s max|dx|/extent = %.3g  CG iterations gpu %d "
      "cpu %d\n",
      cgPathName(param.path), param.scene, param.block_jacobi ? "block-Jacobi" : "point",
      param.warm_start ? "warm" : "cold", difference, totalIterations(actual),
      totalIterations(expected));
  EXPECT_LE(difference, kTolerance);
  for (size_t k = 0; k < actual.stats.size(); ++k) {
    EXPECT_TRUE(actual.stats[k].cg_converged) << "step " << k;
    EXPECT_LE(actual.stats[k].cg_residual, settings.tolerance) << "step " << k;
  }
  if (param.block_jacobi && !param.warm_start) {
    // the CPU's solver under different rounding: about the same total work
    const int gpu_total = totalIterations(actual), cpu_total = totalIterations(expected);
    EXPECT_NEAR(gpu_total, cpu_total, std::max(3.0, 0.05 * cpu_total));
  }
}

INSTANTIATE_TEST_SUITE_P(
    WholeCg, PathParity,
    ::testing::Values(
        PathParam{CgPath::kOneBlock, "cloth", true}, PathParam{CgPath::kOneBlock, "volume", true},
        PathParam{CgPath::kOneBlock, "spring1d", true}, PathParam{CgPath::kGrid, "cloth", true},
        PathParam{CgPath::kGrid, "volume", true}, PathParam{CgPath::kGrid, "spring1d", true},
        PathParam{CgPath::kLaunches, "cloth", true}, PathParam{CgPath::kLaunches, "volume", true},
        PathParam{CgPath::kOneBlock, "cloth", false}, PathParam{CgPath::kOneBlock, "volume", false},
        PathParam{CgPath::kGrid, "cloth", false}, PathParam{CgPath::kGrid, "volume", false},
        PathParam{CgPath::kLaunches, "volume", false},
        PathParam{CgPath::kOneBlock, "cloth", true, true},
        PathParam{CgPath::kOneBlock, "volume", true, true},
        PathParam{CgPath::kOneBlock, "spring1d", true, true},
        PathParam{CgPath::kGrid, "cloth", true, true},
        PathParam{CgPath::kGrid, "volume", true, true},
        PathParam{CgPath::kLaunches, "cloth", true, true},
        PathParam{CgPath::kLaunches, "volume", true, true}),
    [](const ::testing::TestParamInfo<PathParam>& info) {
      std::string name = std::string(cgPathName(info.param.path)) + "_" + info.param.scene +
                         (info.param.block_jacobi ? "" : "_point_jacobi") +
                         (info.param.warm_start ? "_warm" : "");
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

// ---- determinism, with several blocks and several particles per thread ----

TEST(WholeCgDeterminism, TwoBackendsGiveIdenticalBytes) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const SolverSettings settings = implicitSettings();
  // volume 24: 3456 particles, 14 grid blocks; cloth 64: 4096 particles, 4 per one-block thread
  const Scene scenes[] = {makeVolume(24, {}), makeCloth(64, {})};
  for (CgPath path : {CgPath::kOneBlock, CgPath::kGrid}) {
    for (bool fused : {true, false}) {
      for (const Scene& scene : scenes) {
        SCOPED_TRACE(std::string(cgPathName(path)) + (fused ? " fused " : " unfused ") +
                     std::to_string(scene.model.particleCount()));
        CudaOptions options = onPath(path);
        options.fused_finish = fused;
        std::string why_not;
        auto first = createCudaBackend(options, &why_not);
        auto second = createCudaBackend(options, &why_not);
        ASSERT_TRUE(first && second) << why_not;
        Trajectory a = runSteps(*first, scene, settings, 30);
        Trajectory b = runSteps(*second, scene, settings, 30);
        ASSERT_TRUE(a.ok && b.ok) << a.error << b.error;
        EXPECT_TRUE(sameBytes(a.state, b.state));
        // and again on the first, reloaded
        Trajectory c = runSteps(*first, scene, settings, 30);
        ASSERT_TRUE(c.ok) << c.error;
        EXPECT_TRUE(sameBytes(a.state, c.state));
        // relaunching every few iterations resumes exactly (on item 14's kernel with item 49's
        // 1/γ and 1/α taken from the launch before)
        options.whole_cg_interval = 7;
        auto resumed = createCudaBackend(options, &why_not);
        ASSERT_TRUE(resumed) << why_not;
        Trajectory d = runSteps(*resumed, scene, settings, 30);
        ASSERT_TRUE(d.ok) << d.error;
        EXPECT_TRUE(sameBytes(a.state, d.state));
        EXPECT_EQ(totalIterations(a), totalIterations(d));
      }
    }
  }
}

TEST(WholeCgParity, LargerVolumeMatchesCpu) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  // volume 24 is insensitive to rounding (see cuda_backend_test.cpp), so it can be compared
  const Scene volume = makeVolume(24, {});
  const SolverSettings settings = implicitSettings();
  CpuBackend cpu;
  Trajectory expected = runSteps(cpu, volume, settings, 30);
  ASSERT_TRUE(expected.ok);
  for (CgPath path : {CgPath::kOneBlock, CgPath::kGrid}) {
    std::string why_not;
    auto gpu = createCudaBackend(onPath(path), &why_not);
    ASSERT_TRUE(gpu) << why_not;
    Trajectory actual = runSteps(*gpu, volume, settings, 30);
    ASSERT_TRUE(actual.ok) << actual.error;
    const double difference =
        relativeDifference(actual.state, expected.state, extentOf(volume.state));
    std::printf("[ path     ] %-9s volume 24 max|dx|/extent = %.3g  CG iterations gpu %d cpu %d\n",
                cgPathName(path), difference, totalIterations(actual), totalIterations(expected));
    EXPECT_LE(difference, kTolerance);
  }
}

// A 65536-particle volume at the benchmark's step (h = 1/60): every path, with several blocks,
// several lanes and (item 14) both CG recurrences, follows the CPU reference and does about its
// work. Per step the counts may differ a lot: here float CG stalls near the tolerance (in the
// first step the CPU's own |b − A x| stays near 1e-2 |b| while its recurrence passes 1e-4), so
// where it stops is decided by rounding (measured on the H200: 334 against 271 in step 0 on every
// path, 48 against 109 in step 5 with item 14). Over 8 steps the totals of the paths that run the
// CPU's recurrence (standard PCG) agree within 10 % (measured: 4–5 %). Item 14's Chronopoulos–Gear
// recurrence is a different algorithm in floating point, with a larger gap between its recurrence
// residual and the true one, so in this rounding-dominated stretch it may take more iterations
// to push its recurrence under the tolerance: within 25 % (measured on the H200: 5 % with two
// lanes per particle, 14 % with one lane and item 18's halos unstaged, 7 % with them staged, as
// the grid runs this size by default).
TEST(WholeCgParity, LargeVolumeFollowsCpuWithItsWork) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene volume = makeVolume(64, {});
  const SolverSettings settings = implicitSettings();
  const float h = 1.0f / 60.0f;
  constexpr int kLargeSteps = 8;
  CpuBackend cpu;
  Trajectory expected = runSteps(cpu, volume, settings, kLargeSteps, {}, h);
  ASSERT_TRUE(expected.ok) << expected.error;
  struct Case {
    const char* name;
    CudaOptions options;
  };
  std::vector<Case> cases;
  CudaOptions o = onPath(CgPath::kLaunches);
  cases.push_back({"launches", o});
  o.gather_lanes = 1;
  cases.push_back({"launches-1-lane", o});
  o = onPath(CgPath::kGrid);
  cases.push_back({"grid", o});  // item 14 at this size by default
  o.single_reduction_max_particles = 0;
  cases.push_back({"grid-two-barriers", o});
  o.gather_lanes = 2;
  cases.push_back({"grid-two-barriers-2-lanes", o});
  o = onPath(CgPath::kGrid);
  o.fused_finish = false;
  cases.push_back({"grid-unfused", o});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string why_not;
    auto gpu = createCudaBackend(c.options, &why_not);
    ASSERT_TRUE(gpu) << why_not;
    Trajectory actual = runSteps(*gpu, volume, settings, kLargeSteps, {}, h);
    ASSERT_TRUE(actual.ok) << actual.error;
    const bool chronopoulos_gear = std::string(c.name) == "grid";
    EXPECT_EQ(cudaSingleReduction(*gpu), chronopoulos_gear);
    std::string counts;
    for (int k = 0; k < kLargeSteps; ++k) {
      counts += " " + std::to_string(actual.stats[k].cg_iterations) + "/" +
                std::to_string(expected.stats[k].cg_iterations);
    }
    const int gpu_total = totalIterations(actual), cpu_total = totalIterations(expected);
    EXPECT_NEAR(gpu_total, cpu_total, (chronopoulos_gear ? 0.25 : 0.1) * cpu_total) << counts;
    EXPECT_LE(relativeDifference(actual.state, expected.state, extentOf(volume.state)), kTolerance);
    std::printf(
        "[ large    ] volume 64 %-26s lanes %2d  CG iterations gpu/cpu:%s  max|dx|/extent %.3g\n",
        c.name, cudaGatherLanes(*gpu), counts.c_str(),
        relativeDifference(actual.state, expected.state, extentOf(volume.state)));
  }
}

// ---- the iteration cap, with and without relaunches ----

TEST(WholeCgCap, IsExactAndReportedAsNotConverged) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene scene = makeCloth(16, {});
  SolverSettings settings = implicitSettings();
  settings.max_iterations = 3;
  settings.tolerance = 1e-7f;
  CpuBackend cpu;
  Trajectory expected = runSteps(cpu, scene, settings, 10);
  ASSERT_TRUE(expected.ok);
  for (CgPath path : {CgPath::kOneBlock, CgPath::kGrid}) {
    for (int interval : {0, 1, 2, 5}) {
      for (bool fused : {true, false}) {
        SCOPED_TRACE(std::string(cgPathName(path)) + " interval " + std::to_string(interval) +
                     (fused ? " fused" : " unfused"));
        CudaOptions options = onPath(path);
        options.whole_cg_interval = interval;
        options.fused_finish = fused;
        std::string why_not;
        auto gpu = createCudaBackend(options, &why_not);
        ASSERT_TRUE(gpu) << why_not;
        Trajectory actual = runSteps(*gpu, scene, settings, 10);
        ASSERT_TRUE(actual.ok) << actual.error;
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
}

// ---- warm start: a system with b = 0 has Δv = 0, whatever the guess ----

TEST(WholeCgWarmStart, ZeroRightHandSideClearsTheGuess) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  // five steps of a hanging cloth leave a non-zero Δv as the guess; then a model without gravity,
  // drag, stiffness or damping has b = h f0 + h² K v0 = 0 exactly, so Δv = 0 and v1 = v0
  const Scene moving = makeCloth(16, {});
  Model inert = moving.model;
  inert.gravity = glm::vec3(0.0f);
  inert.drag = 0.0f;
  std::fill(inert.stiffness.begin(), inert.stiffness.end(), 0.0f);
  std::fill(inert.damping.begin(), inert.damping.end(), 0.0f);
  for (CgPath path : {CgPath::kOneBlock, CgPath::kGrid, CgPath::kLaunches}) {
    SCOPED_TRACE(cgPathName(path));
    CudaOptions options = onPath(path);
    options.warm_start = true;
    std::string why_not;
    auto gpu = createCudaBackend(options, &why_not);
    ASSERT_TRUE(gpu) << why_not;
    Trajectory first = runSteps(*gpu, moving, implicitSettings(), 5);
    ASSERT_TRUE(first.ok) << first.error;
    ASSERT_GT(first.stats.back().cg_iterations, 0);
    ASSERT_TRUE(gpu->updateModel(inert).isOk());
    StepStats stats;
    ASSERT_TRUE(gpu->step(kH, {}, &stats).isOk());
    EXPECT_EQ(stats.cg_iterations, 0);
    EXPECT_TRUE(stats.cg_converged);
    State after;
    gpu->readState(&after);
    ASSERT_EQ(after.v.size(), first.state.v.size());
    EXPECT_EQ(std::memcmp(after.v.data(), first.state.v.data(), after.v.size() * sizeof(glm::vec3)),
              0);
  }
}

// ---- the automatic choice and refusals ----

TEST(WholeCgChoice, AutoPicksBySizeAndOverridesWin) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  auto pathFor = [](const CudaOptions& options, const Scene& scene, CgPath* out) {
    std::string why_not;
    auto gpu = createCudaBackend(options, &why_not);
    if (!gpu) return false;
    if (!gpu->load(scene.model, scene.state)) return false;
    return cudaCgPath(*gpu, out);
  };
  const Scene small = makeCloth(16, {}), large = makeCloth(128, {});
  CgPath path = CgPath::kAuto;
  // the default crossover is a measured constant; the rule, not its value, is tested here
  CudaOptions generous;
  generous.one_block_max_particles = 1 << 20;
  ASSERT_TRUE(pathFor(generous, small, &path));
  EXPECT_EQ(path, CgPath::kOneBlock);
  ASSERT_TRUE(pathFor(generous, large, &path));
  EXPECT_EQ(path, CgPath::kGrid);  // 16384 particles: directions too large for shared memory
  ASSERT_TRUE(pathFor(CudaOptions{}, large, &path));
  EXPECT_EQ(path, CgPath::kGrid);
  CudaOptions no_small;
  no_small.one_block_max_particles = 0;
  ASSERT_TRUE(pathFor(no_small, small, &path));
  EXPECT_EQ(path, CgPath::kGrid);
  CudaOptions launches_above;
  launches_above.one_block_max_particles = 0;
  launches_above.grid_max_particles = 100;
  ASSERT_TRUE(pathFor(launches_above, small, &path));
  EXPECT_EQ(path, CgPath::kLaunches);
  ASSERT_TRUE(pathFor(onPath(CgPath::kLaunches), small, &path));
  EXPECT_EQ(path, CgPath::kLaunches);
  ASSERT_TRUE(pathFor(onPath(CgPath::kGrid), small, &path));
  EXPECT_EQ(path, CgPath::kGrid);
}

// Past item 14's old limit (32768): its grid wherever the grid runs, on one lane once the rows
// pass one round (512 threads on every multiprocessor), and beyond that round the grid for short
// rows only (cloth: 12 entries a row) while long ones (volume: 25) take the launched path. The
// volumes are insensitive to rounding, so item 14's grid must match the CPU there: in one round of
// rows (halos staged, entries not: they pass what a block holds) and in rounds on one lane.
TEST(WholeCgChoice, Item14PastOneRoundOfRowsOnOneLaneMatchesCpu) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaDeviceInfo device;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
  const size_t one_round = 512 * size_t(device.multiprocessors);
  // the smallest cloth and volume (res · (res/2)² particles) past `share` of one round
  auto clothPast = [&](double share) {
    int res = 2;
    while (double(res) * res <= share * double(one_round))
      ++res;
    return res;
  };
  auto volumePast = [&](double share) {
    int res = 2;
    while (double(res) * (res / 2) * (res / 2) <= share * double(one_round))
      ++res;
    return res;
  };
  const Scene cloth = makeCloth(clothPast(1.1), {});
  const Scene inside = makeVolume(volumePast(0.8), {}), past = makeVolume(volumePast(1.1), {});
  if (past.model.particleCount() > 131072 || inside.model.particleCount() <= 32768) {
    GTEST_SKIP() << device.multiprocessors << " multiprocessors: one round of rows is " << one_round
                 << " particles, outside what this test covers (64–256 SMs)";
  }
  auto shape = [](const CudaOptions& o, const Scene& scene) {
    std::string why_not;
    auto gpu = createCudaBackend(o, &why_not);
    EXPECT_TRUE(gpu) << why_not;
    CgPath path = CgPath::kAuto;
    if (!gpu || !gpu->load(scene.model, scene.state) || !cudaCgPath(*gpu, &path)) {
      return std::make_tuple(CgPath::kAuto, false, -1);
    }
    return std::make_tuple(path, cudaSingleReduction(*gpu), cudaGatherLanes(*gpu));
  };
  EXPECT_EQ(shape(CudaOptions{}, cloth), std::make_tuple(CgPath::kGrid, true, 1));
  EXPECT_EQ(std::get<0>(shape(CudaOptions{}, past)), CgPath::kLaunches);
  EXPECT_EQ(shape(CudaOptions{}, inside), std::make_tuple(CgPath::kGrid, true, 1));
  EXPECT_EQ(shape(onPath(CgPath::kGrid), past), std::make_tuple(CgPath::kGrid, true, 1));
  CudaOptions forced = onPath(CgPath::kGrid);
  forced.gather_lanes = 2;  // a forced count still wins
  EXPECT_EQ(shape(forced, past), std::make_tuple(CgPath::kGrid, true, 2));
  CudaOptions two_barrier;
  two_barrier.single_reduction_max_particles = 0;  // item 14 off: the grid, its lanes rule
  EXPECT_EQ(std::get<1>(shape(two_barrier, cloth)), false);

  const SolverSettings settings = implicitSettings();
  for (const Scene* scene : {&inside, &past}) {
    SCOPED_TRACE(scene->model.particleCount());
    CpuBackend cpu;
    const Trajectory expected = runSteps(cpu, *scene, settings, 2);
    ASSERT_TRUE(expected.ok) << expected.error;
    const CudaOptions grid = onPath(CgPath::kGrid);
    HOOKE_CUDA_OR_SKIP(first, grid);
    HOOKE_CUDA_OR_SKIP(second, grid);
    const Trajectory a = runSteps(*first, *scene, settings, 2);
    const Trajectory b = runSteps(*second, *scene, settings, 2);
    ASSERT_TRUE(a.ok && b.ok) << a.error << b.error;
    EXPECT_TRUE(cudaSingleReduction(*first));
    EXPECT_TRUE(cudaStagedHalo(*first));
    EXPECT_TRUE(sameBytes(a.state, b.state));
    const double difference = relativeDifference(a.state, expected.state, extentOf(scene->state));
    EXPECT_LE(difference, kTolerance);
    std::printf(
        "[ rounds   ] volume of %zu particles: max|dx|/extent = %.3g, CG its gpu %d cpu %d\n",
        scene->model.particleCount(), difference, totalIterations(a), totalIterations(expected));
  }
}

TEST(WholeCgChoice, ForcedOneBlockTooLargeIsAnErrorNotACrash) {
  HOOKE_CUDA_OR_SKIP(gpu, onPath(CgPath::kOneBlock));
  const Scene scene = makeCloth(256, {});  // 65536 particles: 2.25 MiB of directions
  Status loaded = gpu->load(scene.model, scene.state);
  EXPECT_FALSE(loaded.isOk());
  EXPECT_NE(loaded.message().find("shared memory"), std::string::npos) << loaded.message();
  EXPECT_FALSE(gpu->step(kH, {}, nullptr).isOk());
  // the same backend still takes a model that fits
  const Scene fits = makeCloth(16, {});
  ASSERT_TRUE(gpu->load(fits.model, fits.state).isOk());
  gpu->setSettings(implicitSettings());
  EXPECT_TRUE(gpu->step(kH, {}, nullptr).isOk());
}

TEST(WholeCgChoice, AblationNeedsAKnownNumberInEitherLayout) {
  CudaOptions probe_options;
  std::string why_not;
  if (!createCudaBackend(probe_options, &why_not)) GTEST_SKIP() << why_not;
  CudaOptions bad;
  bad.ablate_static = 6;
  EXPECT_EQ(createCudaBackend(bad, &why_not), nullptr);
  EXPECT_NE(why_not.find("ablate_static"), std::string::npos) << why_not;
  for (bool float4_layout : {true, false}) {
    CudaOptions ablated;
    ablated.ablate_static = 5;
    ablated.float4_layout = float4_layout;
    why_not.clear();
    EXPECT_NE(createCudaBackend(ablated, &why_not), nullptr) << why_not;
  }
}

// ---- item 13: lanes per particle ----

// The factory refuses each of `refused` in the field `set` writes, naming `field`, and accepts
// each of `accepted`.
void expectOptionValues(const char* field, void (*set)(CudaOptions&, int),
                        std::initializer_list<int> refused, std::initializer_list<int> accepted) {
  for (int value : refused) {
    CudaOptions o;
    set(o, value);
    std::string why_not;
    EXPECT_EQ(createCudaBackend(o, &why_not), nullptr) << field << " = " << value;
    EXPECT_NE(why_not.find(field), std::string::npos) << why_not;
  }
  for (int value : accepted) {
    CudaOptions o;
    set(o, value);
    std::string why_not;
    EXPECT_NE(createCudaBackend(o, &why_not), nullptr) << why_not;
  }
}

TEST(GatherLanes, RefusesWhatIsNotAPowerOfTwoUpTo32) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  expectOptionValues("gather_lanes", [](CudaOptions& o, int v) { o.gather_lanes = v; },
                     {-1, 3, 6, 64}, {1, 2, 4, 8, 16, 32});
}

TEST(GridBlock, RefusesWhatIsNotAMultipleOf32UpTo512) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  expectOptionValues("grid_block", [](CudaOptions& o, int v) { o.grid_block = v; },
                     {-1, 16, 100, 544, 1024}, {0, 32, 128, 288, 384, 512});
}

// A block size the kernel cannot run is refused, not quietly replaced: ablation 4 compiles the
// grid kernels with __launch_bounds__(256)
TEST(GridBlock, A512ThreadBlockTheKernelCannotRunIsRefused) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaOptions o;
  o.grid_block = 512;
  o.ablate_static = 4;
  std::string why_not;
  EXPECT_EQ(createCudaBackend(o, &why_not), nullptr);
  EXPECT_NE(why_not.find("grid_block"), std::string::npos) << why_not;
  o.grid_block = 256;
  EXPECT_NE(createCudaBackend(o, &why_not), nullptr) << why_not;
}

// 512-thread grid blocks, with one barrier per iteration and with two, follow the CPU
TEST(GridBlock, A512ThreadGridFollowsTheCpu) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {});
  CpuBackend cpu;
  Trajectory expected = runSteps(cpu, cloth, implicitSettings(), 30);
  ASSERT_TRUE(expected.ok);
  for (int single : {1 << 20, 0}) {
    CudaOptions o = onPath(CgPath::kGrid);
    o.grid_block = 512;
    o.single_reduction_max_particles = single;
    std::string why_not;
    auto gpu = createCudaBackend(o, &why_not);
    ASSERT_TRUE(gpu) << why_not;
    Trajectory actual = runSteps(*gpu, cloth, implicitSettings(), 30);
    ASSERT_TRUE(actual.ok) << actual.error;
    EXPECT_EQ(cudaSingleReduction(*gpu), single > 0);
    EXPECT_LE(relativeDifference(actual.state, expected.state, extentOf(cloth.state)), kTolerance);
  }
}

TEST(GatherBatch, RefusesAnythingBut0And1And3And4) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  expectOptionValues("gather_batch", [](CudaOptions& o, int v) { o.gather_batch = v; },
                     {-1, 2, 5, 8}, {0, 1, 3, 4});
}

// Item 16 changes when loads are issued, not what is summed: the launched path with batches of 3
// and of 4 gives the unbatched run's bytes, for one lane and for several (in one device order:
// item 22, which batches only, off)
TEST(GatherBatch, BatchedLaunchesGiveTheUnbatchedBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  for (const Scene* scene : {&cloth, &volume}) {
    for (int lanes : {1, 4}) {
      State ends[3];
      int k = 0;
      for (int batch : {1, 3, 4}) {
        CudaOptions o = onPath(CgPath::kLaunches);
        o.gather_lanes = lanes;
        o.gather_batch = batch;
        o.stencil_rows = false;
        std::string why_not;
        auto gpu = createCudaBackend(o, &why_not);
        ASSERT_TRUE(gpu) << why_not;
        Trajectory run = runSteps(*gpu, *scene, implicitSettings(), 20);
        ASSERT_TRUE(run.ok) << run.error;
        ASSERT_EQ(cudaGatherBatch(*gpu), batch);
        ends[k++] = run.state;
      }
      EXPECT_TRUE(sameBytes(ends[0], ends[1])) << scene->name << ", " << lanes << " lanes, 3";
      EXPECT_TRUE(sameBytes(ends[0], ends[2])) << scene->name << ", " << lanes << " lanes, 4";
    }
  }
}

// The automatic batch (gather_batch 0): none up to 512 particles per multiprocessor; beyond,
// 3 for rows on one lane through item 37's offset blocks (item 40's walk: cloth and volume in
// item 23's tiles), else two full batches of a lane's share of a row: 3 for cloth without the
// tiles (12 entries on 2 lanes), 4 for the volume there (25 on 4 lanes) and, without the offset
// blocks, for cloth in tiles (12 on 1 lane) and the volume (25 on 2); a forced size wins; 0 off
// the launched path
TEST(GatherBatch, AutomaticSizeFollowsTheEntriesPerLane) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  auto batchFor = [](const CudaOptions& o, const Scene& scene) {
    return askLoaded(o, scene, [](const Backend& b) { return cudaGatherBatch(b); });
  };
  CudaDeviceInfo device;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
  const CudaOptions launched = onPath(CgPath::kLaunches);
  EXPECT_EQ(batchFor(launched, makeCloth(16, {})), 1);
  EXPECT_EQ(batchFor(onPath(CgPath::kGrid), makeCloth(16, {})), 0);
  if (512 * device.multiprocessors < 262144) {
    const Scene cloth = makeCloth(512, {}), volume = makeVolume(102, {});
    if (device.multiprocessors >= 64) {  // the lanes rule's (GatherLanes.Automatic*)
      EXPECT_EQ(batchFor(launched, cloth), 3);
      EXPECT_EQ(batchFor(launched, volume), 3);
      CudaOptions runs = launched;
      runs.offset_blocks = false;
      EXPECT_EQ(batchFor(runs, cloth), 4);
      EXPECT_EQ(batchFor(runs, volume), 4);
      CudaOptions untiled = launched;
      untiled.lattice_tiles = false;
      EXPECT_EQ(batchFor(untiled, cloth), 3);
      EXPECT_EQ(batchFor(untiled, volume), 4);
    }
    CudaOptions one = launched;
    one.gather_lanes = 1;
    EXPECT_EQ(batchFor(one, cloth), 3);
    CudaOptions forced = launched;
    forced.gather_batch = 4;
    EXPECT_EQ(batchFor(forced, cloth), 4);
    forced.gather_batch = 1;
    EXPECT_EQ(batchFor(forced, volume), 1);
  }
}

// Item 17 changes where a grid lane finds its row's entries, not what it sums: held entries give
// the walked run's bytes on both grid kernels, with rows longer than what is held (1 lane: 12 and
// 26 entries), lanes that hold none (16 lanes on a 12-entry cloth row) and, at 65536 particles with
// 4 lanes, rows in later rounds than the held one (4 × 65536 threads: the grid kernels' registers
// keep 512 threads per multiprocessor resident, so this takes more than 512 multiprocessors to
// fit in one round).
TEST(HeldEntries, HeldRowsGiveTheWalkedBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {}), large = makeCloth(256, {});
  struct Case {
    const Scene* scene;
    int lanes, steps;
  };
  for (const Case& c : {Case{&cloth, 1, 20}, Case{&cloth, 16, 20}, Case{&volume, 1, 20},
                        Case{&volume, 4, 20}, Case{&large, 4, 3}}) {
    for (int single : {1 << 20, 0}) {
      State ends[2];
      for (bool hold : {false, true}) {
        CudaOptions o = onPath(CgPath::kGrid);
        o.gather_lanes = c.lanes;
        o.single_reduction_max_particles = single;
        o.hold_entries = hold;
        std::string why_not;
        auto gpu = createCudaBackend(o, &why_not);
        ASSERT_TRUE(gpu) << why_not;
        Trajectory run = runSteps(*gpu, *c.scene, implicitSettings(), c.steps);
        ASSERT_TRUE(run.ok) << run.error;
        ASSERT_EQ(cudaSingleReduction(*gpu), single > 0);
        ends[hold] = run.state;
      }
      EXPECT_TRUE(sameBytes(ends[0], ends[1]))
          << c.scene->name << ", " << c.lanes << " lanes, single reduction " << (single > 0);
    }
  }
}

// Only the default kernels are compiled without held entries: the combination with a static
// ablation is refused with a reason, not run with entries held anyway
TEST(HeldEntries, OffWithAStaticAblationIsRefused) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaOptions o;
  o.hold_entries = false;
  o.ablate_static = 5;
  std::string why_not;
  EXPECT_EQ(createCudaBackend(o, &why_not), nullptr);
  EXPECT_NE(why_not.find("hold_entries"), std::string::npos) << why_not;
  o.ablate_static = 0;
  EXPECT_NE(createCudaBackend(o, &why_not), nullptr) << why_not;
}

namespace staged_test {
struct Case {
  const Scene* scene;
  int lanes, block, interval, steps;
  int entries;  // the entries staged too: 1 (one round of rows), 0 (several), -1 (not asserted)
  bool float4_layout = true;
  bool prefer_l1 = true;
};

// Each case unstaged, with the halos only, with the halos and the entries, and with item 27's
// rows through the halo on top, the entries 20 bytes each (modes 2, 3) and with each block's
// springs once (item 31: modes 4, 5): the same bytes
void expectSameBits(std::initializer_list<Case> cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.scene->name + ", lanes " + std::to_string(c.lanes) + ", block " +
                 std::to_string(c.block) + ", interval " + std::to_string(c.interval) +
                 (c.float4_layout ? "" : ", float3") + (c.prefer_l1 ? "" : ", default carve-out"));
    State ends[6];
    for (int mode : {0, 1, 2, 3, 4, 5}) {
      CudaOptions o = onPath(CgPath::kGrid);
      o.gather_lanes = c.lanes;
      o.grid_block = c.block;
      o.whole_cg_interval = c.interval;
      o.single_reduction_max_particles = 1 << 20;
      o.stage_halo = mode > 0 ? 1 : -1;
      o.stage_entries = mode >= 2;
      o.stage_rows = mode == 3 || mode == 5;
      o.stage_springs = mode >= 4 ? 1 : -1;
      o.float4_layout = c.float4_layout;
      o.prefer_l1 = c.prefer_l1;
      std::string why_not;
      auto gpu = createCudaBackend(o, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      Trajectory run = runSteps(*gpu, *c.scene, implicitSettings(), c.steps);
      ASSERT_TRUE(run.ok) << run.error;
      ASSERT_TRUE(cudaSingleReduction(*gpu));
      bool entries = false, rows = false;
      ASSERT_EQ(cudaStagedHalo(*gpu, &entries, &rows), mode > 0) << "mode " << mode;
      if (c.entries >= 0) {
        EXPECT_EQ(entries, mode >= 2 && c.entries == 1) << "mode " << mode;
        EXPECT_EQ(rows, (mode == 3 || mode == 5) && c.entries == 1) << "mode " << mode;
        EXPECT_EQ(cudaStagedSprings(*gpu), mode >= 4 && c.entries == 1) << "mode " << mode;
      }
      EXPECT_TRUE(!rows || entries) << "mode " << mode;
      ends[mode] = run.state;
    }
    for (int mode = 1; mode < 6; ++mode)
      EXPECT_TRUE(sameBytes(ends[0], ends[mode])) << "mode " << mode;
  }
}
}  // namespace staged_test

// Item 18: staging each block's halo in shared memory, with and without its rows' entries, gives
// the unstaged kernel's bits, with one lane and several, 256- and 512-thread blocks, in one launch
// per solve and in launches of 3 iterations; still staged after the runs (no launch fell back)
TEST(StagedHalo, SameBitsAsTheUnstagedKernel) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  using staged_test::Case;
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  staged_test::expectSameBits({Case{&cloth, 1, 256, 0, 20, 1}, Case{&cloth, 16, 512, 0, 20, 1},
                               Case{&volume, 1, 512, 3, 20, 1}, Case{&volume, 4, 256, 0, 20, 1}});
}

// The same in a few steps, short enough for compute-sanitizer's racecheck: item 27's fill of the
// own rows and its loads after the barrier, with several lanes and in launches of 3 iterations
TEST(StagedHalo, FewStepsGiveTheUnstagedBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  using staged_test::Case;
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  staged_test::expectSameBits({Case{&cloth, 4, 256, 0, 3, 1}, Case{&volume, 2, 512, 3, 3, 1}});
}

// Item 31 where it is for: a volume whose rows' entries pass what a block holds at 20 bytes each
// (the smallest past 8192 entries a block on this device's balanced blocks; 48,778 particles and
// 384-row blocks on the H200) stages each block's springs once, and so runs item 27, by default;
// with item 31 off it stages the halos only. Both give the unstaged kernel's bytes. Where the
// 20-byte entries fit too (volume 26), item 31 is still the automatic form, and off, the 20-byte
// form gives the same bytes.
TEST(StagedHalo, SpringsOnceWhereTheEntriesPassABlockOtherwise) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaDeviceInfo device;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
  if (device.multiprocessors != 132) {
    GTEST_SKIP() << "sized for the H200's 132 multiprocessors (this device: "
                 << device.multiprocessors << ")";
  }
  const Scene volume = makeVolume(58, {});  // 48,778 particles, 24.5 entries a row
  const Scene small = makeVolume(26, {});   // its entries fit at 20 bytes each
  struct Run {
    State state;
    bool staged = false, entries = false, rows = false, springs = false;
  };
  auto run = [&](const Scene& scene, int stage_halo, int stage_springs) {
    CudaOptions o;
    o.stage_halo = stage_halo;
    o.stage_springs = stage_springs;
    Run r;
    std::string why;
    auto gpu = createCudaBackend(o, &why);
    EXPECT_TRUE(gpu) << why;
    if (!gpu) return r;
    Trajectory t = runSteps(*gpu, scene, implicitSettings(), 2);
    EXPECT_TRUE(t.ok) << t.error;
    r.state = t.state;
    r.staged = cudaStagedHalo(*gpu, &r.entries, &r.rows);
    r.springs = cudaStagedSprings(*gpu);
    return r;
  };
  const Run automatic = run(volume, 0, 0), halos = run(volume, 0, -1),
            unstaged = run(volume, -1, 0);
  EXPECT_TRUE(automatic.staged && automatic.entries && automatic.rows && automatic.springs);
  EXPECT_TRUE(halos.staged && !halos.entries && !halos.rows && !halos.springs);
  EXPECT_FALSE(unstaged.staged);
  EXPECT_TRUE(sameBytes(automatic.state, unstaged.state));
  EXPECT_TRUE(sameBytes(halos.state, unstaged.state));
  const Run fits = run(small, 0, 0), wide = run(small, 0, -1);
  EXPECT_TRUE(fits.rows && fits.springs);  // automatic: item 31 wherever it fits
  EXPECT_TRUE(wide.rows && !wide.springs);
  EXPECT_TRUE(sameBytes(fits.state, wide.state));
  expectOptionValues("stage_springs", [](CudaOptions& o, int v) { o.stage_springs = v; }, {-2, 2},
                     {-1, 0, 1});
}

// Item 29: each grid-wide sum formed by a warp of its own, its partials loaded before the fill's,
// gives the bits and iterations of warp 0 forming them all: on item 27's kernel (cloth 16 on 4
// lanes in 256-thread blocks, cloth 32 and volume 26 on item 28's blocks), on item 18's kernel
// without item 27, on the unstaged one-barrier kernel, on the two-barrier kernel, in launches of 3
// iterations, over more blocks than one batch of partials covers (cloth 64 on 16 lanes in
// 256-thread blocks: 256 blocks on the H200, 160 per batch), and in 64-thread blocks, where it
// does not apply (fewer warps than sums). Item 30 likewise: item 27's rows walking their staged
// entries two at a time give the bits of one at a time (the cases above with item 27: lanes that
// walk 0 to 11 entries past the 2 they hold, odd and even counts). Item 33 likewise: the grid
// barrier's last block going on without a poll (every grid kernel) gives the bits and iterations
// of cooperative groups' grid sync. Item 35 likewise: lane k of each row forming its sum k (item
// 27's kernel on 4 lanes (cloth 16), 8 (volume 26) and 16 (cloth 32, cloth 64), and not on 2
// (volume 10)) gives the bits of the first lane forming all three.
TEST(SplitSums, EachSumByItsOwnWarpAndPairedWalksGiveTheSameBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth16 = makeCloth(16, {}), cloth32 = makeCloth(32, {}), cloth64 = makeCloth(64, {});
  const Scene volume10 = makeVolume(10, {}), volume26 = makeVolume(26, {});
  struct Case {
    const char* name;
    const Scene* scene;
    CudaOptions options;
    int steps;
  };
  auto grid = [](int lanes, int block) {
    CudaOptions o = onPath(CgPath::kGrid);
    o.gather_lanes = lanes;
    o.grid_block = block;
    return o;
  };
  std::vector<Case> cases = {{"cloth16-rows", &cloth16, grid(4, 256), 3},
                             {"cloth32-auto", &cloth32, CudaOptions{}, 3},
                             {"volume26-auto", &volume26, CudaOptions{}, 3},
                             {"volume10-staged", &volume10, grid(2, 512), 3},
                             {"cloth64-many-blocks", &cloth64, grid(16, 256), 2},
                             {"cloth16-64-threads", &cloth16, grid(1, 64), 3}};
  CudaOptions staged_only = grid(2, 512);
  staged_only.stage_rows = false;
  cases.push_back({"volume10-staged-only", &volume10, staged_only, 3});
  CudaOptions unstaged = grid(4, 256);
  unstaged.stage_halo = -1;
  cases.push_back({"cloth16-unstaged", &cloth16, unstaged, 3});
  CudaOptions two_barrier = grid(4, 256);
  two_barrier.single_reduction_max_particles = 0;
  cases.push_back({"cloth16-two-barrier", &cloth16, two_barrier, 3});
  CudaOptions in_launches = grid(4, 256);
  in_launches.whole_cg_interval = 3;
  cases.push_back({"cloth16-launches-of-3", &cloth16, in_launches, 3});
  const SolverSettings settings = implicitSettings();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CudaOptions warp0 = c.options, single_walk = c.options, polled = c.options;
    CudaOptions first_lane = c.options;
    warp0.split_sums = false;
    single_walk.paired_walk = false;
    polled.last_arrival = false;   // item 33 off
    first_lane.lane_sums = false;  // item 35 off
    HOOKE_CUDA_OR_SKIP(split, c.options);
    HOOKE_CUDA_OR_SKIP(joined, warp0);
    HOOKE_CUDA_OR_SKIP(walked, single_walk);
    HOOKE_CUDA_OR_SKIP(polling, polled);
    HOOKE_CUDA_OR_SKIP(in_first_lane, first_lane);
    const Trajectory a = runSteps(*split, *c.scene, settings, c.steps);
    const Trajectory b = runSteps(*joined, *c.scene, settings, c.steps);
    const Trajectory d = runSteps(*walked, *c.scene, settings, c.steps);
    const Trajectory f = runSteps(*polling, *c.scene, settings, c.steps);
    const Trajectory l = runSteps(*in_first_lane, *c.scene, settings, c.steps);
    ASSERT_TRUE(a.ok && b.ok && d.ok && f.ok && l.ok)
        << a.error << b.error << d.error << f.error << l.error;
    CgPath path = CgPath::kAuto;
    ASSERT_TRUE(cudaCgPath(*split, &path));
    EXPECT_EQ(path, CgPath::kGrid);
    EXPECT_TRUE(sameBytes(a.state, b.state));
    EXPECT_TRUE(sameBytes(a.state, d.state));
    EXPECT_TRUE(sameBytes(a.state, f.state));
    EXPECT_TRUE(sameBytes(a.state, l.state));
    ASSERT_EQ(a.stats.size(), b.stats.size());
    ASSERT_EQ(a.stats.size(), d.stats.size());
    ASSERT_EQ(a.stats.size(), f.stats.size());
    ASSERT_EQ(a.stats.size(), l.stats.size());
    for (size_t k = 0; k < a.stats.size(); ++k) {
      EXPECT_EQ(a.stats[k].cg_iterations, b.stats[k].cg_iterations) << "step " << k;
      EXPECT_EQ(a.stats[k].cg_iterations, d.stats[k].cg_iterations) << "step " << k;
      EXPECT_EQ(a.stats[k].cg_iterations, f.stats[k].cg_iterations) << "step " << k;
      EXPECT_EQ(a.stats[k].cg_residual, f.stats[k].cg_residual) << "step " << k;
      EXPECT_EQ(a.stats[k].cg_iterations, l.stats[k].cg_iterations) << "step " << k;
      EXPECT_EQ(a.stats[k].cg_residual, l.stats[k].cg_residual) << "step " << k;
    }
    bool rows = false;
    cudaStagedHalo(*split, nullptr, &rows);
    std::printf(
        "[ split    ] %-22s block %3d%s, %d CG iterations, same bits: %s %s %s %s\n", c.name,
        cudaGridBlock(*split), rows ? " (item 27)" : "", totalIterations(a),
        sameBytes(a.state, b.state) ? "yes" : "no", sameBytes(a.state, d.state) ? "yes" : "no",
        sameBytes(a.state, f.state) ? "yes" : "no", sameBytes(a.state, l.state) ? "yes" : "no");
  }
}

// The same on larger grids: two 256-thread blocks on some multiprocessors (volume 26: 138
// blocks, each block's halo then needs its share of a carve-out chosen for two), 512-thread
// blocks of 4 lanes (cloth 128), and several rounds of rows (cloth 256 on 4 lanes: the entries
// are not staged)
TEST(StagedHalo, SameBitsOnLargerGrids) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  using staged_test::Case;
  const Scene volume26 = makeVolume(26, {}), mid = makeCloth(128, {}), large = makeCloth(256, {});
  // one round of rows for volume 26 and cloth 128 on a device of the H200's 132 SMs; cloth 256
  // on 4 lanes needs several rounds on any current GPU
  CudaDeviceInfo device;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
  const int one_round = device.multiprocessors == 132 ? 1 : -1;
  staged_test::expectSameBits({Case{&volume26, 0, 256, 0, 3, one_round},
                               Case{&mid, 0, 0, 0, 4, one_round}, Case{&large, 4, 0, 0, 3, 0}});
}

// Item 27 where a block's halo takes several rounds of its threads: cloth 64 in 64 blocks of 64
// rows and volume 16 in 32 blocks of 32 (one round of rows on any GPU; halos of 2.25 to 6 times
// the block's rows), in one launch per solve and in launches of 3 iterations: the fill's later
// rounds give the unstaged bytes
TEST(StagedHalo, HalosOfSeveralRoundsGiveTheSameBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  using staged_test::Case;
  const Scene cloth64 = makeCloth(64, {}), volume16 = makeVolume(16, {});
  staged_test::expectSameBits({Case{&cloth64, 1, 64, 0, 3, 1}, Case{&volume16, 1, 32, 3, 3, 1}});
}

// The same in the packed float3 layout and with the default carve-out instead of the L1-preferred
// one (then the halo's shared memory comes from the driver's own split), and with one lane and
// several rounds of rows (cloth 384: 147456 rows, more than a grid of 256-thread blocks holds at
// once on any current GPU; one lane takes gatherRows' plain grid-stride loop, not the lanes'
// rounds)
TEST(StagedHalo, SameBitsInFloat3WithTheDefaultCarveOutAndOneLaneInRounds) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  using staged_test::Case;
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {}), large = makeCloth(384, {});
  staged_test::expectSameBits(
      {Case{&cloth, 1, 256, 0, 20, 1, false, true}, Case{&volume, 4, 512, 3, 20, 1, false, false},
       Case{&cloth, 16, 256, 0, 20, 1, true, false}, Case{&large, 1, 256, 0, 2, 0}});
}

// The automatic choice (stage_halo 0) on item 14's kernel: staged wherever item 27 runs (cloth
// 32: one round of rows with its entries staged), and without item 27 for rows of at least 16
// entries on average (volume 16: 20.7) or more than 2 entries per lane (cloth 128: 11.8 over 4
// lanes on a device of 132 SMs), not otherwise (cloth 32: 11.4 over 16 lanes from 64 SMs up);
// never on the two-barrier kernel; a value other than -1, 0 or 1 is refused
TEST(StagedHalo, AutomaticForLongRowsOnItem14sKernelOnly) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  auto staged = [](const CudaOptions& o, const Scene& scene) {
    return askLoaded(o, scene, [](const Backend& b) { return cudaStagedHalo(b); });
  };
  const Scene volume = makeVolume(16, {}), cloth = makeCloth(32, {});
  CudaDeviceInfo device;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
  auto rows = [](const CudaOptions& o, const Scene& scene) {
    return askLoaded(o, scene, [](const Backend& b) {
      bool on = false;
      cudaStagedHalo(b, nullptr, &on);
      return on;
    });
  };
  EXPECT_EQ(staged(CudaOptions{}, volume), 1);
  EXPECT_EQ(staged(CudaOptions{}, cloth), 1);
  EXPECT_EQ(rows(CudaOptions{}, cloth), 1);
  CudaOptions no_rows;
  no_rows.stage_rows = false;
  EXPECT_EQ(staged(no_rows, volume), 1);
  EXPECT_EQ(rows(no_rows, volume), 0);
  if (device.multiprocessors >= 64) EXPECT_EQ(staged(no_rows, cloth), 0);
  if (device.multiprocessors == 132) EXPECT_EQ(staged(no_rows, makeCloth(128, {})), 1);
  CudaOptions on;
  on.stage_halo = 1;
  EXPECT_EQ(staged(on, cloth), 1);
  CudaOptions two = onPath(CgPath::kGrid);
  two.single_reduction_max_particles = 0;
  two.stage_halo = 1;
  EXPECT_EQ(staged(two, volume), 0);
  expectOptionValues("stage_halo", [](CudaOptions& o, int v) { o.stage_halo = v; }, {-2, 2},
                     {-1, 0, 1});
}

// Item 18's halos, on the host (no device needed): block b's own rows come first in the order the
// gather visits them (rounds of threads / lanes rows, `blocks` such chunks apart), then every
// other end of their entries that is not an own row, once each and ascending; each entry's slot
// names its other end and keeps its spring; a halo larger than allowed, or a lane count the
// gather cannot run, refuses the whole build
TEST(StagedHalo, HalosHoldEachBlocksRowsThenTheirNeighbours) {
  const Scene scene = makeCloth(8, {});
  const size_t n = scene.model.particleCount(), springs = scene.model.springCount();
  std::vector<uint32_t> row_start(n + 1, 0);
  for (const glm::uvec2& e : scene.model.spring_ends) {
    ++row_start[e.x + 1];
    ++row_start[e.y + 1];
  }
  for (size_t i = 0; i < n; ++i)
    row_start[i + 1] += row_start[i];
  struct Pair {
    int32_t x, y;  // spring, other end (~other end at the spring's j end)
  };
  std::vector<Pair> adjacency(2 * springs);
  std::vector<uint32_t> fill(row_start.begin(), row_start.end() - 1);
  for (size_t s = 0; s < springs; ++s) {
    const glm::uvec2 e = scene.model.spring_ends[s];
    adjacency[fill[e.x]++] = Pair{int32_t(s), int32_t(e.y)};
    adjacency[fill[e.y]++] = Pair{int32_t(s), ~int32_t(e.x)};
  }
  const int32_t* pairs = &adjacency[0].x;
  // 3 blocks of 64 threads, 4 lanes: 16 rows a round, rounds 48 rows apart over 64 particles
  cuda::StagedHalo h;
  ASSERT_TRUE(cuda::buildStagedHalo(3, 64, 4, row_start, pairs, 4096, &h));
  ASSERT_EQ(h.start.size(), 4u);
  EXPECT_EQ(h.start.front(), 0u);
  EXPECT_EQ(h.start.back(), h.halo.size());
  ASSERT_EQ(h.entries.size(), 2 * adjacency.size());
  const std::vector<std::vector<uint32_t>> own = {
      {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
       48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63},
      {16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
      {32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47}};
  uint32_t largest = 0, checked = 0;
  for (uint32_t b = 0; b < 3; ++b) {
    SCOPED_TRACE("block " + std::to_string(b));
    const std::vector<uint32_t> halo(h.halo.begin() + h.start[b], h.halo.begin() + h.start[b + 1]);
    largest = std::max(largest, uint32_t(halo.size()));
    ASSERT_GE(halo.size(), own[b].size());
    EXPECT_TRUE(std::equal(own[b].begin(), own[b].end(), halo.begin()));
    std::vector<uint32_t> expected_outside;
    for (uint32_t i : own[b]) {
      for (uint32_t e = row_start[i]; e < row_start[i + 1]; ++e) {
        const uint32_t other = uint32_t(adjacency[e].y < 0 ? ~adjacency[e].y : adjacency[e].y);
        if (std::find(own[b].begin(), own[b].end(), other) == own[b].end())
          expected_outside.push_back(other);
        const uint32_t spring = h.entries[2 * e], slot = h.entries[2 * e + 1];
        ASSERT_LT(slot, halo.size());
        EXPECT_EQ(halo[slot], other) << "entry " << e;
        EXPECT_EQ(spring, uint32_t(adjacency[e].x)) << "entry " << e;
        ++checked;
      }
    }
    std::sort(expected_outside.begin(), expected_outside.end());
    expected_outside.erase(std::unique(expected_outside.begin(), expected_outside.end()),
                           expected_outside.end());
    EXPECT_FALSE(expected_outside.empty());
    EXPECT_TRUE(std::equal(expected_outside.begin(), expected_outside.end(),
                           halo.begin() + own[b].size(), halo.end()));
    EXPECT_EQ(halo.size(), own[b].size() + expected_outside.size());
  }
  EXPECT_EQ(checked, adjacency.size());  // every entry belongs to one block's rows
  EXPECT_EQ(h.slots, largest);
  EXPECT_EQ(h.entry_slots, 0u);  // two rounds of rows: the entries are not staged
  // one round (4 blocks of 16 rows): the most entries one block's rows have
  cuda::StagedHalo one;
  ASSERT_TRUE(cuda::buildStagedHalo(4, 64, 4, row_start, pairs, 4096, &one));
  uint32_t most = 0;
  for (uint32_t b = 0; b < 4; ++b)
    most = std::max(most, row_start[16 * (b + 1)] - row_start[16 * b]);
  EXPECT_GT(most, 0u);
  EXPECT_EQ(one.entry_slots, most);
  // item 31: each block's springs once, in the order its entries first name them; every entry's
  // word gives back its spring and its slot
  EXPECT_TRUE(h.spring_start.empty() && h.springs.empty() && h.words.empty());  // two rounds
  EXPECT_EQ(h.spring_slots, 0u);
  ASSERT_EQ(one.spring_start.size(), 5u);
  ASSERT_EQ(one.words.size(), adjacency.size());
  EXPECT_EQ(one.spring_start.back(), one.springs.size());
  uint32_t most_springs = 0;
  for (uint32_t b = 0; b < 4; ++b) {
    SCOPED_TRACE("one round, block " + std::to_string(b));
    const std::vector<uint32_t> own_springs(one.springs.begin() + one.spring_start[b],
                                            one.springs.begin() + one.spring_start[b + 1]);
    most_springs = std::max(most_springs, uint32_t(own_springs.size()));
    std::vector<uint32_t> expected;  // first appearance among the block's entries
    for (uint32_t e = row_start[16 * b]; e < row_start[16 * (b + 1)]; ++e) {
      const uint32_t spring = uint32_t(adjacency[e].x);
      if (std::find(expected.begin(), expected.end(), spring) == expected.end())
        expected.push_back(spring);
      const uint32_t word = one.words[e];
      ASSERT_LT(word & 0xffffu, own_springs.size()) << "entry " << e;
      EXPECT_EQ(own_springs[word & 0xffffu], spring) << "entry " << e;
      EXPECT_EQ(word >> 16, one.entries[2 * e + 1]) << "entry " << e;
    }
    EXPECT_EQ(own_springs, expected);
    // a spring with both ends in the block's rows is named once, not twice
    EXPECT_LT(own_springs.size(), row_start[16 * (b + 1)] - row_start[16 * b]);
  }
  EXPECT_EQ(one.spring_slots, most_springs);
  cuda::StagedHalo refused;
  EXPECT_FALSE(cuda::buildStagedHalo(3, 64, 4, row_start, pairs, largest - 1, &refused));
  EXPECT_TRUE(refused.halo.empty());
  EXPECT_TRUE(cuda::buildStagedHalo(3, 64, 4, row_start, pairs, largest, &refused));
  // lanes the gather cannot run (not a power of two dividing 32 and the block) are refused
  EXPECT_FALSE(cuda::buildStagedHalo(3, 64, 3, row_start, pairs, 4096, &refused));
  EXPECT_FALSE(cuda::buildStagedHalo(3, 64, 64, row_start, pairs, 4096, &refused));
  EXPECT_FALSE(cuda::buildStagedHalo(3, 48, 32, row_start, pairs, 4096, &refused));
}

// CudaOptions::grid_block 0 without item 28: 512-thread blocks once the grid's threads (particles
// × lanes) would fill more than 1.25 blocks of 256 per multiprocessor, else 256; a forced size
// wins; off the grid path, 0
TEST(GridBlock, AutomaticSizeFollowsTheThreadsPerMultiprocessor) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaDeviceInfo device;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
  for (int res : {16, 32, 64, 128, 256}) {
    SCOPED_TRACE("cloth " + std::to_string(res));
    const Scene scene = makeCloth(res, {});
    for (int forced : {0, 256, 512}) {
      CudaOptions o = onPath(CgPath::kGrid);
      o.balance_grid = false;
      o.grid_block = forced;
      auto gpu = createCudaBackend(o, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      ASSERT_TRUE(gpu->load(scene.model, scene.state));
      const double threads = double(scene.model.particleCount()) * cudaGatherLanes(*gpu);
      const int automatic = threads > 1.25 * 256.0 * device.multiprocessors ? 512 : 256;
      EXPECT_EQ(cudaGridBlock(*gpu), forced != 0 ? forced : automatic);
    }
  }
  // the H200 (132 multiprocessors): cloth 64 on 256, cloth 128 on 512
  if (device.multiprocessors == 132) {
    for (auto [res, block] : {std::pair{64, 256}, std::pair{128, 512}}) {
      CudaOptions o = onPath(CgPath::kGrid);
      o.balance_grid = false;
      auto gpu = createCudaBackend(o, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      const Scene scene = makeCloth(res, {});
      ASSERT_TRUE(gpu->load(scene.model, scene.state));
      EXPECT_EQ(cudaGridBlock(*gpu), block) << "cloth " << res;
    }
  }
  auto launched = createCudaBackend(onPath(CgPath::kLaunches), &why_not);
  ASSERT_TRUE(launched) << why_not;
  const Scene scene = makeCloth(16, {});
  ASSERT_TRUE(launched->load(scene.model, scene.state));
  EXPECT_EQ(cudaGridBlock(*launched), 0);
}

// Item 28 (CudaOptions::balance_grid): item 14's grid in blocks of ceil(particles /
// multiprocessors) rows rounded up to whole warps, where those are at most 512 threads, so no
// multiprocessor gathers two blocks; elsewhere (more threads, two barriers, a forced size) the
// block of the rule above
TEST(GridBlock, BalancedBlocksGiveEachMultiprocessorAtMostOne) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaDeviceInfo device;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
  const size_t sms = size_t(device.multiprocessors);
  int balanced_seen = 0;
  for (bool cloth : {true, false}) {
    for (int res : cloth ? std::vector<int>{16, 24, 48, 64, 96, 128, 256}
                         : std::vector<int>{12, 16, 26, 33, 41}) {
      const Scene scene = cloth ? makeCloth(res, {}) : makeVolume(res, {});
      const size_t n = scene.model.particleCount();
      SCOPED_TRACE(std::string(cloth ? "cloth " : "volume ") + std::to_string(res));
      for (int forced : {0, 256}) {
        for (int single : {32768, 0}) {
          CudaOptions o = onPath(CgPath::kGrid);
          o.balance_grid = true;
          o.grid_block = forced;
          o.single_reduction_max_particles = single;
          auto gpu = createCudaBackend(o, &why_not);
          ASSERT_TRUE(gpu) << why_not;
          ASSERT_TRUE(gpu->load(scene.model, scene.state));
          const size_t lanes = size_t(cudaGatherLanes(*gpu)), per_warp = 32 / lanes;
          const size_t rows = ((n + sms - 1) / sms + per_warp - 1) / per_warp * per_warp;
          const double threads = double(n) * double(lanes);
          const int rule = threads > 1.25 * 256.0 * double(sms) ? 512 : 256;
          const bool balanced = forced == 0 && cudaSingleReduction(*gpu) && rows * lanes <= 512;
          const int expected = forced != 0 ? forced : balanced ? int(rows * lanes) : rule;
          EXPECT_EQ(cudaGridBlock(*gpu), expected) << "forced " << forced << ", single " << single;
          if (balanced) {
            EXPECT_LE((n + rows - 1) / rows, sms);  // blocks
            ++balanced_seen;
          }
        }
      }
    }
  }
  // up to 65536 particles on a device of 128 multiprocessors or more
  if (sms >= 128) EXPECT_GE(balanced_seen, 10);
  // the H200 (132 multiprocessors): volume 26 (4394 particles, 8 lanes) in 123 blocks of 36 rows,
  // cloth 128 (16384 particles, 4 lanes) in 128 blocks of 128
  if (sms == 132) {
    for (auto [cloth, res, block] : {std::tuple{false, 26, 288}, std::tuple{true, 128, 512}}) {
      CudaOptions o = onPath(CgPath::kGrid);
      o.balance_grid = true;
      auto gpu = createCudaBackend(o, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      const Scene scene = cloth ? makeCloth(res, {}) : makeVolume(res, {});
      ASSERT_TRUE(gpu->load(scene.model, scene.state));
      EXPECT_EQ(cudaGridBlock(*gpu), block) << res;
    }
  }
}

// The automatic rule (CudaBackend::lanesFor). Up to 512 particles per multiprocessor, lanes
// double while twice as many gather threads stay within 512 per multiprocessor, at most a power
// of two at or above the entries per row (cloth 11.4, volume 20.7) and 16, and at most the largest
// power of two a row fills (cloth 8) once that cap's threads would pass half the 512: 1024
// particles of volume take 16 on any device with 32 multiprocessors or more, of cloth 16 from 64
// multiprocessors and 8 from 16; 4096 cloth particles 8 on 64 to 255 multiprocessors (the H200:
// 132); a 2-particle spring 1; 65536 cloth particles 1 on fewer than 256 multiprocessors. Above
// that size the launched path batches its loads (item 16) and takes the power of two nearest a
// sixth of the row, a twelfth where it gathers item 23's lattice tiles, the whole row where those
// read item 37's offset blocks: 262144 cloth particles (more than 512 × the SMs of any current
// GPU) 1 in tiles, 2 without; a 137842-particle volume (25.3 entries per row) 1 in tiles, 2 in
// tiles without offset blocks, 4 untiled. A forced count wins.
TEST(GatherLanes, AutomaticCountFollowsSizeAndSpringsPerParticle) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  auto lanesFor = [](const CudaOptions& options, const Scene& scene) {
    std::string why_not;
    auto gpu = createCudaBackend(options, &why_not);
    if (!gpu || !gpu->load(scene.model, scene.state)) return -1;
    return cudaGatherLanes(*gpu);
  };
  const Scene cloth = makeCloth(32, {}), volume = makeVolume(16, {}), spring = makeSpring1d({});
  CudaDeviceInfo device;
  std::string why_not;
  ASSERT_TRUE(queryCudaDevice(0, &device, &why_not)) << why_not;
  // 1024 particles: 16 lanes from 32 SMs up (the H200: 132), 8 from 16 (an RTX 3050: 20), 4 from 8
  const int sms = device.multiprocessors;
  const int small = sms >= 32 ? 16 : sms >= 16 ? 8 : sms >= 8 ? 4 : sms >= 4 ? 2 : 1;
  const int small_cloth = sms >= 64 ? 16 : std::min(small, 8);
  for (CgPath path : {CgPath::kGrid, CgPath::kLaunches}) {
    SCOPED_TRACE(cgPathName(path));
    EXPECT_EQ(lanesFor(onPath(path), cloth), small_cloth);
    EXPECT_EQ(lanesFor(onPath(path), volume), small);
    if (sms >= 64 && sms < 256) EXPECT_EQ(lanesFor(onPath(path), makeCloth(64, {})), 8);
    EXPECT_EQ(lanesFor(onPath(path), spring), 1);
    CudaOptions forced = onPath(path);
    forced.gather_lanes = 2;
    EXPECT_EQ(lanesFor(forced, cloth), 2);
  }
  const Scene large_cloth = makeCloth(512, {}), large_volume = makeVolume(82, {});
  CudaOptions untiled = onPath(CgPath::kLaunches);
  untiled.lattice_tiles = false;
  EXPECT_EQ(lanesFor(onPath(CgPath::kLaunches), large_cloth), 1);
  EXPECT_EQ(lanesFor(untiled, large_cloth), 2);
  if (512 * sms < 137842) {
    CudaOptions spring_runs = onPath(CgPath::kLaunches);
    spring_runs.offset_blocks = false;
    EXPECT_EQ(lanesFor(onPath(CgPath::kLaunches), large_volume), 1);
    EXPECT_EQ(lanesFor(spring_runs, large_volume), 2);
    EXPECT_EQ(lanesFor(untiled, large_volume), 4);
  }
  CudaOptions unbatched = onPath(CgPath::kLaunches);
  unbatched.gather_batch = 1;  // a third of the row without item 16
  EXPECT_EQ(lanesFor(unbatched, makeCloth(512, {})), 4);
  if (512 * sms < 2 * 65536) EXPECT_EQ(lanesFor(onPath(CgPath::kGrid), makeCloth(256, {})), 1);
  // one block holds at most its own threads (1024 on sm_86 and sm_90): 1024 cloth particles leave
  // no room for a second lane, 256 particles room for 4
  EXPECT_EQ(lanesFor(onPath(CgPath::kOneBlock), cloth), 1);
  EXPECT_EQ(lanesFor(onPath(CgPath::kOneBlock), makeCloth(16, {})), 4);
}

}  // namespace
}  // namespace hooke
