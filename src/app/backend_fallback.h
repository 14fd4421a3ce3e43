// The CPU backend as the fallback of a run whose device backend fails mid-run (see
// Simulation::setFallback), and how the switch is told: one line for stderr or the app, and an
// object for the run report.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/backend.h"
#include "sim/simulation.h"

namespace hooke {

// Makes a CPU backend loaded with the given model and state, with these solver settings.
BackendFallbackFactory cpuFallback(const SolverSettings& settings);

// "the cuda backend failed at solve 57 (<reason>); continuing on the cpu backend from the state
// at t = 1.12 s"
std::string describeSwitch(const BackendSwitch& record);

// The report's "backend_fallback": {at_solve, time, from, to, reason}, or null when none.
nlohmann::json backendSwitchJson(const std::optional<BackendSwitch>& record);

}  // namespace hooke
