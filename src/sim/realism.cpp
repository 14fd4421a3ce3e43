// The realism measures; see realism.h and docs/EVALUATION.md for the formulas.
#include "sim/realism.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numbers>

#include "sim/cpu_backend.h"
#include "sim/metrics.h"
#include "sim/simulation.h"

namespace hooke {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A CPU simulation of the scene with one solve per tick at step dt.
Simulation makeSimulation(const Scene& scene, Integrator integrator, double dt,
                          SolverSettings settings) {
  auto backend = std::make_unique<CpuBackend>();
  (void)backend->load(scene.model, scene.state);  // cannot fail: the state matches the model
  settings.integrator = integrator;
  backend->setSettings(settings);
  return Simulation(std::move(backend), scene.model, scene.state, dt, 0);
}

struct Fnv {
  uint64_t hash = 1469598103934665603ull;
  void bytes(const void* data, size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) {
      hash ^= p[i];
      hash *= 1099511628211ull;
    }
  }
  template <typename T>
  void vec(const std::vector<T>& v) {
    const uint64_t n = v.size();
    bytes(&n, sizeof n);
    if (!v.empty()) bytes(v.data(), v.size() * sizeof(T));
  }
  template <typename T>
  void value(const T& v) {
    bytes(&v, sizeof v);
  }
};

}  // namespace

// ---- signal analysis ----------------------------------------------------------------------------

std::vector<Peak> findPeaks(std::span<const double> t, std::span<const double> u) {
  std::vector<Peak> peaks;
  const size_t n = std::min(t.size(), u.size());
  for (size_t i = 1; i + 1 < n; ++i) {
    if (!(u[i - 1] < u[i] && u[i] >= u[i + 1])) continue;
    const double h = t[i] - t[i - 1];
    const double curvature = u[i - 1] - 2.0 * u[i] + u[i + 1];
    Peak p{t[i], u[i]};
    if (curvature < 0.0) {
      const double offset = 0.5 * (u[i - 1] - u[i + 1]) / curvature;  // in samples, |.| <= 1/2
      p.time = t[i] + h * offset;
      p.value = u[i] - 0.25 * (u[i - 1] - u[i + 1]) * offset;
    }
    peaks.push_back(p);
  }
  return peaks;
}

std::vector<double> upwardZeroCrossings(std::span<const double> t, std::span<const double> u) {
  std::vector<double> crossings;
  const size_t n = std::min(t.size(), u.size());
  for (size_t i = 0; i + 1 < n; ++i) {
    if (u[i] < 0.0 && u[i + 1] >= 0.0) {
      crossings.push_back(t[i] + (t[i + 1] - t[i]) * (-u[i]) / (u[i + 1] - u[i]));
    }
  }
  return crossings;
}

bool fitOscillation(std::span<const double> t, std::span<const double> u, OscillationFit* out) {
  const std::vector<double> crossings = upwardZeroCrossings(t, u);
  std::vector<Peak> peaks = findPeaks(t, u);
  std::erase_if(peaks, [](const Peak& p) { return !(p.value > 0.0); });
  out->crossings = int(crossings.size());
  out->peaks = int(peaks.size());
  if (crossings.size() < 2 || peaks.size() < 2) return false;
  out->period = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
  // least squares: ln P_j = a − δ j
  double sj = 0, sl = 0, sjj = 0, sjl = 0;
  const double n = double(peaks.size());
  for (size_t j = 0; j < peaks.size(); ++j) {
    const double l = std::log(peaks[j].value);
    sj += double(j);
    sl += l;
    sjj += double(j) * double(j);
    sjl += double(j) * l;
  }
  const double slope = (n * sjl - sj * sl) / (n * sjj - sj * sj);
  out->log_decrement = -slope;
  const double two_pi = 2.0 * std::numbers::pi;
  out->damping_ratio = out->log_decrement / std::sqrt(two_pi * two_pi + slope * slope);
  return true;
}

// ---- spring1d -----------------------------------------------------------------------------------

bool spring1dSystem(const Scene& scene, Spring1dSystem* out) {
  const Model& m = scene.model;
  if (m.particleCount() != 2 || m.springCount() != 1 || !m.pinned[0] || m.pinned[1] ||
      m.stiffness[0] <= 0.0f || m.spring_ends[0] != glm::uvec2(0, 1)) {
    return false;
  }
  const double mass = m.mass[1], k = m.stiffness[0], c = double(m.damping[0]) + double(m.drag);
  const double g = -double(m.gravity.y);
  out->amplitude = mass * g / k;
  out->y_eq = double(scene.state.x[0].y) - double(m.rest_length[0]) - out->amplitude;
  out->oscillator = DampedOscillator{mass, k, c, double(scene.state.x[1].y) - out->y_eq,
                                     double(scene.state.v[1].y)};
  return out->amplitude > 0.0;
}

Spring1dCheck checkSpring1d(const Scene& scene, Integrator integrator, double dt, int periods,
                            SolverSettings settings) {
  Spring1dCheck check;
  check.integrator = integrator;
  check.dt = dt;
  check.periods = periods;
  check.amplitude_error = check.period_error = check.fitted_damping_ratio =
      check.added_damping_ratio = kNaN;
  Spring1dSystem sys;
  if (!spring1dSystem(scene, &sys) || sys.oscillator.dampingRatio() >= 1.0) {
    check.diverged = true;
    return check;
  }
  const double w0 = sys.oscillator.naturalFrequency(), zeta = sys.oscillator.dampingRatio();
  const double wd = w0 * std::sqrt(1.0 - zeta * zeta);
  check.exact_period = 2.0 * std::numbers::pi / wd;
  check.exact_damping_ratio = zeta;

  Simulation sim = makeSimulation(scene, integrator, dt, settings);
  // N + 1 periods and a quarter more, so the N-th peak is inside even with a long period
  const int64_t steps = std::llround(1.25 * (double(periods) + 1.0) * check.exact_period / dt);
  std::vector<double> t{0.0}, u{double(scene.state.x[1].y) - sys.y_eq};
  t.reserve(size_t(steps) + 1);
  u.reserve(size_t(steps) + 1);
  const auto start = Clock::now();
  for (int64_t i = 0; i < steps && !sim.diverged() && !sim.error(); ++i) {
    std::optional<SolveReport> r = sim.tick();
    if (!r) break;
    t.push_back(r->time);
    u.push_back(double(sim.state().x[1].y) - sys.y_eq);
  }
  check.ms_per_step = msSince(start) / double(std::max<int64_t>(1, steps));
  OscillationFit fit;
  if (sim.diverged() || sim.error() || !fitOscillation(t, u, &fit)) {
    check.diverged = true;
    return check;
  }
  check.period_error = (fit.period - check.exact_period) / check.exact_period;
  check.fitted_damping_ratio = fit.damping_ratio;
  check.added_damping_ratio = fit.damping_ratio - zeta;
  // P_N: the N-th positive peak after t = 0; the exact one is u0 e^{−ζ ω0 N T_d} (the peaks of
  // the released-from-rest oscillator sit at t = n T_d exactly)
  std::vector<Peak> peaks = findPeaks(t, u);
  std::erase_if(peaks, [](const Peak& p) { return !(p.value > 0.0); });
  const double exact =
      sys.oscillator.u0 * std::exp(-zeta * w0 * double(periods) * check.exact_period);
  check.amplitude_error =
      peaks.size() >= size_t(periods) ? (peaks[size_t(periods) - 1].value - exact) / exact : -1.0;
  return check;
}

// ---- the converged reference --------------------------------------------------------------------

ReferenceSpec referenceSpec(double dt, SolverSettings base) {
  ReferenceSpec spec;
  spec.dt = dt;
  spec.settings = base;
  spec.settings.tolerance = 1e-6f;
  spec.settings.newton_tolerance = 1e-3f;
  spec.settings.integrator = spec.integrator;
  return spec;
}

Status computeReference(const Scene& scene, std::span<const double> times,
                        const ReferenceSpec& spec, Reference* out) {
  if (!(spec.dt > 0.0)) return Status::error("reference: dt must be > 0");
  for (size_t i = 0; i < times.size(); ++i) {
    if (!(times[i] >= 0.0 && times[i] <= 1e4) || (i > 0 && times[i] < times[i - 1])) {
      return Status::error("reference: the times must be sorted and within [0, 1e4] s");
    }
  }
  out->times.assign(times.begin(), times.end());
  out->states.assign(times.size(), State{});
  out->energies.assign(times.size(), 0.0);
  Simulation sim = makeSimulation(scene, spec.integrator, spec.dt, spec.settings);
  State before = scene.state;
  double t_before = 0.0;
  size_t next = 0;
  // times at (or within rounding of) 0 take the initial state
  while (next < times.size() && times[next] <= 1e-12) {
    out->states[next] = scene.state;
    out->energies[next] = computeEnergy(scene.model, scene.state).total();
    ++next;
  }
  while (next < times.size()) {
    std::optional<SolveReport> r = sim.tick();
    if (sim.error()) return Status::error("reference run failed: " + *sim.error());
    if (sim.diverged() || !r) {
      return Status::error("the reference run (" + std::string(integratorName(spec.integrator)) +
                           ") diverged");
    }
    const State& after = sim.state();
    const double t_after = r->time, h = t_after - t_before;
    while (next < times.size() && times[next] <= t_after + 1e-12) {
      // cubic Hermite in s ∈ [0, 1] for x with end slopes h v; linear for v
      const double s = std::clamp((times[next] - t_before) / h, 0.0, 1.0);
      const double h00 = (1 + 2 * s) * (1 - s) * (1 - s), h10 = s * (1 - s) * (1 - s);
      const double h01 = s * s * (3 - 2 * s), h11 = s * s * (s - 1);
      State& st = out->states[next];
      st.x.resize(after.x.size());
      st.v.resize(after.v.size());
      for (size_t i = 0; i < after.x.size(); ++i) {
        const glm::dvec3 x0(before.x[i]), x1(after.x[i]), v0(before.v[i]), v1(after.v[i]);
        st.x[i] = glm::vec3(h00 * x0 + h10 * h * v0 + h01 * x1 + h11 * h * v1);
        st.v[i] = glm::vec3((1 - s) * v0 + s * v1);
      }
      out->energies[next] = computeEnergy(scene.model, st).total();
      ++next;
    }
    before = after;
    t_before = t_after;
  }
  return Status::ok();
}

std::string referenceKey(const Scene& scene, std::span<const double> times,
                         const ReferenceSpec& spec) {
  Fnv f;
  const Model& m = scene.model;
  f.vec(m.mass);
  f.vec(m.pinned);
  f.vec(m.spring_ends);
  f.vec(m.rest_length);
  f.vec(m.stiffness);
  f.vec(m.damping);
  f.value(m.gravity);
  f.value(m.drag);
  f.vec(scene.state.x);
  f.vec(scene.state.v);
  f.vec(std::vector<double>(times.begin(), times.end()));
  f.value(int(spec.integrator));
  f.value(spec.dt);
  f.value(spec.settings.tolerance);
  f.value(spec.settings.max_iterations);
  f.value(spec.settings.newton_tolerance);
  f.value(spec.settings.newton_max_iterations);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(f.hash));
  return text;
}

double rmsPositionError(const Model& model, const State& a, const State& b) {
  double sum = 0.0;
  size_t n = 0;
  for (size_t i = 0; i < model.particleCount() && i < a.x.size() && i < b.x.size(); ++i) {
    if (model.pinned[i]) continue;
    const glm::dvec3 d = glm::dvec3(a.x[i]) - glm::dvec3(b.x[i]);
    sum += glm::dot(d, d);
    ++n;
  }
  return n ? std::sqrt(sum / double(n)) : 0.0;
}

const State* referenceAt(const Reference& reference, double t, double* energy) {
  for (size_t i = 0; i < reference.times.size(); ++i) {
    if (std::abs(reference.times[i] - t) <= 1e-9) {
      if (energy) *energy = reference.energies[i];
      return &reference.states[i];
    }
  }
  return nullptr;
}

// ---- ω_max --------------------------------------------------------------------------------------

OmegaMax estimateOmegaMax(const Model& model, const State& state) {
  OmegaMax out;
  const size_t n = model.particleCount();
  // the Gershgorin bound
  std::vector<double> row(n, 0.0);
  for (size_t s = 0; s < model.springCount(); ++s) {
    row[model.spring_ends[s].x] += model.stiffness[s];
    row[model.spring_ends[s].y] += model.stiffness[s];
  }
  double bound2 = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (!model.pinned[i] && model.mass[i] > 0.0f)
      bound2 = std::max(bound2, 2.0 * row[i] / model.mass[i]);
  }
  out.bound = std::sqrt(bound2);

  // power iteration on A = M^{-1/2} K M^{-1/2} (symmetric), pinned rows and columns removed
  std::vector<glm::dvec3> dir(model.springCount());
  for (size_t s = 0; s < model.springCount(); ++s) {
    const glm::dvec3 d =
        glm::dvec3(state.x[model.spring_ends[s].y]) - glm::dvec3(state.x[model.spring_ends[s].x]);
    const double l = glm::length(d);
    dir[s] = l > 0.0 ? d / l : glm::dvec3(0.0);
  }
  std::vector<double> inv_sqrt_m(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    if (!model.pinned[i] && model.mass[i] > 0.0f) inv_sqrt_m[i] = 1.0 / std::sqrt(model.mass[i]);
  }
  std::vector<glm::dvec3> x(n), y(n);
  uint64_t seed = 12345;
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      x[i][c] = inv_sqrt_m[i] > 0.0 ? double(seed >> 11) / double(1ull << 53) - 0.5 : 0.0;
    }
  }
  double lambda = 0.0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    double norm = 0.0;
    for (const glm::dvec3& xi : x)
      norm += glm::dot(xi, xi);
    norm = std::sqrt(norm);
    if (!(norm > 0.0)) break;
    for (glm::dvec3& xi : x)
      xi /= norm;
    std::fill(y.begin(), y.end(), glm::dvec3(0.0));
    for (size_t s = 0; s < model.springCount(); ++s) {
      const uint32_t i = model.spring_ends[s].x, j = model.spring_ends[s].y;
      const glm::dvec3 ui = inv_sqrt_m[i] * x[i], uj = inv_sqrt_m[j] * x[j];
      const glm::dvec3 f = double(model.stiffness[s]) * glm::dot(dir[s], ui - uj) * dir[s];
      y[i] += inv_sqrt_m[i] * f;
      y[j] -= inv_sqrt_m[j] * f;
    }
    double rayleigh = 0.0;
    for (size_t i = 0; i < n; ++i)
      rayleigh += glm::dot(x[i], y[i]);
    const bool settled = iteration > 50 && std::abs(rayleigh - lambda) <= 1e-10 * rayleigh;
    lambda = rayleigh;
    std::swap(x, y);
    if (settled) break;
  }
  out.power = std::sqrt(std::max(lambda, 0.0));
  return out;
}

DivergenceLimit findDivergenceDt(const Scene& scene, Integrator integrator, double duration,
                                 double dt_start, int refinements, SolverSettings settings) {
  DivergenceLimit limit;
  limit.stable_dt = limit.diverged_dt = kNaN;
  auto diverges = [&](double dt) {
    Simulation sim = makeSimulation(scene, integrator, dt, settings);
    const int64_t steps = std::max<int64_t>(1, std::llround(duration / dt));
    for (int64_t i = 0; i < steps && !sim.diverged() && !sim.error(); ++i)
      (void)sim.tick();
    ++limit.runs;
    const bool d = sim.diverged() || sim.error().has_value();
    if (d && !(limit.diverged_dt <= dt)) limit.diverged_dt = dt;
    if (!d && !(limit.stable_dt >= dt)) limit.stable_dt = dt;
    return d;
  };
  constexpr double kMinDt = 1e-8;
  const double max_dt = duration;
  double dt = dt_start;
  if (diverges(dt)) {
    while (dt > kMinDt && diverges(dt * 0.5))
      dt *= 0.5;
  } else {
    while (dt < max_dt && !diverges(dt * 2.0))
      dt *= 2.0;
  }
  if (std::isnan(limit.stable_dt) || std::isnan(limit.diverged_dt)) return limit;
  for (int i = 0; i < refinements; ++i)
    (void)diverges(std::sqrt(limit.stable_dt * limit.diverged_dt));
  return limit;
}

// ---- the cloth drop -----------------------------------------------------------------------------

double lowestPoint(const State& state) {
  double low = std::numeric_limits<double>::infinity();
  for (const glm::vec3& x : state.x)
    low = std::min(low, double(x.y));
  return low;
}

Status hangingState(const Scene& scene, State* out) {
  Scene damped = scene;
  // drag c_air per particle with c_air / m = 2 ω_low-ish: 20 s⁻¹ overdamps the swinging modes
  float min_mass = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < scene.model.particleCount(); ++i) {
    if (!scene.model.pinned[i]) min_mass = std::min(min_mass, scene.model.mass[i]);
  }
  if (!std::isfinite(min_mass)) {
    *out = scene.state;
    return Status::ok();
  }
  damped.model.drag = 20.0f * min_mass;
  SolverSettings settings;
  settings.newton_tolerance = 1e-3f;
  settings.tolerance = 1e-6f;
  Simulation sim = makeSimulation(damped, Integrator::kNewton, 0.02, settings);
  for (int i = 0; i < 3000; ++i) {  // 60 s
    if (!sim.tick() || sim.diverged()) return Status::error("the hanging-state run diverged");
    double vmax = 0.0;
    for (const glm::vec3& v : sim.state().v)
      vmax = std::max(vmax, double(glm::length(v)));
    if (i >= 50 && vmax < 1e-4) break;
  }
  *out = sim.state();
  return Status::ok();
}

DropResult measureDrop(const Scene& scene, Integrator integrator, double dt, double hanging_depth,
                       double max_time, double after_reach, SolverSettings settings) {
  DropResult result;
  result.integrator = integrator;
  result.dt = dt;
  result.hanging_depth = hanging_depth;
  result.reach_time = kNaN;
  Simulation sim = makeSimulation(scene, integrator, dt, settings);
  const int64_t steps = std::max<int64_t>(1, std::llround(max_time / dt));
  double low_before = lowestPoint(scene.state), t_before = 0.0;
  result.reach_step_time = kNaN;
  const auto start = Clock::now();
  for (int64_t i = 0; i < steps; ++i) {
    std::optional<SolveReport> r = sim.tick();
    if (!r || sim.diverged()) {
      result.diverged = true;
      break;
    }
    result.steps += 1;
    result.max_strain = std::max(result.max_strain, r->strain.max);
    const double low = lowestPoint(sim.state()), target = hanging_depth + kDropTolerance;
    if (std::isnan(result.reach_time) && low <= target) {
      // the crossing, linearly interpolated between the two states around it
      result.reach_step_time = r->time;
      result.reach_time =
          low_before > target
              ? t_before + (r->time - t_before) * (low_before - target) / (low_before - low)
              : r->time;
    }
    low_before = low;
    t_before = r->time;
    if (!std::isnan(result.reach_time) && r->time >= result.reach_time + after_reach - 1e-9) break;
  }
  const double ms = msSince(start);
  const double n = double(std::max<int64_t>(1, result.steps));
  result.ms_per_step = ms / n;
  result.newton_per_step = double(sim.totals().newton_iterations_sum) / n;
  result.cg_per_step = double(sim.totals().cg_iterations_sum) / n;
  return result;
}

}  // namespace hooke
