// Shared helpers of the GPU tests (tests/cuda): run a backend for a number of steps, compare
// trajectories, skip where there is no device. Header-only; every test file includes it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.h"
#include "sim/backend.h"
#include "sim/locality_order.h"
#include "sim/model.h"
#include "sim/scenes.h"

namespace hooke::cuda_test {

inline constexpr float kH = 0.01f;  // dt = 0.01, skip 0: h = dt
inline constexpr int kSteps = 100;
inline constexpr double kTolerance = 1e-4;  // max |x_gpu − x_cpu| / scene extent

// Declares `var`, a CUDA backend made with `options`, or skips the test with the reason.
#define HOOKE_CUDA_OR_SKIP(var, options)                                     \
  std::string var##_why_not;                                                 \
  std::unique_ptr<Backend> var = createCudaBackend(options, &var##_why_not); \
  if (!var) GTEST_SKIP() << "no usable CUDA device: " << var##_why_not

// The diagonal of the state's bounding box (at least 1e-6).
inline double extentOf(const State& state) {
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
  for (const glm::vec3& x : state.x) {
    lo = glm::min(lo, x);
    hi = glm::max(hi, x);
  }
  return std::max(1e-6, double(glm::length(hi - lo)));
}

inline bool allFinite(const State& state) {
  for (size_t i = 0; i < state.x.size(); ++i) {
    for (int c = 0; c < 3; ++c) {
      if (!std::isfinite(state.x[i][c]) || !std::isfinite(state.v[i][c])) return false;
    }
  }
  return true;
}

// max_i |a_i − b_i| / extent; infinity when the sizes differ or either state is not finite
inline double relativeDifference(const State& a, const State& b, double extent) {
  if (a.x.size() != b.x.size() || !allFinite(a) || !allFinite(b)) {
    return std::numeric_limits<double>::infinity();
  }
  double worst = 0.0;
  for (size_t i = 0; i < a.x.size(); ++i) {
    worst = std::max(worst, double(glm::length(a.x[i] - b.x[i])));
  }
  return worst / extent;
}

inline bool sameBytes(const State& a, const State& b) {
  return a.x.size() == b.x.size() && a.v.size() == b.v.size() &&
         std::memcmp(a.x.data(), b.x.data(), a.x.size() * sizeof(glm::vec3)) == 0 &&
         std::memcmp(a.v.data(), b.v.data(), a.v.size() * sizeof(glm::vec3)) == 0;
}

// The CSR adjacency the backend builds and uploads: springs as ends (in device slots), per row
// its springs in increasing order as (spring, other end, or ~other end at the spring's j end)
struct Adjacency {
  std::vector<glm::uvec2> ends;
  std::vector<uint32_t> row_start;
  std::vector<int32_t> pairs;
};

inline Adjacency adjacencyOf(size_t n, std::vector<glm::uvec2> ends) {
  Adjacency a;
  a.ends = std::move(ends);
  a.row_start.assign(n + 1, 0);
  for (const glm::uvec2& e : a.ends) {
    ++a.row_start[e.x + 1];
    ++a.row_start[e.y + 1];
  }
  for (size_t i = 0; i < n; ++i)
    a.row_start[i + 1] += a.row_start[i];
  a.pairs.resize(4 * a.ends.size());
  std::vector<uint32_t> fill(a.row_start.begin(), a.row_start.end() - 1);
  for (size_t s = 0; s < a.ends.size(); ++s) {
    const glm::uvec2 e = a.ends[s];
    const uint32_t at_x = fill[e.x]++, at_y = fill[e.y]++;
    a.pairs[2 * at_x] = int32_t(s);
    a.pairs[2 * at_x + 1] = int32_t(e.y);
    a.pairs[2 * at_y] = int32_t(s);
    a.pairs[2 * at_y + 1] = ~int32_t(e.x);
  }
  return a;
}

// `scene` with its springs sorted as springsByEnds sorts them (by lower, then higher end), so a
// backend that sorts them finds them already in its order
inline Scene springsSortedByEnds(const Scene& scene) {
  const LocalityOrder order = springsByEnds(scene.model);
  Scene out = scene;
  Model& m = out.model;
  for (size_t s = 0; s < order.spring.size(); ++s) {
    const uint32_t from = order.spring[s];
    m.spring_ends[s] = scene.model.spring_ends[from];
    m.rest_length[s] = scene.model.rest_length[from];
    m.stiffness[s] = scene.model.stiffness[from];
    m.damping[s] = scene.model.damping[from];
  }
  return out;
}

// Loads `scene` on a new CUDA backend made with `options` and returns what ask(backend) says of
// it (a hook such as cudaGatherBatch), or -1 when the backend cannot be made or the scene loaded.
template <typename Ask>
int askLoaded(const CudaOptions& options, const Scene& scene, Ask ask) {
  std::string why_not;
  std::unique_ptr<Backend> gpu = createCudaBackend(options, &why_not);
  EXPECT_TRUE(gpu) << why_not;
  if (!gpu || !gpu->load(scene.model, scene.state)) return -1;
  return int(ask(*gpu));
}

// The result of loading a scene and stepping it: the final state and every step's stats, or the
// first error.
struct Trajectory {
  State state;
  std::vector<StepStats> stats;
  bool ok = true;
  std::string error;
};

// Loads `scene`, applies `settings` and takes `steps` steps of h with `external` forces (one per
// particle, or empty).
inline Trajectory runSteps(Backend& backend, const Scene& scene, const SolverSettings& settings,
                           int steps, std::span<const glm::vec3> external = {}, float h = kH) {
  Trajectory run;
  Status loaded = backend.load(scene.model, scene.state);
  if (!loaded) {
    run.ok = false;
    run.error = loaded.message();
    return run;
  }
  backend.setSettings(settings);
  for (int k = 0; k < steps; ++k) {
    StepStats s;
    Status stepped = backend.step(h, external, &s);
    if (!stepped) {
      run.ok = false;
      run.error = "step " + std::to_string(k) + ": " + stepped.message();
      return run;
    }
    run.stats.push_back(s);
  }
  backend.readState(&run.state);
  return run;
}

// A material for the newton and bdf2 parity tests on cloth and volume: stiff enough that a step
// takes several Newton iterations, damped enough that Newton converges within its cap and the
// trajectory is insensitive to rounding. Measured on the CPU over 100 steps of 0.01 s (cloth 16,
// volume 8): a 1e-7 perturbation of the start moves the end state by at most 1e-5 of the extent,
// and Newton tolerances 0.7× and 1.4× the default (different iteration counts in many steps) by
// at most 6e-5. The default materials are not: Newton hits its cap in most steps and cloth bdf2
// moves by 3e-3 of its extent under the same 1e-7 perturbation.
inline Material convergingMaterial() {
  Material m;
  m.stiffness = 1000.0f;
  m.damping = 0.5f;
  m.drag = 0.05f;
  return m;
}

inline SolverSettings settingsFor(Integrator integrator) {
  SolverSettings settings;
  settings.integrator = integrator;
  return settings;
}

// A configuration of the launched path for the tests that a change inside its CG iteration gives
// the same bits and iterations.
struct LaunchedCase {
  std::string name;
  CudaOptions options;
  SolverSettings settings;
};

// The launched path with graphs of 1, 3 and 8 iterations and without graphs, on item 22's stencil
// rows in item 23's tiles (batches of 3 at the tests' sizes), warm-started, in packed float3,
// under Newton's and BDF2's repeated solves, and with a cap of 7 iterations in the middle of a
// graph of 8.
inline std::vector<LaunchedCase> launchedCases() {
  auto launched = [] {
    CudaOptions o;
    o.cg_path = CgPath::kLaunches;
    return o;
  };
  const SolverSettings implicit = settingsFor(Integrator::kImplicit);
  std::vector<LaunchedCase> cases;
  for (int k : {1, 3, 8}) {
    CudaOptions o = launched();
    o.check_interval = k;
    cases.push_back({"graph of " + std::to_string(k), o, implicit});
  }
  CudaOptions o = launched();
  o.cg_graph = false;
  cases.push_back({"stream", o, implicit});
  o = launched();
  o.gather_batch = 3;
  cases.push_back({"stencil tiles", o, implicit});
  o = launched();
  o.warm_start = true;
  cases.push_back({"warm", o, implicit});
  o = launched();
  o.float4_layout = false;
  cases.push_back({"float3", o, implicit});
  cases.push_back({"newton", launched(), settingsFor(Integrator::kNewton)});
  cases.push_back({"bdf2", launched(), settingsFor(Integrator::kBdf2)});
  SolverSettings capped = implicit;
  capped.max_iterations = 7;
  cases.push_back({"cap 7 in graphs of 8", launched(), capped});
  return cases;
}

// Two runs that must agree bit for bit: both ran, the same final bytes, and the same CG
// iterations and convergence in every step.
inline void expectSameBitsAndIterations(const Trajectory& a, const Trajectory& b) {
  ASSERT_TRUE(a.ok) << a.error;
  ASSERT_TRUE(b.ok) << b.error;
  EXPECT_TRUE(sameBytes(a.state, b.state));
  ASSERT_EQ(a.stats.size(), b.stats.size());
  for (size_t k = 0; k < a.stats.size(); ++k) {
    ASSERT_EQ(a.stats[k].cg_iterations, b.stats[k].cg_iterations) << "step " << k;
    ASSERT_EQ(a.stats[k].cg_converged, b.stats[k].cg_converged) << "step " << k;
  }
}

// The cooperative grid path with `lanes` gather lanes in blocks of `block` threads
inline CudaOptions gridOptions(int lanes, int block) {
  CudaOptions o;
  o.cg_path = CgPath::kGrid;
  o.gather_lanes = lanes;
  o.grid_block = block;
  return o;
}

// The launched path in the plain launch order: at small sizes item 21's dependent launches would
// otherwise keep item 26's update and direction kernels apart
inline CudaOptions launchedInPlainOrder() {
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  o.dependent_launch_max_particles = 0;
  return o;
}

// Whether a loaded backend runs item 26's joined update and direction kernel
// Whether a loaded backend runs item 27's kernel (its halos, entries and own rows staged)
inline bool stagedRowsRun(const Backend& backend) {
  bool rows = false;
  cudaStagedHalo(backend, nullptr, &rows);
  return rows;
}

inline bool joinedKernelRuns(const Backend& backend) {
  return cudaDirectionInUpdate(backend) >= 1;
}

// One switch of CudaOptions off, then on, from `options`; each backend checked to run it or not
// (`in_use`) and, where given, to run what both runs need (`needed`, true in both)
struct SwitchRuns {
  Trajectory off, on;
};
inline SwitchRuns runSwitchBothWays(bool CudaOptions::*item, bool (*in_use)(const Backend&),
                                    bool (*needed)(const Backend&), const CudaOptions& options,
                                    const Scene& scene, const SolverSettings& settings, int steps) {
  SwitchRuns out;
  for (bool on : {false, true}) {
    CudaOptions o = options;
    o.*item = on;
    std::string why_not;
    std::unique_ptr<Backend> gpu = createCudaBackend(o, &why_not);
    EXPECT_TRUE(gpu) << why_not;
    if (!gpu) return out;
    Trajectory run = runSteps(*gpu, scene, settings, steps);
    EXPECT_EQ(in_use(*gpu), on);
    if (needed != nullptr) EXPECT_TRUE(needed(*gpu));
    (on ? out.on : out.off) = run;
  }
  return out;
}

// A switch that must not change the bits: for every scene and case (in the plain launch order),
// its two runs of `steps` steps give the same bytes and CG iterations, and the scene moved
inline void expectSwitchKeepsBits(bool CudaOptions::*item, bool (*in_use)(const Backend&),
                                  bool (*needed)(const Backend&),
                                  const std::vector<LaunchedCase>& cases,
                                  std::initializer_list<const Scene*> scenes, int steps) {
  for (const Scene* scene : scenes) {
    for (const LaunchedCase& c : cases) {
      SCOPED_TRACE(scene->name + ", " + c.name);
      CudaOptions plain = c.options;
      plain.dependent_launch_max_particles = 0;
      const SwitchRuns runs =
          runSwitchBothWays(item, in_use, needed, plain, *scene, c.settings, steps);
      expectSameBitsAndIterations(runs.off, runs.on);
      EXPECT_GT(relativeDifference(runs.on.state, scene->state, extentOf(scene->state)), 1e-4);
    }
  }
}

// CG iterations summed over every step.
inline int totalIterations(const Trajectory& run) {
  int sum = 0;
  for (const StepStats& s : run.stats)
    sum += s.cg_iterations;
  return sum;
}

// One case of a switch's test: a scene, the options it runs under, the solver's settings and how
// many steps.
struct SwitchCase {
  std::string name;
  const Scene* scene;
  CudaOptions options;
  SolverSettings settings;
  int steps;
};

// The solver variants an item-27 switch is checked under, appended to `cases`: `cloth` under
// `cloth_options` in launches of 3 iterations (each launch starts from global memory again),
// warm-started and in packed float3; `volume` under `volume_options` with Newton's repeated
// solves; `cloth` again under BDF2 and capped at 2 iterations a solve
inline void appendSolverVariants(std::vector<SwitchCase>* cases, const Scene& cloth,
                                 const CudaOptions& cloth_options, const Scene& volume,
                                 const CudaOptions& volume_options) {
  const SolverSettings implicit = settingsFor(Integrator::kImplicit);
  CudaOptions o = cloth_options;
  o.whole_cg_interval = 3;
  cases->push_back({cloth.name + " launches of 3", &cloth, o, implicit, 20});
  o = cloth_options;
  o.warm_start = true;
  cases->push_back({cloth.name + " warm", &cloth, o, implicit, 20});
  o = cloth_options;
  o.float4_layout = false;
  cases->push_back({cloth.name + " float3", &cloth, o, implicit, 20});
  cases->push_back(
      {volume.name + " newton", &volume, volume_options, settingsFor(Integrator::kNewton), 10});
  cases->push_back(
      {cloth.name + " bdf2", &cloth, cloth_options, settingsFor(Integrator::kBdf2), 10});
  SolverSettings capped = implicit;
  capped.max_iterations = 2;
  cases->push_back({cloth.name + " cap 2", &cloth, cloth_options, capped, 20});
}

// Short solves: 4 steps of `scene` capped at 6 iterations a solve, under `off` and under `on`
// (small enough for compute-sanitizer's racecheck): `in_use` false for the first backend and true
// for the second, the same bytes and iterations, and every solve past the first step (from rest)
// at the cap.
inline void expectShortSolvesKeepBits(const CudaOptions& off, const CudaOptions& on,
                                      const Scene& scene, bool (*in_use)(const Backend&)) {
  SolverSettings settings = settingsFor(Integrator::kImplicit);
  settings.max_iterations = 6;
  std::string why_off, why_on;
  std::unique_ptr<Backend> without = createCudaBackend(off, &why_off);
  std::unique_ptr<Backend> with = createCudaBackend(on, &why_on);
  ASSERT_TRUE(without && with) << why_off << why_on;
  const Trajectory a = runSteps(*without, scene, settings, 4);
  const Trajectory b = runSteps(*with, scene, settings, 4);
  ASSERT_TRUE(a.ok && b.ok) << a.error << b.error;
  EXPECT_FALSE(in_use(*without));
  EXPECT_TRUE(in_use(*with));
  expectSameBitsAndIterations(a, b);
  ASSERT_EQ(b.stats.size(), 4u);
  for (size_t k = 1; k < 4; ++k)
    EXPECT_EQ(b.stats[k].cg_iterations, 6) << "step " << k;
}

}  // namespace hooke::cuda_test
