// The CPU backend: the reference implementation of every integrator, single-threaded and
// deterministic. The GPU backend is tested against it.
#pragma once

#include <vector>

#include "sim/backend.h"
#include "sim/implicit_system.h"
#include "sim/pcg.h"

namespace hooke {

class CpuBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  Status load(const Model& model, const State& state) override;
  Status updateModel(const Model& model) override;
  void setSettings(const SolverSettings& settings) override { settings_ = settings; }
  Status step(float h, std::span<const glm::vec3> external, StepStats* stats) override;
  void writeVisual(float alpha, std::span<glm::vec3> out) const override;
  void readState(State* out) const override { *out = current_; }

 private:
  void stepExplicit(float h, bool symplectic);
  void stepImplicit(float h, StepStats* stats);

  Model model_;
  SolverSettings settings_;
  State current_;
  std::vector<glm::vec3> previous_x_;  // (particles) positions before the last step
  std::vector<glm::vec3> force_;       // (particles) work: f(x0, v0) + external
  std::vector<glm::vec3> delta_v_;     // (particles) work: the implicit solve's unknown
  ImplicitSystem system_;
  Pcg pcg_;
};

}  // namespace hooke
