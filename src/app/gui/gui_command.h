// Plain `hooke [scene and solver options] [--exit-after S] [--screenshot F.png] [--report F.json]`:
// the desktop app. Its options, their registration on the command line, and the command itself.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "app/cli_options.h"

namespace hooke {

struct GuiOptions {
  RunOptions run;  // scene and solver options as `hooke run` takes them (no --steps/--duration)
  std::optional<double> exit_after;  // wall seconds, then close (scripts and tests)
  std::string screenshot_path;       // PNG of the last frame, panels included, written at exit
  std::string report_path;           // the run report (JSON, as `hooke run --report`) at exit
  int width = 1280;                  // window size, screen units
  int height = 800;
  bool springs = false;    // start with the spring overlay (as hooke render --springs)
  bool particles = false;  // start with the particle overlay
  // the user's settings between runs (settings_store.h): read at start, written at exit
  std::string settings_path;  // --settings FILE; empty: the default path
  bool no_settings = false;   // --no-settings: neither read nor written
  // the parsed command line, to tell flags the user gave (they win over restored settings)
  const CLI::App* command_line = nullptr;
};

// Adds the app's own flags (solver, time, outputs, window size) to `app`; the scene flags are
// added by the caller, as for `hooke run`.
void addGuiOptions(CLI::App* app, GuiOptions* options);

// Opens the window and runs until it is closed (or --exit-after), starting from the saved
// settings (flags given on the command line win) and saving them at exit. Exit codes: 0 closed
// normally; 2 bad input or no display (one line on stderr, no window, no file); 1 the app failed
// (no OpenGL 4.5 context, a renderer error, a file that could not be written).
int guiCommand(const GuiOptions& options);

}  // namespace hooke
