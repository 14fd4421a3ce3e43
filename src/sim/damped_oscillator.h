// The closed-form damped harmonic oscillator m u'' + c u' + k u = 0, the exact answer spring1d is
// checked against. Header-only, standard library only.
#pragma once

#include <cmath>

namespace hooke {

struct DampedOscillator {
  double m, k, c;  // kg, N/m, N·s/m
  double u0, v0;   // initial displacement from equilibrium (m) and velocity (m/s)

  double naturalFrequency() const { return std::sqrt(k / m); }          // ω0 = √(k/m)
  double dampingRatio() const { return c / (2.0 * std::sqrt(k * m)); }  // ζ = c / (2√(km))

  // u(t) = e^{−ζω0 t} (u0 cos ωd t + (v0 + ζ ω0 u0) / ωd sin ωd t),  ωd = ω0 √(1 − ζ²)  (ζ < 1)
  // u(t) = e^{−ω0 t} (u0 + (v0 + ω0 u0) t)                                         (ζ = 1)
  // u(t) = A e^{r1 t} + B e^{r2 t},  r = −ω0 (ζ ∓ √(ζ² − 1))                         (ζ > 1)
  double displacement(double t) const {
    const double w0 = naturalFrequency(), zeta = dampingRatio();
    if (zeta < 1.0) {
      const double wd = w0 * std::sqrt(1.0 - zeta * zeta);
      return std::exp(-zeta * w0 * t) *
             (u0 * std::cos(wd * t) + (v0 + zeta * w0 * u0) / wd * std::sin(wd * t));
    }
    if (zeta == 1.0) return std::exp(-w0 * t) * (u0 + (v0 + w0 * u0) * t);
    const double s = std::sqrt(zeta * zeta - 1.0);
    const double r1 = -w0 * (zeta - s), r2 = -w0 * (zeta + s);
    const double b = (v0 - r1 * u0) / (r2 - r1);
    return (u0 - b) * std::exp(r1 * t) + b * std::exp(r2 * t);
  }
};

}  // namespace hooke
