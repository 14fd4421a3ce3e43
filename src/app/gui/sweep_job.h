// The Sweep panel's work, apart from any UI: a dt × stiffness sweep of the app's current scene
// (its options and live material) run on background threads through sim/sweep.h, with progress,
// cancellation and the results read safely while it runs, and the mapping from a clicked cell back
// to the Time, Material and Solver settings that reproduce it live. No ImGui, no GL.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/cli_options.h"
#include "app/gui/material_editor.h"
#include "app/gui/sim_session.h"
#include "sim/backend.h"
#include "sim/sweep.h"

namespace hooke {

// What the Sweep panel asks for.
struct SweepRequest {
  SceneOptions scene;                   // the scene as the app loaded it
  MaterialSettings reference;           // the scene's own material (SimSession::referenceMaterial)
  MaterialSettings material;            // the live material; each cell replaces its stiffness
  SolverSettings solver;                // tolerances and caps; each cell sets the integrator
  std::vector<Integrator> integrators;  // one heatmap each, in this order
  double dt_min = 1e-4, dt_max = 0.1;   // s, the step h (skip 0), log-spaced
  double k_min = 10.0, k_max = 1e7;     // N/m, the base stiffness, log-spaced
  int dt_cells = 6, k_cells = 6;        // 2..kMaxSweepCells each
  double duration = 0.5;                // simulated seconds per cell
  int threads = 0;                      // worker threads; 0: one less than the cores, at least 1
};

inline constexpr int kMaxSweepCells = 32;
// the cost cap, as `hooke sweep` has it: solves per cell at the smallest dt
inline constexpr double kMaxSweepSolvesPerCell = 1e6;

// Checks a request: integrators named once each and at least one, ranges 0 < min < max and
// finite, grid sizes in range, duration > 0 within the solves cap. One line naming the field.
Status checkSweepRequest(const SweepRequest& request);

// The settings that run a cell live: its dt as the tick with skip 0 (h = dt, as the cell ran),
// its stiffness as the Material panel's stiffness, its integrator. Everything else is kept.
struct CellSettings {
  TimeSettings time;
  MaterialSettings material;
  SolverSettings solver;
};
CellSettings settingsForCell(const SweepCell& cell, const TimeSettings& time,
                             const MaterialSettings& material, const SolverSettings& solver);

class SweepJob {
 public:
  enum class Phase {
    kIdle,        // nothing run yet
    kRunning,     // cells are being run
    kCancelling,  // cancelled; the cells in flight stop within one solve
    kCancelled,   // stopped early; the finished cells are kept
    kDone,        // every cell finished
  };

  // A consistent copy of the job for one frame of drawing.
  struct Snapshot {
    Phase phase = Phase::kIdle;
    std::string scene_name;
    std::vector<Integrator> integrators;
    std::vector<double> dts, stiffnesses;  // ascending
    std::vector<SweepCell> cells;          // sweepCells order: integrator, stiffness, dt
    std::vector<CellResult> results;       // (cells)
    std::vector<uint8_t> finished;         // (cells) 1 when results[i] is set
    size_t done = 0;                       // finished cells
    double duration = 0.0;
    double wall_seconds = 0.0;  // since start (to the end once finished)
    double progress() const { return cells.empty() ? 0.0 : double(done) / double(cells.size()); }
    // index into cells/results of (integrator n, stiffness row, dt column)
    size_t index(size_t integrator, size_t row, size_t column) const {
      return (integrator * stiffnesses.size() + row) * dts.size() + column;
    }
  };

  SweepJob();
  ~SweepJob();  // cancels and waits for the cells in flight
  SweepJob(const SweepJob&) = delete;
  SweepJob& operator=(const SweepJob&) = delete;

  // Builds the scene and starts the worker threads; returns at once. Fails (changing nothing)
  // on a bad request, a scene that does not build, or while a cancelled run is still finishing.
  Status start(const SweepRequest& request);
  // Stops handing out cells; those in flight stop before their next solve and are dropped
  // (left unfinished), then the phase becomes kCancelled.
  void cancel();
  // Waits until no worker runs (the result of a finished or cancelled run stays).
  void wait();

  Phase phase() const;
  bool busy() const;  // running or cancelling
  Snapshot snapshot() const;

  static const char* phaseName(Phase phase);

 private:
  struct Shared;

  std::shared_ptr<Shared> shared_;
  std::vector<std::thread> workers_;
};

}  // namespace hooke
