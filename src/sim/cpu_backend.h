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
  bool supports(Integrator) const override { return true; }
  Status step(float h, std::span<const glm::vec3> external, StepStats* stats) override;
  void writeVisual(float alpha, std::span<glm::vec3> out) const override;
  void readState(State* out) const override { *out = current_; }

 private:
  void stepExplicit(float h, bool symplectic);
  void stepImplicit(float h, StepStats* stats);
  void stepNewton(float beta, std::span<const glm::vec3> base_x, std::span<const glm::vec3> base_v,
                  std::span<const glm::vec3> external, StepStats* stats);
  double merit(std::span<const glm::vec3> x, std::span<const glm::vec3> v,
               std::span<const glm::vec3> base_v, std::span<const glm::vec3> external,
               float beta) const;
  double residualNorm(std::span<const glm::vec3> v, std::span<const glm::vec3> base_v,
                      std::span<const glm::vec3> f, float beta) const;

  Model model_;
  SolverSettings settings_;
  State current_;
  std::vector<glm::vec3> previous_x_;  // (particles) positions before the last step
  std::vector<glm::vec3> previous_v_;  // (particles) velocities before the last step
  bool history_valid_ = false;         // previous_* hold the state one step of history_h_ back
  float history_h_ = 0.0f;
  std::vector<glm::vec3> force_;    // (particles) work: f(x0, v0) + external
  std::vector<glm::vec3> delta_v_;  // (particles) work: the implicit solve's unknown
  // (particles) work for newton and bdf2: the base point x̂, v̂, the Newton offset d, and the
  // line search's trial velocity and forces
  std::vector<glm::vec3> base_x_, base_v_, offset_, trial_v_, trial_f_;
  ImplicitSystem system_;
  Pcg pcg_;
};

}  // namespace hooke
