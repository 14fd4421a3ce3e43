// The per-spring force, damper and Jacobian of DESIGN.md "Physics", written once and shared by the
// CPU loops (sim/) and the CUDA kernels (cuda/). Only GLM here: nvcc compiles it as device code.
#pragma once

#include <glm/glm.hpp>

#if defined(__CUDACC__)
#define HOOKE_HD __host__ __device__ __forceinline__
#else
#define HOOKE_HD inline
#endif

namespace hooke {

// springs shorter than this have no defined direction; they exert no force
inline constexpr float kDegenerateLength = 1e-12f;

struct SpringForce {
  glm::vec3 on_i;  // force on particle i; particle j receives -on_i
  glm::vec3 n;     // unit direction from i to j (zero when degenerate)
  float length;    // current length l
};

// d = x_j − x_i, l = |d|, n = d / l
// f_i = k (l − L) n + c ((v_j − v_i)·n) n,   f_j = −f_i
HOOKE_HD SpringForce springForce(glm::vec3 xi, glm::vec3 xj, glm::vec3 vi, glm::vec3 vj, float rest,
                                 float k, float c) {
  SpringForce out;
  glm::vec3 d = xj - xi;
  out.length = glm::length(d);
  if (!(out.length > kDegenerateLength)) {
    out.n = glm::vec3(0.0f);
    out.on_i = glm::vec3(0.0f);
    return out;
  }
  out.n = d / out.length;
  float magnitude = k * (out.length - rest) + c * glm::dot(vj - vi, out.n);
  out.on_i = magnitude * out.n;
  return out;
}

// The spring's Jacobian blocks, written as coefficients of n nᵀ and I:
//   K = ∂f_i/∂x_j = k [ n nᵀ + max(0, 1 − L/l) (I − n nᵀ) ] = stiff_nn n nᵀ + stiff_iso I
//   D = ∂f_i/∂v_j = c n nᵀ                                    = damp_nn n nᵀ
// with stiff_iso = k max(0, 1 − L/l) and stiff_nn = k − stiff_iso. The clamp keeps K positive
// semi-definite under compression. ∂f_i/∂x_i = −K and ∂f_i/∂v_i = −D.
struct SpringJacobian {
  glm::vec3 n;
  float stiff_nn;
  float stiff_iso;
  float damp_nn;
};

HOOKE_HD SpringJacobian springJacobian(glm::vec3 n, float length, float rest, float k, float c) {
  SpringJacobian out;
  out.n = n;
  float ratio = length > kDegenerateLength ? 1.0f - rest / length : 0.0f;
  out.stiff_iso = k * glm::max(0.0f, ratio);
  out.stiff_nn = k - out.stiff_iso;
  out.damp_nn = c;
  return out;
}

// K p, the stiffness block applied to a vector
HOOKE_HD glm::vec3 applyStiffness(const SpringJacobian& J, glm::vec3 p) {
  return J.stiff_nn * glm::dot(J.n, p) * J.n + J.stiff_iso * p;
}

// The spring's block of the implicit-Euler matrix A = M − h ∂f/∂v − h² ∂f/∂x:
//   S = h D + h² K = a n nᵀ + b I,  a = h damp_nn + h² stiff_nn,  b = h² stiff_iso.
// A p receives +S (p_i − p_j) at i and +S (p_j − p_i) at j.
struct SystemBlock {
  glm::vec3 n;
  float a;
  float b;
};

HOOKE_HD SystemBlock systemBlock(const SpringJacobian& J, float h) {
  SystemBlock out;
  out.n = J.n;
  out.a = h * J.damp_nn + h * h * J.stiff_nn;
  out.b = h * h * J.stiff_iso;
  return out;
}

HOOKE_HD glm::vec3 applyBlock(const SystemBlock& S, glm::vec3 p) {
  return S.a * glm::dot(S.n, p) * S.n + S.b * p;
}

// Spring potential energy ½ k (l − L)².
HOOKE_HD float springEnergy(float length, float rest, float k) {
  float stretch = length - rest;
  return 0.5f * k * stretch * stretch;
}

}  // namespace hooke
