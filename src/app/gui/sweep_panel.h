// The Sweep panel (Dear ImGui): the sweep's settings for the current scene, Run / Cancel with a
// progress bar, one heatmap per integrator (stable / unrealistic / diverged, the colours of
// `hooke sweep`'s PNGs, log axes), the numbers of the cell under the cursor, and a click that
// loads the cell's dt, stiffness and integrator into the live simulation through the Time,
// Material and Solver settings. The job itself is SweepJob (sweep_job.h).
#pragma once

#include <string>

#include "app/gui/panels.h"
#include "app/gui/sweep_job.h"

namespace hooke {

// What the panel edits between frames.
struct SweepPanelState {
  bool integrators[5] = {true, false, true, false, true};  // kAllIntegrators order
  double dt_min = 1e-4, dt_max = 0.1;
  double k_min = 10.0, k_max = 1e7;
  int dt_cells = 6, k_cells = 6;
  float duration = 0.5f;
  std::string error;           // why the last Run was refused
  bool fold_settings = false;  // close the settings at the next frame (a sweep started)
  // the cell last loaded into the simulation (index into the snapshot's cells), -1 when none
  long long loaded_cell = -1;
};

// The request the panel's settings make for the session's scene at the live material and solver.
SweepRequest sweepRequestFor(const SweepPanelState& ui, const PanelState& state,
                             const SimSession& session);

// Builds the panel while state.show_sweep is set (its close button clears it). A click on a cell
// edits state.time, state.material and state.solver and raises the matching requests.
void drawSweepPanel(SweepPanelState& ui, SweepJob& job, PanelState& state, const PanelFacts& facts,
                    PanelRequests* requests);

}  // namespace hooke
