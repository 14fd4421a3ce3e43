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
  float residual = 0.0f;  // |b − A x| / |b| at exit (0 when b = 0)
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
