// PCG with dot products accumulated in double so the float vectors converge to tight tolerances.
#include "sim/pcg.h"

#include <cmath>

namespace hooke {

namespace {

double dotProduct(std::span<const glm::vec3> a, std::span<const glm::vec3> b) {
  double sum = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    sum += double(a[i].x) * b[i].x + double(a[i].y) * b[i].y + double(a[i].z) * b[i].z;
  }
  return sum;
}

}  // namespace

void Pcg::resize(size_t particles) {
  r_.resize(particles);
  z_.resize(particles);
  p_.resize(particles);
  q_.resize(particles);
}

CgResult Pcg::solve(const ImplicitSystem& system, std::span<const glm::vec3> b,
                    std::span<glm::vec3> x, float tolerance, int max_iterations) {
  CgResult result;
  const size_t n = b.size();
  const double b_norm = std::sqrt(dotProduct(b, b));
  if (b_norm == 0.0) {
    for (size_t i = 0; i < n; ++i)
      x[i] = glm::vec3(0.0f);
    return result;
  }

  // r = b − A x, z = P⁻¹ r, p = z
  system.apply(x, q_);
  for (size_t i = 0; i < n; ++i)
    r_[i] = b[i] - q_[i];
  system.precondition(r_, z_);
  p_ = z_;
  double rz = dotProduct(r_, z_);
  double r_norm = std::sqrt(dotProduct(r_, r_));
  const double target = double(tolerance) * b_norm;

  int iteration = 0;
  while (r_norm > target && iteration < max_iterations) {
    // α = (r·z) / (p·A p)
    system.apply(p_, q_);
    double pq = dotProduct(p_, q_);
    if (!(pq > 0.0)) break;
    float alpha = static_cast<float>(rz / pq);

    // x += α p,  r −= α A p
    for (size_t i = 0; i < n; ++i) {
      x[i] += alpha * p_[i];
      r_[i] -= alpha * q_[i];
    }
    ++iteration;
    r_norm = std::sqrt(dotProduct(r_, r_));
    if (r_norm <= target) break;

    // z = P⁻¹ r,  β = (r·z)_new / (r·z)_old,  p = z + β p
    system.precondition(r_, z_);
    double rz_new = dotProduct(r_, z_);
    float beta = static_cast<float>(rz_new / rz);
    rz = rz_new;
    for (size_t i = 0; i < n; ++i)
      p_[i] = z_[i] + beta * p_[i];
  }

  result.iterations = iteration;
  result.residual = static_cast<float>(r_norm / b_norm);
  result.converged = r_norm <= target;
  return result;
}

}  // namespace hooke
