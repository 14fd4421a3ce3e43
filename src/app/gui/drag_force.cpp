// The spring-to-cursor force, the patch that carries it, and its defaults.
#include "app/gui/drag_force.h"

#include <algorithm>
#include <cmath>

namespace hooke {

glm::vec3 pullForce(const Pull& pull, const PullSettings& settings, const glm::vec3& x,
                    const glm::vec3& v) {
  if (!pull.active()) return glm::vec3(0.0f);
  // f = k (target − x) − c v
  glm::vec3 force = settings.stiffness * (pull.target - x) - settings.damping * v;
  const glm::vec3 d = pull.direction;
  if (pull.constraint == PullConstraint::kAxis) return glm::dot(force, d) * d;
  return force - glm::dot(force, d) * d;
}

PullPatch pullPatch(std::span<const glm::vec3> x, std::span<const float> mass,
                    std::span<const uint8_t> pinned, uint32_t held, float radius) {
  PullPatch patch;
  if (held >= x.size() || held >= mass.size()) return patch;

  // w_i = exp(−d² / (2 σ²)), σ = radius / 2, over the free particles within the radius
  const float sigma = 0.5f * radius;
  const glm::vec3 centre = x[held];
  std::vector<float> weighted;  // m_i w_i, parallel to patch.shares
  patch.shares.push_back({held, 0.0f});
  weighted.push_back(mass[held]);
  for (size_t i = 0; i < x.size() && radius > 0.0f; ++i) {
    if (i == held || (i < pinned.size() && pinned[i])) continue;
    const float d2 = glm::dot(x[i] - centre, x[i] - centre);
    if (d2 > radius * radius) continue;
    patch.shares.push_back({uint32_t(i), 0.0f});
    weighted.push_back(mass[i] * std::exp(-d2 / (2.0f * sigma * sigma)));
  }

  // shares m_i w_i / M
  double total = 0.0;
  for (float w : weighted)
    total += w;
  patch.mass = float(total);
  for (size_t k = 0; k < weighted.size(); ++k) {
    patch.shares[k].share = total > 0.0 ? float(weighted[k] / total) : (k == 0 ? 1.0f : 0.0f);
  }
  return patch;
}

PullSettings defaultPull(const PullScale& scale) {
  const double h = scale.h;
  const double m = std::max(double(scale.patch_mass), 1e-9);
  const double k_eff = scale.sheet ? 0.0 : double(scale.stiffness);
  PullSettings pull;
  // k_pull = M / (2 h²) + k_eff / 4,  c_pull = 2 ζ √(k_pull M) with ζ = 0.5
  pull.stiffness = float(std::max(0.5 * m / (h * h) + 0.25 * k_eff, 1e-3));
  pull.damping = float(std::sqrt(double(pull.stiffness) * m));
  return pull;
}

}  // namespace hooke
