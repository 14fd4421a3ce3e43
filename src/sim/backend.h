// The interface every simulation backend implements (CPU in sim/, CUDA in cuda/), so the CLI, the
// app and the tests drive either the same way. Backends own their state between steps.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <glm/glm.hpp>

#include "sim/model.h"
#include "sim/status.h"

namespace hooke {

enum class Integrator { kExplicit, kSymplectic, kImplicit };

std::string_view integratorName(Integrator integrator);
bool parseIntegrator(std::string_view name, Integrator* out);

struct SolverSettings {
  Integrator integrator = Integrator::kImplicit;
  float tolerance = 1e-4f;   // CG stops when |r| <= tolerance |b|
  int max_iterations = 500;  // CG iteration cap
};

// What one step did. Times are wall-clock milliseconds spent in each phase.
struct StepStats {
  int cg_iterations = 0;
  float cg_residual = 0.0f;  // final |r| / |b|; 0 when the system was trivially solved
  bool cg_converged = true;  // false when CG hit the cap or broke down
  double force_ms = 0.0;     // forces, Jacobians and right-hand side
  double solve_ms = 0.0;     // the linear solve
  double commit_ms = 0.0;    // writing x1, v1
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;

  // Takes a model and its state; allocates everything a step needs.
  virtual Status load(const Model& model, const State& state) = 0;

  // Replaces masses, stiffness, damping, rest lengths, gravity and drag of the loaded model
  // without touching the state. The topology (particles, spring ends, pinned set) must match.
  virtual Status updateModel(const Model& model) = 0;

  virtual void setSettings(const SolverSettings& settings) = 0;

  // Advances the state by h seconds. external holds one force (N) per particle, or is empty.
  // The previous state is kept for writeVisual.
  virtual Status step(float h, std::span<const glm::vec3> external, StepStats* stats) = 0;

  // out[i] = lerp(previous x_i, current x_i, alpha), alpha in [0, 1].
  virtual void writeVisual(float alpha, std::span<glm::vec3> out) const = 0;

  // Copies the current state out.
  virtual void readState(State* out) const = 0;
};

}  // namespace hooke
