// Preconditioned conjugate gradient on the matrix-free implicit system. Owns its work vectors;
// solve() allocates nothing once sized.
#pragma once

#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "sim/implicit_system.h"

namespace hooke {

struct CgResult {
  int iterations = 0;
  // |r| / |b| at exit, r the recurrence's residual (0 when b = 0). In exact arithmetic r = b − A x;
  // in float the two drift apart near tight tolerances (a 65536-particle volume at h = 1/60:
  // |r| = 1e-4 |b| while |b − A x| = 1.25e-2 |b|), so this says where CG stopped, not how exact x
  // is.
  float residual = 0.0f;
  bool converged = true;  // false when the cap was hit or p·Ap <= 0 (breakdown)
};

class Pcg {
 public:
  void resize(size_t particles);

  // Solves A x = b to |r| <= tolerance |b| or max_iterations. x is the initial guess on entry
  // (zero at pinned particles) and the solution on exit.
  CgResult solve(const ImplicitSystem& system, std::span<const glm::vec3> b, std::span<glm::vec3> x,
                 float tolerance, int max_iterations);

 private:
  std::vector<glm::vec3> r_, z_, p_, q_;
};

}  // namespace hooke
