// Item 32 (CudaOptions::short_scalars): item 14's kernel forms an iteration's quotients by γ and α
// from reciprocals formed during the grid barrier, in the compiler's own division sequence, and
// decides |r| <= target from |r|² against bounds of target². Both must give the same bits as the
// plain division and square root for every input, or the item changes the solve. Checked here on
// the device over millions of inputs: random bit patterns over the whole double range
// (subnormals, infinities and NaNs included), the magnitudes a CG solve forms, and the edges of
// the sequence's range check and of the bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/short_scalars.h"

namespace hooke {
namespace {

uint64_t bitsOf(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}

double fromBits(uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof(v));
  return v;
}

#define HOOKE_DEVICE_OR_SKIP()                              \
  do {                                                      \
    CudaDeviceInfo device;                                  \
    std::string why_not;                                    \
    if (!queryCudaDevice(0, &device, &why_not))             \
      GTEST_SKIP() << "no usable CUDA device: " << why_not; \
  } while (false)

TEST(DeviceScalars, QuotientsFromEarlyReciprocalsAreTheDivisionsBits) {
  HOOKE_DEVICE_OR_SKIP();
  std::mt19937_64 rng(20261203);
  std::vector<double> x, y;
  // any bit pattern: every exponent, subnormals, infinities and NaNs
  for (int k = 0; k < 1 << 21; ++k) {
    x.push_back(fromBits(rng()));
    y.push_back(fromBits(rng()));
  }
  // the magnitudes of CG's sums and scalars, and quotients near the range check's ends
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-80, 80), wide(-1074, 1023);
  for (int k = 0; k < 1 << 21; ++k) {
    const double sign = (rng() & 1) ? -1.0 : 1.0;
    x.push_back(sign * std::ldexp(mantissa(rng), exponent(rng)));
    y.push_back(std::ldexp(mantissa(rng), exponent(rng)));
    x.push_back(std::ldexp(mantissa(rng), wide(rng)));
    y.push_back(std::ldexp(mantissa(rng), wide(rng)));
  }
  // divisors whose reciprocal's approximation is least accurate (significands near 1 and 2),
  // powers of two, and the specials
  const double specials[] = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::min(),
                             std::numeric_limits<double>::max(),
                             std::nextafter(1.0, 2.0),
                             std::nextafter(2.0, 1.0),
                             0x1p-1022,
                             0x1p-121,
                             0x1.cp-121,
                             0x1p-129,
                             0x1p1000};
  for (double a : specials) {
    for (double b : specials) {
      x.push_back(a);
      y.push_back(b);
    }
  }
  for (int e = -1074; e <= 1023; ++e) {
    const double p = std::ldexp(1.0, e);
    for (double b : {p, std::nextafter(2.0 * p, 0.0), std::nextafter(p, 2.0 * p)}) {
      if (!std::isfinite(b)) continue;
      for (int k = 0; k < 8; ++k) {
        x.push_back(std::ldexp(mantissa(rng), wide(rng)));
        y.push_back(b);
      }
    }
  }
  cuda::ShortScalarsCheck out;
  std::string why;
  ASSERT_TRUE(cuda::compareShortScalars(x, y, &out, &why)) << why;
  size_t differ = 0, fast = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    if (bitsOf(out.quotient[k]) != bitsOf(out.divided[k])) {
      if (++differ <= 5) {
        ADD_FAILURE() << std::hexfloat << x[k] << " / " << y[k] << ": " << out.quotient[k]
                      << " against " << out.divided[k];
      }
    }
    if (std::isnormal(out.divided[k])) ++fast;
  }
  EXPECT_EQ(differ, 0u) << "of " << x.size();
  EXPECT_GT(fast, x.size() / 2);  // most quotients are normal numbers
  std::printf("[ scalars  ] %zu quotients, %zu of them normal, %zu differ from the division\n",
              x.size(), fast, differ);
}

TEST(DeviceScalars, ConvergenceBoundsDecideAsTheSquareRoot) {
  HOOKE_DEVICE_OR_SKIP();
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-60, 60), far(-1074, 1023);
  std::vector<double> s, target;
  auto add = [&](double r_squared, double t) {
    s.push_back(r_squared);
    target.push_back(t);
  };
  for (int k = 0; k < 1 << 19; ++k) {
    const double t = std::ldexp(mantissa(rng), exponent(rng));
    const double t2 = t * t;
    // |r|² at and around target², in ulps and in relative steps down to the bounds' 2^-40
    double below = t2, above = t2;
    for (int u = 0; u < 4; ++u) {
      add(below, t);
      add(above, t);
      below = std::nextafter(below, 0.0);
      above = std::nextafter(above, std::numeric_limits<double>::infinity());
    }
    const int step = 30 + int(rng() % 25);  // 2^-30 .. 2^-54
    add(t2 * (1.0 - std::ldexp(1.0, -step)), t);
    add(t2 * (1.0 + std::ldexp(1.0, -step)), t);
    add(std::ldexp(mantissa(rng), exponent(rng)), t);  // anywhere
    // targets outside the bounded range, and any magnitude
    add(std::ldexp(mantissa(rng), far(rng)), std::ldexp(mantissa(rng), far(rng)));
  }
  const double specials[] = {0.0,
                             -0.0,
                             std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::max(),
                             0x1p-400,
                             std::nextafter(0x1p-400, 0.0),
                             0x1p400,
                             std::nextafter(0x1p400, 0x1p401),
                             1e-4};
  for (double a : specials) {
    for (double b : specials)
      add(a, b);
  }
  for (double t : {0x1p-400, 0x1p400, 1.0, 1e-4}) {  // the bounded range's ends
    double r2 = t * t;
    for (int u = 0; u < 64; ++u) {
      add(r2, t);
      r2 = std::nextafter(r2, 0.0);
    }
  }
  cuda::ShortScalarsCheck out;
  std::string why;
  ASSERT_TRUE(cuda::compareShortScalars(s, target, &out, &why)) << why;
  size_t differ = 0, converged = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    if (out.passes[k] != out.rooted[k]) {
      if (++differ <= 5) {
        ADD_FAILURE() << std::hexfloat << "|r|² " << s[k] << ", target " << target[k]
                      << ": bounds say " << int(out.passes[k]);
      }
    }
    converged += out.rooted[k];
  }
  EXPECT_EQ(differ, 0u) << "of " << s.size();
  // both decisions occur often, close to the bounds too
  EXPECT_GT(converged, s.size() / 5);
  EXPECT_LT(converged, s.size() - s.size() / 5);
  std::printf("[ scalars  ] %zu decisions, %zu converged, %zu differ from the square root's\n",
              s.size(), converged, differ);
}

}  // namespace
}  // namespace hooke
