// Builds and applies the implicit-Euler system spring by spring (DESIGN.md "Physics").
#include "sim/implicit_system.h"

namespace hooke {

void ImplicitSystem::resize(const Model& model) {
  blocks_.resize(model.springCount());
  diagonal_.resize(model.particleCount());
  inverse_diagonal_.resize(model.particleCount());
  rhs_.resize(model.particleCount());
}

void ImplicitSystem::prepare(const Model& model, std::span<const glm::vec3> x0,
                             std::span<const glm::vec3> f0, float h, std::span<const glm::vec3> d,
                             float d_scale) {
  model_ = &model;
  const size_t n = model.particleCount();

  // mass and air-drag part of A: M − h ∂f_drag/∂v = (m_i + h c_air) I;  b starts as h f0
  for (size_t i = 0; i < n; ++i) {
    diagonal_[i] = model.pinned[i] ? 0.0f : model.mass[i] + h * model.drag;
    inverse_diagonal_[i] = glm::mat3(diagonal_[i]);
    rhs_[i] = h * f0[i];
  }

  // per spring: S = h D + h² K; its diagonal blocks; b_i −= h s K (d_i − d_j), b_j += the same
  for (size_t s = 0; s < model.springCount(); ++s) {
    const glm::uvec2 e = model.spring_ends[s];
    glm::vec3 delta = x0[e.y] - x0[e.x];
    float length = glm::length(delta);
    glm::vec3 n = length > kDegenerateLength ? delta / length : glm::vec3(0.0f);
    SpringJacobian J =
        springJacobian(n, length, model.rest_length[s], model.stiffness[s], model.damping[s]);
    SystemBlock S = systemBlock(J, h);
    blocks_[s] = S;

    glm::mat3 block = S.a * glm::outerProduct(n, n) + glm::mat3(S.b);
    inverse_diagonal_[e.x] += block;
    inverse_diagonal_[e.y] += block;

    if (!d.empty()) {
      glm::vec3 kd = (h * d_scale) * applyStiffness(J, d[e.x] - d[e.y]);
      rhs_[e.x] -= kd;
      rhs_[e.y] += kd;
    }
  }

  // filter pinned degrees of freedom; invert the free diagonal blocks (SPD: mass > 0)
  for (size_t i = 0; i < n; ++i) {
    if (model.pinned[i]) {
      inverse_diagonal_[i] = glm::mat3(0.0f);
      rhs_[i] = glm::vec3(0.0f);
    } else {
      inverse_diagonal_[i] = glm::inverse(inverse_diagonal_[i]);
    }
  }
}

void ImplicitSystem::apply(std::span<const glm::vec3> p, std::span<glm::vec3> out) const {
  const Model& model = *model_;
  const size_t n = model.particleCount();
  for (size_t i = 0; i < n; ++i)
    out[i] = diagonal_[i] * p[i];
  for (size_t s = 0; s < blocks_.size(); ++s) {
    const glm::uvec2 e = model.spring_ends[s];
    glm::vec3 q = applyBlock(blocks_[s], p[e.x] - p[e.y]);
    out[e.x] += q;
    out[e.y] -= q;
  }
  for (size_t i = 0; i < n; ++i) {
    if (model.pinned[i]) out[i] = glm::vec3(0.0f);
  }
}

void ImplicitSystem::precondition(std::span<const glm::vec3> r, std::span<glm::vec3> out) const {
  for (size_t i = 0; i < r.size(); ++i)
    out[i] = inverse_diagonal_[i] * r[i];
}

}  // namespace hooke
