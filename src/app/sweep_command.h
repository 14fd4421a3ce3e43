// `hooke sweep`: a log-spaced dt × stiffness grid per integrator, each cell classified stable,
// unrealistic or diverged; writes sweep.csv and a heatmap PNG per integrator, prints a table.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "app/cli_options.h"

namespace hooke {

struct SweepCommandOptions {
  SceneOptions scene;  // --stiffness is swept, so it must not be given
  std::string integrators;
  std::string dt_range = "1e-4:0.1";
  std::string stiffness_range = "10:1e7";
  std::string cells = "10x10";  // dt values x stiffness values
  std::optional<double> duration;
  std::string backend = "auto";
  std::string out_dir;
  std::optional<int> threads;
  // cloth, volume and files: the converged reference (bdf2 at reference_dt, default the smallest
  // dt / 4), cached in reference_cache (default defaultReferenceCacheDir()); no_reference skips it
  std::optional<double> reference_dt;
  std::optional<std::string> reference_cache;
  bool no_reference = false;
  RunOptions solver;  // --tolerance, --max-iterations, --newton-tolerance, --newton-max-iterations
};

// Adds the sweep flags other than the scene flags (the caller adds those with addSceneFlags).
void addSweepOptions(CLI::App* command, SweepCommandOptions* options);

// Returns the exit code: 0 written; 2 bad input (one line on stderr, no file left behind).
int sweepCommand(const SweepCommandOptions& options);

}  // namespace hooke
