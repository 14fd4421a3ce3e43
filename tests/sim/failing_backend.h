// A test backend that stands for a device that goes away mid-run: it runs the CPU backend's code
// but its `fail_at`-th step (1-based) and every step after it return an error, as a CUDA backend
// does after an illegal memory access. Named as the CUDA backend is, so the app treats it as one.
#pragma once

#include <cstdint>
#include <string>

#include "sim/backend.h"
#include "sim/cpu_backend.h"

namespace hooke {

class FailingBackend final : public Backend {
 public:
  explicit FailingBackend(int64_t fail_at, std::string name = "cuda")
      : fail_at_(fail_at), name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  Status load(const Model& model, const State& state) override { return cpu_.load(model, state); }
  Status updateModel(const Model& model) override { return cpu_.updateModel(model); }
  void setSettings(const SolverSettings& settings) override { cpu_.setSettings(settings); }
  bool supports(Integrator integrator) const override { return cpu_.supports(integrator); }
  Status step(float h, std::span<const glm::vec3> external, StepStats* stats) override {
    if (++steps_ >= fail_at_) {
      return Status::error("injected fault at step " + std::to_string(steps_) +
                           ": an illegal memory access was encountered");
    }
    return cpu_.step(h, external, stats);
  }
  void writeVisual(float alpha, std::span<glm::vec3> out) const override {
    cpu_.writeVisual(alpha, out);
  }
  void readState(State* out) const override { cpu_.readState(out); }
  int64_t steps() const { return steps_; }

 private:
  CpuBackend cpu_;
  int64_t fail_at_;
  std::string name_;
  int64_t steps_ = 0;
};

}  // namespace hooke
