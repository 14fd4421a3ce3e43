// The app's Dear ImGui panels, immediate mode: the controls sidebar (Scene, Solver, Time,
// Material, Mouse & view), the Stats panel with its plots, and the overlays on the 3D view (status
// line, divergence banner, messages). The state they edit lives in PanelState, owned by the app;
// what the user asked for comes back as PanelRequests. Reads the session; changes nothing else.
#pragma once

#include <optional>
#include <string>

#include "app/cli_options.h"
#include "app/gui/compare_session.h"
#include "app/gui/drag_force.h"
#include "app/gui/frame_stats.h"
#include "app/gui/material_editor.h"
#include "app/gui/sim_session.h"
#include "render/picking.h"
#include "render/renderer.h"
#include "sim/backend.h"

namespace hooke {

enum class SceneKind { kCloth = 0, kVolume = 1, kSpring1d = 2, kFile = 3 };

// What the panels edit. The app keeps it between frames and applies it through PanelRequests.
struct PanelState {
  // scene
  SceneKind scene = SceneKind::kCloth;
  int cloth_res = 32;
  int volume_res = 12;
  char file_path[1024] = "";
  std::string scene_error;  // the last failed load, shown under the scene controls

  // solver
  SolverSettings solver;
  std::string backend = "cpu";  // "cpu" or "cuda"
  std::string backend_error;

  // time
  TimeSettings time;
  bool paused = false;

  // material and the mouse's pull
  MaterialSettings material;
  PullSettings pull;

  // view
  DrawOptions draw;
  bool show_panels = true;

  // evaluation: a second integrator side by side, the Sweep panel
  CompareSettings compare;
  bool show_sweep = false;

  // a short message over the view (screenshot saved, file loaded...), until a wall time
  std::string message;
  double message_until = 0.0;
  bool message_is_error = false;
};

// What the user asked for this frame.
struct PanelRequests {
  std::optional<SceneOptions> load;  // open this scene (its own material)
  bool reset = false;
  bool revert = false;  // after a divergence: back to the last finite state
  bool step = false;
  bool reset_view = false;
  bool screenshot = false;
  bool solver_changed = false;
  bool time_changed = false;
  bool material_changed = false;
  bool backend_changed = false;
  bool pause_changed = false;
  bool compare_changed = false;  // state.compare: turned on or off, another integrator or view
};

// Facts the panels show but do not edit.
struct PanelFacts {
  const SimSession* session = nullptr;
  const FrameStats* frames = nullptr;
  std::string cuda_unavailable;  // why CUDA cannot be chosen; empty when it can
  std::string gl_description;
  std::string visual_path;   // the visual writer's name
  Viewport viewport;         // the 3D view, window pixels
  bool stats_docked = true;  // the Stats panel has its own column (else it floats, collapsed)
  bool pulling = false;
  // hints drawn over the 3D view, window pixels: the particle a press would take, and the pull's
  // rubber band from the held particle to the cursor's target
  std::optional<glm::vec2> hover;
  std::optional<glm::vec2> pull_from, pull_to;
  double now = 0.0;                         // wall seconds since start, for messages
  const CompareSession* compare = nullptr;  // the comparison, while it runs
};

// The widths of the side panels for the current font, window pixels.
float controlsPanelWidth();
float statsPanelWidth();

// Builds every panel for this frame (between GuiWindow::beginUiFrame and endUiFrame).
void drawPanels(PanelState& state, const PanelFacts& facts, PanelRequests* requests);

// The scene options a scene choice means (built-in name and resolution, or the file path).
SceneOptions sceneOptionsFor(const PanelState& state);

}  // namespace hooke
