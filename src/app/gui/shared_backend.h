// A Backend that forwards every call to a backend it shares with the app, so the app can start a
// new Simulation (new dt, skip or model) on the same backend state without reloading it. Adds no
// behaviour of its own.
#pragma once

#include <memory>
#include <utility>

#include "sim/backend.h"

namespace hooke {

class SharedBackend final : public Backend {
 public:
  explicit SharedBackend(std::shared_ptr<Backend> target) : target_(std::move(target)) {}

  std::string_view name() const override { return target_->name(); }
  Status load(const Model& model, const State& state) override {
    return target_->load(model, state);
  }
  Status updateModel(const Model& model) override { return target_->updateModel(model); }
  void setSettings(const SolverSettings& settings) override { target_->setSettings(settings); }
  bool supports(Integrator integrator) const override { return target_->supports(integrator); }
  Status step(float h, std::span<const glm::vec3> external, StepStats* stats) override {
    return target_->step(h, external, stats);
  }
  void writeVisual(float alpha, std::span<glm::vec3> out) const override {
    target_->writeVisual(alpha, out);
  }
  void readState(State* out) const override { target_->readState(out); }

 private:
  std::shared_ptr<Backend> target_;
};

}  // namespace hooke
