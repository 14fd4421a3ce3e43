// The timestep × stiffness sweep behind `hooke sweep`: log-spaced grids, running one cell of the
// grid on a backend, and classifying it stable, unrealistic or diverged. No I/O.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/backend.h"
#include "sim/model.h"
#include "sim/realism.h"

namespace hooke {

// a cell is unrealistic (finite but past realism limits) when either holds:
//   max strain  max |l − L| / L  >  kMaxRealisticStrain
//   energy gain  E_max − E_0     >  kMaxEnergyGainRatio · E_s + kEnergyGainFloor
// E is the total energy (kinetic + gravitational + spring) of computeEnergy; E_max its largest
// value over the solves. A damped system only loses energy, so any gain is numerical. E_s is the
// scene's energy scale (energyScale below), which does not depend on where the scene sits
// relative to y = 0. (classifyCell's older form uses |E_0| in place of E_s.)
inline constexpr double kMaxRealisticStrain = 0.5;  // 50 % stretch or compression
inline constexpr double kMaxEnergyGainRatio = 0.05;
inline constexpr double kEnergyGainFloor = 1e-6;  // J

// simulated seconds per cell when --duration is not given
inline constexpr double kDefaultSweepDuration = 1.0;

enum class CellStatus { kStable, kUnrealistic, kDiverged };

// The energy scale of a scene's initial state, J:
//   E_s = K_0 + S_0 + M g L
// K_0 and S_0 its kinetic and spring energy, M the free mass, g = |gravity| and L the largest
// side of the axis-aligned box around all particles: the work gravity does when the body falls
// by its own size. 1 J when that is zero (a weightless body at rest).
double energyScale(const Model& model, const State& state);

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
  double energy_drift = 0.0;  // (E_end − E_0) / E_s; NaN when diverged
  double energy_gain = 0.0;   // (E_max − E_0) / E_s
  // spring1d: max |y − y_exact| / A over the solves, A = m g / k the amplitude of the
  // closed-form damped oscillator; other scenes: the RMS position error at the end time against
  // the converged reference, m (NaN without one); NaN for diverged cells
  double realism_error = 0.0;
  int64_t steps = 0;  // solves run (fewer than planned when it diverged)
  double wall_ms = 0.0;
  // energy drift beyond what physical damping explains: (E_end − E_ref(t_end)) / E_s, E_ref the
  // energy of the exact solution (spring1d) or of the converged reference (other scenes); NaN
  // when there is none or the cell diverged
  double energy_error = 0.0;
  double ms_per_step = 0.0;      // solver wall time per solve (force + solve + commit)
  double newton_per_step = 0.0;  // linear solves per solve
  double cg_per_step = 0.0;      // CG iterations per solve
  std::string backend = "cpu";   // the backend the cell ran on
  std::string note;              // why it ran on another backend than asked, or why it failed
  bool cancelled = false;        // stopped by SweepCellOptions::cancel: the rest means nothing
};

// Decides the status from the measurements (thresholds above), with |energy_start| as E_s.
CellStatus classifyCell(bool diverged, double max_strain, double energy_start, double energy_max);

// The same with the energy gain E_max − E_0 (J) and the scale E_s (J) given.
CellStatus classifyCellScaled(bool diverged, double max_strain, double energy_gain,
                              double energy_scale);

// Makes the backend a cell runs on, loaded with the scene's model and state; the cell sets its
// settings. note may be set to why another backend than asked was made (it becomes the cell's
// note). On failure the cell is reported diverged with the message as its note.
using CellBackendFactory = std::function<Status(const Scene& scene, Integrator integrator,
                                                std::unique_ptr<Backend>* out, std::string* note)>;

struct SweepCellOptions {
  CellBackendFactory backend;  // empty: a CpuBackend
  // the converged reference of the cell's scene (cloth, volume, files) holding a state at the
  // cell's end time (sweepEndTime); gives realism_error and energy_error. May be null.
  const Reference* reference = nullptr;
  // checked before every solve: once true, the cell stops and returns cancelled. May be null.
  const std::atomic<bool>* cancel = nullptr;
};

// The time a cell ends at: round(duration / dt) solves of dt, at least one.
double sweepEndTime(double dt, double duration);

// Runs one cell: the factory's scene at the cell's stiffness, on a CpuBackend with the settings
// (their integrator replaced by the cell's), skip 0 so h = dt, for round(duration / dt) solves
// (at least one), stopping early at a divergence.
CellResult runSweepCell(const SceneFactory& factory, const SweepCell& cell, double duration,
                        SolverSettings settings);

// The same on the backend the options make, measured against their reference. realism_error:
// spring1d as above; other scenes the RMS position error at the end time against the reference,
// m (rmsPositionError), NaN without a reference.
CellResult runSweepCell(const SceneFactory& factory, const SweepCell& cell, double duration,
                        SolverSettings settings, const SweepCellOptions& options);

// The cells of a sweep in output order: integrator, then stiffness, then dt.
std::vector<SweepCell> sweepCells(const std::vector<Integrator>& integrators,
                                  const std::vector<double>& dts,
                                  const std::vector<double>& stiffnesses);

}  // namespace hooke
