// Chooses a simulation backend by name: cpu, cuda, or auto (CUDA when a usable device exists).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sim/backend.h"
#include "sim/status.h"

namespace hooke {

struct BackendChoice {
  std::unique_ptr<Backend> backend;
  std::string fallback_reason;  // set when auto fell back to the CPU: why CUDA was not used
};

// name: "auto", "cpu" or "cuda". "cuda" fails when no usable device exists; "auto" then falls
// back to the CPU backend and says why in fallback_reason.
Status createBackend(std::string_view name, BackendChoice* out);

// Loads the model into the chosen backend. For "auto", a CUDA backend that cannot load the model
// (e.g. out of device memory) or does not implement the integrator falls back to the CPU backend
// and records why; for "cuda" those are errors.
Status loadBackend(std::string_view name, const Model& model, const State& state,
                   BackendChoice* choice, std::optional<Integrator> integrator = std::nullopt);

}  // namespace hooke
