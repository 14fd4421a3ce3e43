// The command-line flags shared by hooke's commands (run, render, export-scene and the desktop
// app), registered in one place so every command names and documents them the same way.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "app/cli_options.h"

namespace hooke {

// --scene, --res, --stiffness, --damping, --mass, --drag
void addSceneFlags(CLI::App* command, SceneOptions* scene, const std::string& help_prefix = "");

// --integrator, --backend, --dt, --skip, --tolerance, --max-iterations, --newton-tolerance,
// --newton-max-iterations
void addSolverFlags(CLI::App* command, RunOptions* run, const std::string& help_prefix = "");

}  // namespace hooke
