// The sweep's grid, cell runner and classification; see sweep.h for the thresholds.
#include "sim/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include "sim/cpu_backend.h"
#include "sim/damped_oscillator.h"
#include "sim/metrics.h"
#include "sim/simulation.h"

namespace hooke {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// the closed form of spring1d: mass particle 1 on spring 0 hanging from the pinned particle 0,
// released from rest at the spring's rest length; y(t) = y_eq + u(t), u0 = A = m g / k above
// the equilibrium y_eq = y_anchor − L − m g / k, v0 = 0, damping c + c_air
struct Spring1dExact {
  DampedOscillator oscillator{1, 1, 0, 0, 0};
  double y_eq = 0.0;
  double amplitude = 0.0;
};

bool spring1dExact(const Scene& scene, Spring1dExact* out) {
  const Model& m = scene.model;
  if (scene.name != "spring1d" || m.particleCount() != 2 || m.springCount() != 1 || !m.pinned[0] ||
      m.pinned[1] || m.stiffness[0] <= 0.0f) {
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

CellStatus classifyCell(bool diverged, double max_strain, double energy_start, double energy_max) {
  if (diverged) return CellStatus::kDiverged;
  const double gain_limit = kMaxEnergyGainRatio * std::abs(energy_start) + kEnergyGainFloor;
  if (!(max_strain <= kMaxRealisticStrain) || !(energy_max - energy_start <= gain_limit)) {
    return CellStatus::kUnrealistic;
  }
  return CellStatus::kStable;
}

CellResult runSweepCell(const SceneFactory& factory, const SweepCell& cell, double duration,
                        SolverSettings settings) {
  const auto start = std::chrono::steady_clock::now();
  const Scene scene = factory(cell.stiffness);
  Spring1dExact exact;
  const bool has_exact = spring1dExact(scene, &exact);

  auto backend = std::make_unique<CpuBackend>();
  CellResult result;
  if (Status s = backend->load(scene.model, scene.state); !s) {
    result.status = CellStatus::kDiverged;
    return result;
  }
  settings.integrator = cell.integrator;
  backend->setSettings(settings);
  Simulation sim(std::move(backend), scene.model, scene.state, cell.dt, 0);

  // one solve per tick; track energy and the spring1d error until a divergence
  const double e0 = computeEnergy(scene.model, scene.state).total();
  double e_max = e0, e_end = e0, realism = 0.0;
  const int64_t solves = std::max<int64_t>(1, std::llround(duration / cell.dt));
  for (int64_t i = 0; i < solves && !sim.diverged() && !sim.error(); ++i) {
    std::optional<SolveReport> report = sim.tick();
    if (!report || sim.diverged()) continue;
    result.steps += 1;
    e_end = report->energy.total();
    e_max = std::max(e_max, e_end);
    if (has_exact) {
      const double y_exact = exact.y_eq + exact.oscillator.displacement(report->time);
      realism = std::max(realism, std::abs(double(sim.state().x[1].y) - y_exact));
    }
  }
  const bool diverged = sim.diverged() || sim.error().has_value();
  if (diverged) result.steps += 1;  // the solve that diverged

  result.max_strain = sim.totals().max_strain;
  result.status = classifyCell(diverged, result.max_strain, e0, e_max);
  const double scale = std::abs(e0) > 0.0 ? std::abs(e0) : 1.0;
  result.energy_drift = diverged ? kNaN : (e_end - e0) / scale;
  result.energy_gain = (e_max - e0) / scale;
  result.realism_error = has_exact && !diverged ? realism / exact.amplitude : kNaN;
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
