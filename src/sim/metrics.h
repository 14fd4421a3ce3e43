// Per-solve measurements (energies, spring strain) and divergence detection. Pure functions of a
// model and a state.
#pragma once

#include <span>

#include <glm/glm.hpp>

#include "sim/model.h"

namespace hooke {

struct Energy {
  double kinetic = 0.0;        // Σ ½ m |v|² over free particles
  double gravitational = 0.0;  // Σ −m g·x over free particles
  double spring = 0.0;         // Σ ½ k (l − L)²
  double potential() const { return gravitational + spring; }
  double total() const { return kinetic + gravitational + spring; }
};

struct Strain {
  double max = 0.0;   // max |l − L| / L
  double mean = 0.0;  // mean |l − L| / L
};

Energy computeEnergy(const Model& model, const State& state);
Strain computeStrain(const Model& model, std::span<const glm::vec3> x);

// Flags states no physical run reaches: a non-finite value, a particle farther than
// kExtentFactor × (initial radius + 1 m) from the initial centroid, or kinetic energy above
// kMaxSpecificKinetic J per kg of free mass (a mean speed of about 14 km/s).
class DivergenceGuard {
 public:
  static constexpr double kExtentFactor = 1000.0;
  static constexpr double kMaxSpecificKinetic = 1.0e8;

  explicit DivergenceGuard(const Model& model, const State& initial);

  // true when the state has diverged
  bool check(const State& state, double kinetic_energy) const;

 private:
  glm::dvec3 centroid_{0.0};
  double max_distance_ = 0.0;
  double free_mass_ = 0.0;
};

}  // namespace hooke
