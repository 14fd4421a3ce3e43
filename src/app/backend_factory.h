// Chooses a simulation backend by name: cpu, cuda, or auto (CUDA when a usable device exists).
#pragma once

#include <memory>
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

// Loads the model into the chosen backend; for "auto", a CUDA load failure (e.g. out of device
// memory) falls back to the CPU backend and records why.
Status loadBackend(std::string_view name, const Model& model, const State& state,
                   BackendChoice* choice);

}  // namespace hooke
