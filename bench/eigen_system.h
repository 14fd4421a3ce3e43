// An independent, assembled form of the linearised implicit-Euler system of DESIGN.md "Physics",
// as an Eigen sparse matrix: the reference for tests and the Eigen side of hooke-bench. Never
// calls sim/'s ImplicitSystem or computeForces; only reads the Model.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <glm/glm.hpp>

#include "sim/model.h"

namespace hooke {

// A (3n × 3n) and b (3n) of one implicit step, degree of freedom 3 i + axis for particle i:
//   A Δv = b,  A = M − h ∂f/∂v − h² ∂f/∂x,  b = h (f0 + h (∂f/∂x) v0)
// Pinned degrees of freedom are filtered: their rows and columns are the identity's and b is 0
// there, so the solution is 0 there. Storage is Eigen's ColMajor or RowMajor.
template <typename Scalar, int Options = Eigen::ColMajor>
struct EigenImplicitSystem {
  using Matrix = Eigen::SparseMatrix<Scalar, Options>;
  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

  Matrix A;
  Vector b;
  Vector force;  // (3n) f0 = f(x0, v0) including external input; 0 at pinned particles

  // work kept between assemblies so repeated assembly does not regrow them
  std::vector<Eigen::Triplet<Scalar>> triplets;
  std::vector<Eigen::Matrix<Scalar, 3, 3>> diagonal_blocks;
};

// Flattens per-particle vectors into one (3n) Eigen vector.
template <typename Scalar>
Eigen::Matrix<Scalar, Eigen::Dynamic, 1> flatten(std::span<const glm::vec3> values) {
  Eigen::Matrix<Scalar, Eigen::Dynamic, 1> out(3 * static_cast<Eigen::Index>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    for (int a = 0; a < 3; ++a)
      out(3 * static_cast<Eigen::Index>(i) + a) = values[i][a];
  }
  return out;
}

// Builds the system for step h at (x0, v0). external holds one force per particle, or is empty.
template <typename Scalar, int Options>
void assembleImplicitSystem(const Model& model, std::span<const glm::vec3> x0,
                            std::span<const glm::vec3> v0, std::span<const glm::vec3> external,
                            Scalar h, EigenImplicitSystem<Scalar, Options>* system) {
  using Vec3 = Eigen::Matrix<Scalar, 3, 1>;
  using Mat3 = Eigen::Matrix<Scalar, 3, 3>;
  using Index = Eigen::Index;
  const size_t n = model.particleCount();
  const Index dofs = 3 * static_cast<Index>(n);
  auto vec3 = [](glm::vec3 p) { return Vec3(Scalar(p.x), Scalar(p.y), Scalar(p.z)); };
  auto isFree = [&model](uint32_t i) { return model.pinned[i] == 0; };

  EigenImplicitSystem<Scalar, Options>& s = *system;
  s.force.setZero(dofs);
  s.b.setZero(dofs);
  s.diagonal_blocks.assign(n, Mat3::Zero());
  s.triplets.clear();
  s.triplets.reserve(9 * n + 18 * model.springCount());

  // gravity, air drag and input: f_i = m_i g − c_air v_i + e_i
  // mass and drag block of A: M − h ∂f_drag/∂v = (m_i + h c_air) I
  const Vec3 gravity = vec3(model.gravity);
  const Scalar drag = Scalar(model.drag);
  for (size_t i = 0; i < n; ++i) {
    Vec3 f = Scalar(model.mass[i]) * gravity - drag * vec3(v0[i]);
    if (!external.empty()) f += vec3(external[i]);
    s.force.template segment<3>(3 * Index(i)) = f;
    s.diagonal_blocks[i] = (Scalar(model.mass[i]) + h * drag) * Mat3::Identity();
  }

  for (size_t k = 0; k < model.springCount(); ++k) {
    const uint32_t i = model.spring_ends[k].x, j = model.spring_ends[k].y;
    const Scalar rest = Scalar(model.rest_length[k]);
    const Scalar stiffness = Scalar(model.stiffness[k]);
    const Scalar damping = Scalar(model.damping[k]);

    // d = x_j − x_i, l = |d|, n = d / l; a spring of no length has no direction and no force
    const Vec3 d = vec3(x0[j]) - vec3(x0[i]);
    const Scalar length = d.norm();
    if (!(length > Scalar(1e-12))) continue;
    const Vec3 dir = d / length;

    // f_i = k (l − L) n + c ((v_j − v_i)·n) n,  f_j = −f_i
    const Vec3 vji = vec3(v0[j]) - vec3(v0[i]);
    const Vec3 fi = (stiffness * (length - rest) + damping * vji.dot(dir)) * dir;
    s.force.template segment<3>(3 * Index(i)) += fi;
    s.force.template segment<3>(3 * Index(j)) -= fi;

    // K = ∂f_i/∂x_j = k [ n nᵀ + max(0, 1 − L/l) (I − n nᵀ) ],  D = ∂f_i/∂v_j = c n nᵀ
    // (∂f_i/∂x_i = −K, ∂f_i/∂v_i = −D, and the same for j)
    const Mat3 nn = dir * dir.transpose();
    const Mat3 K =
        stiffness * (nn + std::max(Scalar(0), Scalar(1) - rest / length) * (Mat3::Identity() - nn));
    const Mat3 D = damping * nn;

    // A = M − h ∂f/∂v − h² ∂f/∂x gets S = h D + h² K on the diagonal blocks, −S off them
    const Mat3 S = h * D + h * h * K;
    s.diagonal_blocks[i] += S;
    s.diagonal_blocks[j] += S;
    if (isFree(i) && isFree(j)) {
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
          s.triplets.emplace_back(3 * Index(i) + r, 3 * Index(j) + c, -S(r, c));
          s.triplets.emplace_back(3 * Index(j) + r, 3 * Index(i) + c, -S(c, r));
        }
      }
    }

    // h² (∂f/∂x) v0:  row i gets h² K (v0_j − v0_i), row j gets h² K (v0_i − v0_j)
    const Vec3 kv = h * h * (K * vji);
    s.b.template segment<3>(3 * Index(i)) += kv;
    s.b.template segment<3>(3 * Index(j)) -= kv;
  }

  // b = h f0 + h² (∂f/∂x) v0; filter pinned degrees of freedom: identity rows, zero b and f0
  for (size_t i = 0; i < n; ++i) {
    const Index row = 3 * Index(i);
    if (!isFree(uint32_t(i))) {
      s.force.template segment<3>(row).setZero();
      s.b.template segment<3>(row).setZero();
      for (int a = 0; a < 3; ++a)
        s.triplets.emplace_back(row + a, row + a, Scalar(1));
      continue;
    }
    s.b.template segment<3>(row) += h * s.force.template segment<3>(row);
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        s.triplets.emplace_back(row + r, row + c, s.diagonal_blocks[i](r, c));
      }
    }
  }

  // duplicates (none are pushed today) would be summed
  s.A.resize(dofs, dofs);
  s.A.setFromTriplets(s.triplets.begin(), s.triplets.end());
}

}  // namespace hooke
