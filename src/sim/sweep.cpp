// The sweep's grid, cell runner and classification; see sweep.h for the thresholds.
#include "sim/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include "sim/cpu_backend.h"
#include "sim/metrics.h"
#include "sim/simulation.h"

namespace hooke {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// the closed form of spring1d (realism.h): the built-in scene only
bool spring1dExact(const Scene& scene, Spring1dSystem* out) {
  return scene.name == "spring1d" && spring1dSystem(scene, out);
}

// the total energy of the exact spring1d solution at time t: x_1 = (x_0, y_eq + u(t), z_0) with
// u' from a central difference (δ = 1e-6 s)
double spring1dExactEnergy(const Scene& scene, const Spring1dSystem& exact, double t) {
  State s = scene.state;
  const double d = 1e-6;
  const double u = exact.oscillator.displacement(t);
  const double du =
      (exact.oscillator.displacement(t + d) - exact.oscillator.displacement(t - d)) / (2.0 * d);
  s.x[1].y = float(exact.y_eq + u);
  s.v[1] = glm::vec3(0.0f, float(du), 0.0f);
  return computeEnergy(scene.model, s).total();
}

}  // namespace

std::string_view cellStatusName(CellStatus status) {
  switch (status) {
    case CellStatus::kStable:
      return "stable";
    case CellStatus::kUnrealistic:
      return "unrealistic";
    case CellStatus::kDiverged:
      return "diverged";
  }
  return "?";
}

std::vector<double> logSpace(double lo, double hi, int n) {
  std::vector<double> out(size_t(std::max(n, 0)));
  if (n <= 0) return out;
  const double a = std::log(lo), b = std::log(hi);
  for (int i = 0; i < n; ++i) {
    out[size_t(i)] = std::exp(a + (b - a) * double(i) / double(std::max(n - 1, 1)));
  }
  // exact endpoints, not exp(log(x))
  out.front() = lo;
  if (n >= 2) out.back() = hi;
  return out;
}

double energyScale(const Model& model, const State& state) {
  const Energy e = computeEnergy(model, state);
  double free_mass = 0.0;
  glm::dvec3 lo(std::numeric_limits<double>::infinity()), hi(-lo);
  for (size_t i = 0; i < model.particleCount(); ++i) {
    if (!model.pinned[i]) free_mass += model.mass[i];
    lo = glm::min(lo, glm::dvec3(state.x[i]));
    hi = glm::max(hi, glm::dvec3(state.x[i]));
  }
  const glm::dvec3 size = model.particleCount() ? hi - lo : glm::dvec3(0.0);
  const double extent = std::max({size.x, size.y, size.z});
  const double scale =
      e.kinetic + e.spring + free_mass * glm::length(glm::dvec3(model.gravity)) * extent;
  return scale > 0.0 && std::isfinite(scale) ? scale : 1.0;
}

CellStatus classifyCellScaled(bool diverged, double max_strain, double energy_gain,
                              double energy_scale) {
  if (diverged) return CellStatus::kDiverged;
  const double gain_limit = kMaxEnergyGainRatio * std::abs(energy_scale) + kEnergyGainFloor;
  if (!(max_strain <= kMaxRealisticStrain) || !(energy_gain <= gain_limit)) {
    return CellStatus::kUnrealistic;
  }
  return CellStatus::kStable;
}

CellStatus classifyCell(bool diverged, double max_strain, double energy_start, double energy_max) {
  return classifyCellScaled(diverged, max_strain, energy_max - energy_start, energy_start);
}

double sweepEndTime(double dt, double duration) {
  return double(std::max<int64_t>(1, std::llround(duration / dt))) * dt;
}

CellResult runSweepCell(const SceneFactory& factory, const SweepCell& cell, double duration,
                        SolverSettings settings) {
  return runSweepCell(factory, cell, duration, settings, SweepCellOptions{});
}

CellResult runSweepCell(const SceneFactory& factory, const SweepCell& cell, double duration,
                        SolverSettings settings, const SweepCellOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const Scene scene = factory(cell.stiffness);
  Spring1dSystem exact;
  const bool has_exact = spring1dExact(scene, &exact);

  CellResult result;
  result.energy_drift = result.energy_gain = result.realism_error = result.energy_error = kNaN;
  std::unique_ptr<Backend> backend;
  Status loaded = Status::ok();
  if (options.backend) {
    loaded = options.backend(scene, cell.integrator, &backend, &result.note);
    if (loaded && !backend) loaded = Status::error("no backend");
  } else {
    backend = std::make_unique<CpuBackend>();
    loaded = backend->load(scene.model, scene.state);
  }
  if (!loaded) {
    result.status = CellStatus::kDiverged;
    result.note = loaded.message();
    return result;
  }
  result.backend = std::string(backend->name());
  settings.integrator = cell.integrator;
  backend->setSettings(settings);
  Simulation sim(std::move(backend), scene.model, scene.state, cell.dt, 0);

  // one solve per tick; track energy and the spring1d error until a divergence
  const double e0 = computeEnergy(scene.model, scene.state).total();
  const double scale = energyScale(scene.model, scene.state);
  double e_max = e0, e_end = e0, realism = 0.0, t_end = 0.0;
  const int64_t solves = std::max<int64_t>(1, std::llround(duration / cell.dt));
  for (int64_t i = 0; i < solves && !sim.diverged() && !sim.error(); ++i) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
      result.cancelled = true;
      return result;
    }
    std::optional<SolveReport> report = sim.tick();
    if (!report || sim.diverged()) continue;
    result.steps += 1;
    e_end = report->energy.total();
    e_max = std::max(e_max, e_end);
    t_end = report->time;
    if (has_exact) {
      const double y_exact = exact.y_eq + exact.oscillator.displacement(report->time);
      realism = std::max(realism, std::abs(double(sim.state().x[1].y) - y_exact));
    }
  }
  const bool diverged = sim.diverged() || sim.error().has_value();
  if (sim.error()) result.note = *sim.error();
  const RunTotals& totals = sim.totals();
  const double solved = double(std::max<int64_t>(1, totals.solves));
  result.ms_per_step = totals.solver_ms / solved;
  result.newton_per_step = double(totals.newton_iterations_sum) / solved;
  result.cg_per_step = double(totals.cg_iterations_sum) / solved;
  if (diverged) result.steps += 1;  // the solve that diverged

  result.max_strain = sim.totals().max_strain;
  result.status = classifyCellScaled(diverged, result.max_strain, e_max - e0, scale);
  result.energy_gain = (e_max - e0) / scale;
  if (!diverged) {
    result.energy_drift = (e_end - e0) / scale;
    if (has_exact) {
      result.realism_error = realism / exact.amplitude;
      result.energy_error = (e_end - spring1dExactEnergy(scene, exact, t_end)) / scale;
    } else if (options.reference) {
      double e_ref = 0.0;
      if (const State* ref = referenceAt(*options.reference, t_end, &e_ref)) {
        result.realism_error = rmsPositionError(scene.model, sim.state(), *ref);
        result.energy_error = (e_end - e_ref) / scale;
      }
    }
  }
  result.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::vector<SweepCell> sweepCells(const std::vector<Integrator>& integrators,
                                  const std::vector<double>& dts,
                                  const std::vector<double>& stiffnesses) {
  std::vector<SweepCell> cells;
  cells.reserve(integrators.size() * dts.size() * stiffnesses.size());
  for (Integrator integrator : integrators) {
    for (double k : stiffnesses) {
      for (double dt : dts)
        cells.push_back({integrator, dt, k});
    }
  }
  return cells;
}

}  // namespace hooke
