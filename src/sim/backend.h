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

// explicit:   explicit Euler (the course template's method)
// symplectic: symplectic (semi-implicit) Euler
// implicit:   backward Euler linearised once per step (Baraff–Witkin): one CG solve
// newton:     backward Euler solved by Newton iterations to a residual tolerance
// bdf2:       second-order backward differentiation, Newton-solved; much less numerical damping
enum class Integrator { kExplicit, kSymplectic, kImplicit, kNewton, kBdf2 };

inline constexpr Integrator kAllIntegrators[] = {Integrator::kExplicit, Integrator::kSymplectic,
                                                 Integrator::kImplicit, Integrator::kNewton,
                                                 Integrator::kBdf2};

std::string_view integratorName(Integrator integrator);
bool parseIntegrator(std::string_view name, Integrator* out);

struct SolverSettings {
  Integrator integrator = Integrator::kImplicit;
  float tolerance = 1e-4f;   // CG stops when |r| <= tolerance |b|
  int max_iterations = 500;  // CG iteration cap
  // newton and bdf2: stop when |g| <= newton_tolerance · h |M g_gravity + f(x0, v0)|, g the
  // residual of the implicit equations, or after newton_max_iterations
  float newton_tolerance = 1e-2f;
  int newton_max_iterations = 10;
};

// newton and bdf2 also stop when, from the third iterate on, |g| is already within
// kNewtonStallBand of the target but an iterate shrank it by less than a quarter: the float state
// has reached the floor its rounding puts under |g| (on a 16 x 16 cloth at k = 1e4 about 3 % of
// the scale above, so 1e-2 is out of reach there) and further iterates only cost time. Far from
// the target |g| may rise for an iterate while Φ falls, so it never stops there early: stopping
// at 3 iterates regardless made the falling cloth of docs/EVALUATION.md sink too slowly.
// StepStats::newton_residual then reports where it stopped.
inline constexpr double kNewtonStallRatio = 0.75;
inline constexpr double kNewtonStallBand = 10.0;
inline constexpr int kNewtonStallFrom = 3;

// Whether a Newton solve stops after this iterate.
inline bool newtonDone(int iteration, double residual, double previous_residual, double target) {
  return residual <= target ||
         (iteration >= kNewtonStallFrom && residual <= kNewtonStallBand * target &&
          residual > kNewtonStallRatio * previous_residual);
}

// What one step did. Times are wall-clock milliseconds spent in each phase.
struct StepStats {
  int cg_iterations = 0;         // summed over Newton iterations
  int newton_iterations = 0;     // linear solves this step (1 for implicit)
  float newton_residual = 0.0f;  // newton, bdf2: final |g| / (h |M g_gravity + f0|)
  float cg_residual = 0.0f;      // final |r| / |b| (CG's recurrence; CgResult::residual says
                                 // how it differs from |b − A x|); 0 when trivially solved
  bool cg_converged = true;      // false when CG hit the cap or broke down
  double force_ms = 0.0;         // forces, Jacobians and right-hand side
  double solve_ms = 0.0;         // the linear solve
  double commit_ms = 0.0;        // writing x1, v1
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

  // Whether step() implements this integrator.
  virtual bool supports(Integrator integrator) const = 0;

  // Advances the state by h seconds. external holds one force (N) per particle, or is empty.
  // The previous state is kept for writeVisual.
  virtual Status step(float h, std::span<const glm::vec3> external, StepStats* stats) = 0;

  // out[i] = lerp(previous x_i, current x_i, alpha), alpha in [0, 1].
  virtual void writeVisual(float alpha, std::span<glm::vec3> out) const = 0;

  // Copies the current state out.
  virtual void readState(State* out) const = 0;
};

}  // namespace hooke
