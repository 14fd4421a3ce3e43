// Item 14's CG (Chronopoulos–Gear with the block-Jacobi preconditioner) on the CPU in the device's
// precision: float vectors, sums in double, α and β rounded to float; divisions for the scalars
// (items 44 and 49 off), the sums in row order rather than by block, the model's particle order.
// For hooke-cg-rounding and hooke-cg-forms; no device is involved.
#pragma once

#include <cmath>
#include <vector>

#include <glm/glm.hpp>

#include "sim/implicit_system.h"

namespace hooke::bench {

inline constexpr int kCgCap = 500;  // the app's cap

// a · b exact in double (float products are exact there)
inline double dotExact(glm::vec3 a, glm::vec3 b) {
  return double(a.x) * b.x + double(a.y) * b.y + double(a.z) * b.z;
}

// a · b formed in float and converted once (item 50's row terms)
inline double dotFloat(glm::vec3 a, glm::vec3 b) {
  return double(std::fma(a.z, b.z, std::fma(a.y, b.y, a.x * b.x)));
}

// iterations: the updates of Δv made until the recurrence's |r| passed the target (the cap when
// it did not; where a denominator was not positive, the updates made until then, and breakdown)
struct CgSolve {
  int iterations = 0;
  bool breakdown = false;
};

// Δv from A Δv = b, from Δv = 0, until |r|² <= target² by the recurrence's r. w = A u is carried
// with s = A p, and α comes from r·u and w·u of one sum. float_terms: each row's terms of r·u, w·u
// and r·r formed in float (dotFloat), else exact.
inline CgSolve chronopoulosGear(const ImplicitSystem& system, const std::vector<glm::vec3>& b,
                                double target, bool float_terms, std::vector<glm::vec3>& x) {
  const size_t n = b.size();
  auto dot = [&](glm::vec3 a, glm::vec3 c) {
    return float_terms ? dotFloat(a, c) : dotExact(a, c);
  };
  std::vector<glm::vec3> r(b), u(n), w(n), p(n), s(n);
  std::fill(x.begin(), x.end(), glm::vec3(0.0f));
  // init: u = P⁻¹ r, w = A u, α = (r·u) / (w·u)
  system.precondition(r, u);
  system.apply(u, w);
  double gamma = 0.0, delta = 0.0;
  for (size_t i = 0; i < n; ++i) {
    gamma += dotExact(r[i], u[i]);
    delta += dotExact(w[i], u[i]);
  }
  if (!(delta > 0.0)) return {0, true};
  float alpha = float(gamma / delta), beta = 0.0f;
  for (int t = 0; t < kCgCap;) {
    for (size_t i = 0; i < n; ++i) {  // p = u + β p, s = w + β s, Δv += α p, r' = r − α s
      p[i] = t == 0 ? u[i] : u[i] + beta * p[i];
      s[i] = t == 0 ? w[i] : w[i] + beta * s[i];
      x[i] += alpha * p[i];
      r[i] -= alpha * s[i];
    }
    system.precondition(r, u);  // u' = P⁻¹ r', w' = A u'
    system.apply(u, w);
    double ru = 0.0, wu = 0.0, rr = 0.0;
    for (size_t i = 0; i < n; ++i) {
      ru += dot(r[i], u[i]);
      wu += dot(w[i], u[i]);
      rr += dot(r[i], r[i]);
    }
    ++t;
    if (rr <= target * target) return {t, false};
    const double beta_next = ru / gamma, eta = wu - beta_next * ru / double(alpha);
    if (!(eta > 0.0)) return {t, true};
    alpha = float(ru / eta);
    beta = float(beta_next);
    gamma = ru;
  }
  return {kCgCap, false};
}

}  // namespace hooke::bench
