// The CPU fallback of a failing device backend and the words and JSON that report it.
#include "app/backend_fallback.h"

#include <cstdio>
#include <memory>

#include "sim/cpu_backend.h"

namespace hooke {

BackendFallbackFactory cpuFallback(const SolverSettings& settings) {
  return [settings](const Model& model, const State& state, std::unique_ptr<Backend>* out) {
    auto cpu = std::make_unique<CpuBackend>();
    if (Status s = cpu->load(model, state); !s) return s;
    cpu->setSettings(settings);
    *out = std::move(cpu);
    return Status::ok();
  };
}

std::string describeSwitch(const BackendSwitch& record) {
  char time[32];
  std::snprintf(time, sizeof time, "%.6g", record.time);
  return "the " + record.from + " backend failed at solve " + std::to_string(record.at_solve) +
         " (" + record.reason + "); continuing on the " + record.to +
         " backend from the state at t = " + time + " s";
}

nlohmann::json backendSwitchJson(const std::optional<BackendSwitch>& record) {
  if (!record) return nullptr;
  return {{"at_solve", record->at_solve},
          {"time", record->time},
          {"from", record->from},
          {"to", record->to},
          {"reason", record->reason}};
}

}  // namespace hooke
