// hooke-cg-rounding: how much a change of rounding moves the iterations item 14's CG takes to
// tolerance. Emulates the GPU grid's solve on the CPU (Chronopoulos–Gear PCG with the block-Jacobi
// preconditioner: float vectors, double sums, one pass of sums per iteration, in row order) and
// runs three implicit-Euler trajectories of a scene from its initial state, each following its
// own solutions:
//   exact    each row's terms of r'·u', w'·u', r'·r' exact in double (dotDouble)
//   float    each row's terms formed in float and converted once (item 50's dotRow)
//   nudged   exact terms, from a state with one particle moved 1e-7 m
// and prints each step's iterations, the totals and the medians from a given step on. Where
// "float" and "nudged" move the counts alike, the change of rounding is not what moved them.
//   Usage: hooke-cg-rounding cloth|volume RES STEPS [FROM]   (h = 1/60, tolerance 1e-4, cap 500)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "sim/forces.h"
#include "sim/implicit_system.h"
#include "sim/scenes.h"

namespace {

using hooke::ImplicitSystem;

double dotExact(glm::vec3 a, glm::vec3 b) {
  return double(a.x) * b.x + double(a.y) * b.y + double(a.z) * b.z;
}

double dotFloat(glm::vec3 a, glm::vec3 b) {
  return double(std::fma(a.z, b.z, std::fma(a.y, b.y, a.x * b.x)));
}

// Δv from A Δv = b, x starting at zero; the iterations taken (the cap when not converged)
int solve(const ImplicitSystem& system, const std::vector<glm::vec3>& b, bool float_terms,
          std::vector<glm::vec3>& x) {
  constexpr double kTolerance = 1e-4;
  constexpr int kCap = 500;
  const size_t n = b.size();
  auto dot = [&](glm::vec3 a, glm::vec3 c) {
    return float_terms ? dotFloat(a, c) : dotExact(a, c);
  };
  std::vector<glm::vec3> r(b), u(n), w(n), p(n), s(n);
  std::fill(x.begin(), x.end(), glm::vec3(0.0f));
  double bb = 0.0;
  for (const glm::vec3& v : b)
    bb += dotExact(v, v);
  const double target = kTolerance * std::sqrt(bb);
  // init: u = P⁻¹ r, w = A u, α = (r·u) / (w·u)
  system.precondition(r, u);
  system.apply(u, w);
  double gamma = 0.0, delta = 0.0;
  for (size_t i = 0; i < n; ++i) {
    gamma += dotExact(r[i], u[i]);
    delta += dotExact(w[i], u[i]);
  }
  if (!(delta > 0.0)) return 0;
  float alpha = float(gamma / delta), beta = 0.0f;
  for (int t = 0; t < kCap;) {
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
    if (rr <= target * target) return t;
    const double beta_next = ru / gamma, eta = wu - beta_next * ru / double(alpha);
    if (!(eta > 0.0)) return t;  // breakdown
    alpha = float(ru / eta);
    beta = float(beta_next);
    gamma = ru;
  }
  return kCap;
}

double median(std::vector<int> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t k = v.size();
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

bool parseInt(const char* text, int low, int high, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < low || v > high) return false;
  *out = int(v);
  return true;
}

int usage(const char* why) {
  std::fprintf(stderr,
               "hooke-cg-rounding: %s (usage: hooke-cg-rounding cloth|volume RES STEPS [FROM])\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) return usage("expects a scene, a resolution and a step count");
  const std::string scene_name = argv[1];
  if (scene_name != "cloth" && scene_name != "volume") return usage("the scene is cloth or volume");
  int res = 0, steps = 0, from = 0;
  if (!parseInt(argv[2], 2, 256, &res)) return usage("RES is a whole number from 2 to 256");
  if (!parseInt(argv[3], 1, 1000, &steps)) return usage("STEPS is a whole number from 1 to 1000");
  if (argc == 5 && !parseInt(argv[4], 0, steps - 1, &from))
    return usage("FROM is a step from 0 to STEPS - 1");

  const hooke::Scene scene =
      scene_name == "cloth" ? hooke::makeCloth(res, {}) : hooke::makeVolume(res, {});
  const hooke::Model& model = scene.model;
  const size_t n = scene.state.x.size();
  constexpr float kH = 1.0f / 60.0f;
  struct Run {
    const char* name;
    bool float_terms;
    hooke::State state;
    std::vector<int> iterations;
  };
  Run runs[3] = {{"exact", false, scene.state, {}},
                 {"float", true, scene.state, {}},
                 {"nudged", false, scene.state, {}}};
  runs[2].state.x[n / 2].y += 1e-7f;
  ImplicitSystem system;
  system.resize(model);
  std::vector<glm::vec3> force(n), dv(n);
  for (Run& run : runs) {
    for (int k = 0; k < steps; ++k) {
      hooke::State& st = run.state;
      hooke::computeForces(model, st.x, st.v, {}, force);
      system.prepare(model, st.x, force, kH, st.v, kH);
      const std::vector<glm::vec3> b(system.rhs().begin(), system.rhs().end());
      run.iterations.push_back(solve(system, b, run.float_terms, dv));
      for (size_t i = 0; i < n; ++i) {
        st.v[i] += dv[i];
        st.x[i] += kH * st.v[i];
      }
    }
  }
  std::printf("%s %d, %zu particles, %d implicit steps (h = 1/60, tolerance 1e-4)\nstep",
              scene_name.c_str(), res, n, steps);
  for (const Run& run : runs)
    std::printf(" %7s", run.name);
  std::printf("\n");
  for (int k = 0; k < steps; ++k) {
    std::printf("%4d", k);
    for (const Run& run : runs)
      std::printf(" %7d", run.iterations[size_t(k)]);
    std::printf("\n");
  }
  for (const Run& run : runs) {
    const std::vector<int> tail(run.iterations.begin() + from, run.iterations.end());
    long total = 0;
    for (int v : run.iterations)
      total += v;
    double apart = 0.0;
    for (size_t i = 0; i < n; ++i)
      apart = std::max(apart, double(glm::length(run.state.x[i] - runs[0].state.x[i])));
    std::printf(
        "%-7s total %ld, median from step %d %.1f, positions at the end %.2e m from exact's\n",
        run.name, total, from, median(tail), apart);
  }
  return 0;
}
