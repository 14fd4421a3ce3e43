// `hooke render`: simulate a scene to a time and render that frame offscreen (EGL) to a PNG. The
// options and their registration on the command line; the checks live in render_command.cpp.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "app/cli_options.h"

namespace hooke {

struct RenderCommandOptions {
  RunOptions
      run;  // scene and solver options, as `hooke run` takes them (--steps/--duration unused)
  double time = 0.0;  // simulated seconds before the frame; 0 renders the initial state
  std::string out_path;
  int width = 800;
  int height = 600;
  bool springs = false;              // overlay springs coloured by strain
  bool particles = false;            // overlay particles
  std::optional<double> yaw, pitch;  // camera angles in degrees; the default three-quarter view
  int samples = 8;                   // multisample anti-aliasing, clamped to what the driver has
  // After reaching `time`: this many more frames of the desktop app's loop, each advancing the
  // simulation by 1/60 s of ticks, writing the visual state and drawing it, timed per phase
  // (the PNG shows the last one). 0: the single frame at `time`.
  int frames = 0;
  std::string frame_report_path;  // the per-frame times as JSON (needs frames > 0)
};

// Adds the render-only flags (solver, time, output, image and camera). The scene flags are added
// by the caller, as for `hooke run`.
void addRenderOptions(CLI::App* command, RenderCommandOptions* options);

// Returns the exit code: 0 written; 2 bad input (one line on stderr, no file); 1 the frame could
// not be made (no EGL display, a GL error, a diverged simulation).
int renderCommand(const RenderCommandOptions& options);

}  // namespace hooke
