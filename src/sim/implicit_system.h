// The linear system of one linearised implicit-Euler step, kept matrix-free:
//   A Δv = b,  A = M − h ∂f/∂v − h² ∂f/∂x,  b = h (f0 + h ∂f/∂x v0)
// with pinned degrees of freedom filtered out (their rows and columns act as zero). Owns its
// buffers; prepare() allocates nothing once sized.
#pragma once

#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "sim/model.h"
#include "sim/spring_force.h"

namespace hooke {

class ImplicitSystem {
 public:
  void resize(const Model& model);

  // Linearises at positions x (the damper's Jacobian does not depend on v) with forces f (already
  // including external input) for step h, with the right-hand side b = h (f + d_scale ∂f/∂x d);
  // d may be empty (then b = h f). Baraff–Witkin's step is d = v0, d_scale = h.
  void prepare(const Model& model, std::span<const glm::vec3> x, std::span<const glm::vec3> f,
               float h, std::span<const glm::vec3> d, float d_scale);

  // The right-hand side, for callers that add terms (zero it again at pinned particles).
  std::span<glm::vec3> mutableRhs() { return rhs_; }

  // out = A p (zero at pinned particles; p must be zero there)
  void apply(std::span<const glm::vec3> p, std::span<glm::vec3> out) const;

  // out = P⁻¹ r with P the 3×3 block diagonal of A (zero at pinned particles)
  void precondition(std::span<const glm::vec3> r, std::span<glm::vec3> out) const;

  std::span<const glm::vec3> rhs() const { return rhs_; }
  std::span<const SystemBlock> blocks() const { return blocks_; }
  std::span<const float> diagonal() const { return diagonal_; }

 private:
  const Model* model_ = nullptr;
  std::vector<SystemBlock> blocks_;          // (springs) S_s = a n nᵀ + b I
  std::vector<float> diagonal_;              // (particles) m_i + h c_air, 0 when pinned
  std::vector<glm::mat3> inverse_diagonal_;  // (particles) inverse of A's diagonal block
  std::vector<glm::vec3> rhs_;               // (particles) b
};

}  // namespace hooke
