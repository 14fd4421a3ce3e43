// Options shared by the CLI sub-commands (run, export-scene) and the checks that turn them into a
// scene and solver settings. Every check failure is one line naming the flag or the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/backend.h"
#include "sim/model.h"
#include "sim/scenes.h"
#include "sim/status.h"

namespace hooke {

// --scene, --res and the material flags: what builds the system.
struct SceneOptions {
  std::string scene = "cloth";  // cloth | volume | spring1d | FILE.json | FILE.node
  std::optional<int> res;
  std::optional<double> stiffness, damping, mass, drag;
};

// The rest of `hooke run`.
struct RunOptions {
  SceneOptions scene;
  std::string integrator = "implicit";
  std::string backend = "auto";
  double dt = 0.01;
  std::string skip = "auto";
  double tolerance = 1e-4;
  int max_iterations = 500;
  double newton_tolerance = 1e-2;
  int newton_max_iterations = 10;
  std::optional<int64_t> steps;
  std::optional<double> duration;
  std::string report_path;
  std::string trace_path;
  std::string trace_particles = "all";
};

// A number as the user would write it, for error messages ("0.01", "nan", "1e+06").
std::string show(double value);

// Prints "hooke: <message>" on stderr and returns exit code 2 (bad input).
int badInput(const Status& status);

// Builds the scene the options name: a built-in scene with its material, or a file with the
// material flags as overrides. Validates the values first.
Status buildScene(const SceneOptions& options, Scene* out);

// The checked run parameters.
struct RunPlan {
  Integrator integrator;
  SolverSettings settings;
  int skip;
  int64_t ticks;
  std::vector<uint32_t> trace_particles;  // empty with trace_all
  bool trace_all = true;
};

// Validates the run options against the loaded scene (for --trace-particles).
Status planRun(const RunOptions& options, const Scene& scene, RunPlan* out);

// The sub-commands; each returns the process exit code.
int runCommand(const RunOptions& options);
int exportSceneCommand(const SceneOptions& options, const std::string& out_path);

}  // namespace hooke
