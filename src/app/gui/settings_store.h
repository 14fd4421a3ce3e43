// The desktop app's settings between runs: what the user chose (scene, backend, solver, time,
// material, camera, window size, view toggles, the comparison's integrator and view, the Sweep
// panel's grid) as a JSON file, saved at exit and read at start.
// Reading never fails a start: a missing file means the defaults; a corrupt, truncated,
// wrong-typed or out-of-range value means the default for that field (the whole file's defaults
// when it is not a JSON object), and one line of warning says what was dropped. Saving writes a
// temporary file and renames it over the old one, so a crash or a kill mid-write leaves the
// previous file whole. No GL, ImGui or GLFW here.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include <glm/glm.hpp>

#include "app/gui/compare_session.h"
#include "app/gui/material_editor.h"
#include "app/gui/sim_session.h"
#include "sim/backend.h"
#include "sim/status.h"

namespace hooke {

// The orbit camera as the user left it.
struct CameraSettings {
  float yaw_degrees = 35.0f;
  float pitch_degrees = 18.0f;
  float distance = 4.0f;
  glm::vec3 target{0.0f, 1.0f, 0.0f};
  bool operator==(const CameraSettings&) const = default;
};

// The Sweep panel's grid (SweepPanelState without its transient fields).
struct StoredSweep {
  std::array<bool, 5> integrators{true, false, true, false, true};  // kAllIntegrators order
  double dt_min = 1e-4, dt_max = 0.1;                               // s, 0 < min < max <= 10
  double k_min = 10.0, k_max = 1e7;                                 // N/m, 0 < min < max <= 1e12
  int dt_cells = 6, k_cells = 6;                                    // 2..kMaxSweepCells
  float duration = 0.5f;  // s simulated per cell, 0.05..10
  bool operator==(const StoredSweep&) const = default;
};

struct StoredSettings {
  // scene: "cloth", "volume", "spring1d" or a scene file's path; the built-ins' resolutions
  std::string scene = "cloth";
  int cloth_res = 32;
  int volume_res = 12;
  std::string backend = "auto";  // auto | cpu | cuda
  SolverSettings solver;
  TimeSettings time;
  std::optional<MaterialSettings> material;  // the material of `scene`; none: the scene's own
  std::optional<CameraSettings> camera;      // none: framed on the scene
  int window_width = 1280;
  int window_height = 800;
  // view toggles
  bool show_panels = true;
  bool draw_body = true;
  bool draw_springs = false;
  bool draw_particles = false;
  bool draw_ground = true;
  bool draw_shadow = true;
  float strain_full_scale = 0.01f;
  // side by side (whether it was on is not kept: a start shows one simulation)
  Integrator compare_integrator = Integrator::kBdf2;
  CompareView compare_view = CompareView::kOverlay;
  StoredSweep sweep;

  bool operator==(const StoredSettings& other) const;
};

// Where the settings live: $XDG_CONFIG_HOME/hooke/settings.json, else
// $HOME/.config/hooke/settings.json; empty when neither variable is set.
std::string defaultSettingsPath();

// The settings in `text`. Every field is checked on its own; *warning gets one line naming the
// fields that were dropped for their defaults (empty when none was).
StoredSettings parseSettings(std::string_view text, std::string* warning);

// Reads the file at `path`. A missing file gives the defaults and no warning; an unreadable or
// bad one the defaults for what is bad and a one-line warning that names the file.
StoredSettings loadSettings(const std::string& path, std::string* warning);

// The settings as JSON text (what parseSettings reads back to the same values).
std::string settingsToJson(const StoredSettings& settings);

// Writes the settings atomically, creating the file's directory when missing.
Status saveSettings(const std::string& path, const StoredSettings& settings);

}  // namespace hooke
