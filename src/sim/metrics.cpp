// Energies, strain and divergence checks, accumulated in double.
#include "sim/metrics.h"

#include <algorithm>
#include <cmath>

namespace hooke {

Energy computeEnergy(const Model& model, const State& state) {
  Energy e;
  const glm::dvec3 g(model.gravity);
  for (size_t i = 0; i < model.particleCount(); ++i) {
    if (model.pinned[i]) continue;
    const double m = model.mass[i];
    const glm::dvec3 v(state.v[i]);
    e.kinetic += 0.5 * m * glm::dot(v, v);
    e.gravitational -= m * glm::dot(g, glm::dvec3(state.x[i]));
  }
  for (size_t s = 0; s < model.springCount(); ++s) {
    const glm::uvec2 ends = model.spring_ends[s];
    double l = glm::length(glm::dvec3(state.x[ends.y]) - glm::dvec3(state.x[ends.x]));
    double stretch = l - model.rest_length[s];
    e.spring += 0.5 * model.stiffness[s] * stretch * stretch;
  }
  return e;
}

Strain computeStrain(const Model& model, std::span<const glm::vec3> x) {
  Strain strain;
  const size_t count = model.springCount();
  if (count == 0) return strain;
  double sum = 0.0;
  for (size_t s = 0; s < count; ++s) {
    const glm::uvec2 ends = model.spring_ends[s];
    double l = glm::length(glm::dvec3(x[ends.y]) - glm::dvec3(x[ends.x]));
    double rest = model.rest_length[s];
    double value = std::abs(l - rest) / rest;
    strain.max = std::max(strain.max, value);
    sum += value;
  }
  strain.mean = sum / static_cast<double>(count);
  return strain;
}

DivergenceGuard::DivergenceGuard(const Model& model, const State& initial) {
  const size_t n = initial.x.size();
  for (size_t i = 0; i < n; ++i)
    centroid_ += glm::dvec3(initial.x[i]);
  if (n > 0) centroid_ /= static_cast<double>(n);
  double radius = 0.0;
  for (size_t i = 0; i < n; ++i) {
    radius = std::max(radius, glm::length(glm::dvec3(initial.x[i]) - centroid_));
  }
  max_distance_ = kExtentFactor * (radius + 1.0);
  for (size_t i = 0; i < n; ++i) {
    if (!model.pinned[i]) free_mass_ += model.mass[i];
  }
}

bool DivergenceGuard::check(const State& state, double kinetic_energy) const {
  if (!std::isfinite(kinetic_energy)) return true;
  if (free_mass_ > 0.0 && kinetic_energy > kMaxSpecificKinetic * free_mass_) return true;
  const double limit2 = max_distance_ * max_distance_;
  for (size_t i = 0; i < state.x.size(); ++i) {
    const glm::vec3 x = state.x[i];
    const glm::vec3 v = state.v[i];
    if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z)) return true;
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) return true;
    glm::dvec3 d = glm::dvec3(x) - centroid_;
    if (glm::dot(d, d) > limit2) return true;
  }
  return false;
}

}  // namespace hooke
