// The timestep × stiffness sweep behind `hooke sweep`: log-spaced grids, running one cell of the
// grid on the CPU backend, and classifying it stable, unrealistic or diverged. No I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "sim/backend.h"
#include "sim/model.h"

namespace hooke {

// a cell is unrealistic (finite but past realism limits) when either holds:
//   max strain  max |l − L| / L  >  kMaxRealisticStrain
//   energy gain  E_max − E_0     >  kMaxEnergyGainRatio · |E_0| + kEnergyGainFloor
// E is the total energy (kinetic + gravitational + spring) of computeEnergy; E_max its largest
// value over the solves. A damped system only loses energy, so any gain is numerical.
inline constexpr double kMaxRealisticStrain = 0.5;  // 50 % stretch or compression
inline constexpr double kMaxEnergyGainRatio = 0.05;
inline constexpr double kEnergyGainFloor = 1e-6;  // J

// simulated seconds per cell when --duration is not given
inline constexpr double kDefaultSweepDuration = 1.0;

enum class CellStatus { kStable, kUnrealistic, kDiverged };

std::string_view cellStatusName(CellStatus status);

// n values from lo to hi, equally spaced in log: v_i = lo · (hi / lo)^(i / (n − 1)); the first is
// exactly lo and the last exactly hi. Needs 0 < lo < hi and n >= 2.
std::vector<double> logSpace(double lo, double hi, int n);

// Builds the scene with every spring of the scene's base stiffness set to k (N/m).
using SceneFactory = std::function<Scene(double stiffness)>;

struct SweepCell {
  Integrator integrator = Integrator::kImplicit;
  double dt = 0.01;          // s; the step h (skip 0)
  double stiffness = 100.0;  // N/m
};

struct CellResult {
  CellStatus status = CellStatus::kStable;
  double max_strain = 0.0;    // max |l − L| / L over the solves before any divergence
  double energy_drift = 0.0;  // (E_end − E_0) / |E_0|; NaN when diverged
  double energy_gain = 0.0;   // (E_max − E_0) / |E_0|
  // spring1d only: max |y − y_exact| / A over the solves, A = m g / k the amplitude of the
  // closed-form damped oscillator; NaN for other scenes and for diverged cells
  double realism_error = 0.0;
  int64_t steps = 0;  // solves run (fewer than planned when it diverged)
  double wall_ms = 0.0;
};

// Decides the status from the measurements (thresholds above).
CellStatus classifyCell(bool diverged, double max_strain, double energy_start, double energy_max);

// Runs one cell: the factory's scene at the cell's stiffness, on a CpuBackend with the settings
// (their integrator replaced by the cell's), skip 0 so h = dt, for round(duration / dt) solves
// (at least one), stopping early at a divergence.
CellResult runSweepCell(const SceneFactory& factory, const SweepCell& cell, double duration,
                        SolverSettings settings);

// The cells of a sweep in output order: integrator, then stiffness, then dt.
std::vector<SweepCell> sweepCells(const std::vector<Integrator>& integrators,
                                  const std::vector<double>& dts,
                                  const std::vector<double>& stiffnesses);

}  // namespace hooke
