// hooke-cg-forms: forms of preconditioned CG on the same systems, on the CPU in the device's
// precision (float vectors, sums in double, α and β rounded to float), with the block-Jacobi
// preconditioner:
//   standard:  two sums an iteration (p·q before α, r·z after the update), as the CPU reference
//              and the launched path order them;
//   cg:        Chronopoulos–Gear, one sum an iteration (r·u, w·u, r·r), item 14's grid kernel;
//   pipelined: Ghysels & Vanroose 2014, Alg. 4 (preconditioned): one sum, and n = A m whose m =
//              P⁻¹ w is known before that sum, so a grid kernel could gather rows while the sum and
//              its barrier are in flight; u, w, q and z carried as recurrences too (four more than
//              Chronopoulos–Gear's p, s, Δv, r), m and n formed every iteration;
//   replaced:  pipelined with its recurrences replaced by what they stand for every 10 iterations;
//   restarted: replaced, and at a breakdown replaced again and restarted from p = u;
//   double:    pipelined with its vectors, α and β in double, the products and P⁻¹ still in float
//              (not the device's precision: what double recurrences alone would do).
// One implicit-Euler trajectory of the scene (h = 1/60) that follows standard PCG's solutions; at
// every step each form solves that step's A Δv = b from Δv = 0 until its own recurrence's
// |r| <= 1e-4 |b| (cap 500). Prints per step each form's iterations and the true residual
// |b − A Δv| / |b| it leaves, then each form's total and median iterations, its worst true
// residual, and its largest distance from standard PCG's Δv (relative to that Δv's largest |Δv|).
// No device is involved.
//   Usage: hooke-cg-forms cloth|volume RES STEPS
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include <glm/glm.hpp>

#include "bench/cg_on_cpu.h"
#include "bench/whole_number.h"
#include "sim/forces.h"
#include "sim/implicit_system.h"
#include "sim/scenes.h"

namespace {

using hooke::ImplicitSystem;
using hooke::bench::CgSolve;
using hooke::bench::kCgCap;
using Vectors = std::vector<glm::vec3>;

constexpr double kTolerance = 1e-4;
constexpr int kReplaceEvery = 10;
constexpr int kMaxRestarts = 20;

double dot(const Vectors& a, const Vectors& b) {
  double sum = 0.0;
  for (size_t i = 0; i < a.size(); ++i)
    sum += hooke::bench::dotExact(a[i], b[i]);
  return sum;
}

CgSolve standardPcg(const ImplicitSystem& system, const Vectors& b, double target, Vectors& x) {
  const size_t n = b.size();
  Vectors r(b), z(n), p(n), q(n);
  system.precondition(r, z);
  p = z;
  double gamma = dot(r, z);
  for (int t = 0; t < kCgCap;) {
    system.apply(p, q);
    const double pq = dot(p, q);
    if (!(pq > 0.0)) return {t, true};
    const float alpha = float(gamma / pq);
    for (size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    ++t;
    if (dot(r, r) <= target * target) return {t, false};
    system.precondition(r, z);
    const double gamma_next = dot(r, z);
    const float beta = float(gamma_next / gamma);
    for (size_t i = 0; i < n; ++i)
      p[i] = z[i] + beta * p[i];
    gamma = gamma_next;
  }
  return {kCgCap, false};
}

// item 14's form, the sums' row terms exact
CgSolve chronopoulosGear(const ImplicitSystem& system, const Vectors& b, double target,
                         Vectors& x) {
  return hooke::bench::chronopoulosGear(system, b, target, false, x);
}

// The system's product (or, with `precondition`, P⁻¹) of a vector of V: float vectors as they are,
// double ones rounded to float for the call and back (the products stay float)
template <typename V>
void productOf(const ImplicitSystem& system, bool precondition, const std::vector<V>& in,
               std::vector<V>& out, Vectors& in_float, Vectors& out_float) {
  if constexpr (std::is_same_v<V, glm::vec3>) {
    precondition ? system.precondition(in, out) : system.apply(in, out);
  } else {
    for (size_t i = 0; i < in.size(); ++i)
      in_float[i] = glm::vec3(in[i]);
    precondition ? system.precondition(in_float, out_float) : system.apply(in_float, out_float);
    for (size_t i = 0; i < in.size(); ++i)
      out[i] = V(out_float[i]);
  }
}

template <typename V>
double dotOf(V a, V b) {
  return double(a.x) * b.x + double(a.y) * b.y + double(a.z) * b.z;
}

// Pipelined (Ghysels & Vanroose 2014, Alg. 4): u = P⁻¹ r and w = A u as recurrences too, and
// m = P⁻¹ w, n = A m formed every iteration beside the sum of r·u, w·u, r·r, which they do not
// need. With `replace_every` > 0, every that many iterations the recurrences are replaced by what
// they stand for (r = b − A Δv, u = P⁻¹ r, w = A u, s = A p, q = P⁻¹ s, z = A q: four more
// products A v). With `restart`, a breakdown replaces them too and goes on from p = u (β = 0), up
// to kMaxRestarts times a solve. V: glm::vec3 (the device's precision: float vectors, α and β) or
// glm::dvec3 (vectors, α and β in double; the products and P⁻¹ still in float).
template <typename V>
CgSolve pipelinedEvery(const ImplicitSystem& system, const Vectors& b, double target, Vectors& x,
                       int replace_every, bool restart = false) {
  using S = typename V::value_type;
  const size_t size = b.size();
  std::vector<V> r(b.begin(), b.end()), u(size), w(size), m(size), n(size), z(size), q(size),
      s(size), p(size), dv(size);
  const size_t converted = std::is_same_v<V, glm::vec3> ? 0 : size;  // (double vectors only)
  Vectors in_float(converted), out_float(converted);
  auto product = [&](const std::vector<V>& in, std::vector<V>& out) {
    productOf(system, false, in, out, in_float, out_float);
  };
  auto precondition = [&](const std::vector<V>& in, std::vector<V>& out) {
    productOf(system, true, in, out, in_float, out_float);
  };
  auto done = [&](int t, bool breakdown) {
    for (size_t i = 0; i < size; ++i)
      x[i] = glm::vec3(dv[i]);
    return CgSolve{t, breakdown};
  };
  precondition(r, u);
  product(u, w);
  // r, u and w replaced; s, q and z too unless the next iteration restarts from p = u (β = 0),
  // which sets them from w, m and n
  auto replace = [&](bool restarting) {
    product(dv, r);
    for (size_t i = 0; i < size; ++i)
      r[i] = V(b[i]) - r[i];
    precondition(r, u);
    product(u, w);
    if (restarting) return;
    product(p, s);
    precondition(s, q);
    product(q, z);
  };
  double gamma_before = 0.0;
  S alpha = 0, beta = 0;
  bool fresh = true;  // the first iteration, or the first after a restart: β = 0
  int restarts = 0;
  for (int t = 0;;) {
    double gamma = 0.0, delta = 0.0, rr = 0.0;
    for (size_t i = 0; i < size; ++i) {
      gamma += dotOf(r[i], u[i]);
      delta += dotOf(w[i], u[i]);
      rr += dotOf(r[i], r[i]);
    }
    if (t > 0 && rr <= target * target) return done(t, false);
    if (t == kCgCap) return done(kCgCap, false);
    precondition(w, m);  // (on the device: while the sum is in flight)
    product(m, n);
    if (fresh) {
      if (!(delta > 0.0)) return done(t, true);
      alpha = S(gamma / delta);
    } else {
      const double beta_next = gamma / gamma_before,
                   eta = delta - beta_next * gamma / double(alpha);
      if (!(eta > 0.0)) {
        if (!restart || restarts == kMaxRestarts) return done(t, true);
        ++restarts;  // replaced, then on from p = u as at the start
        replace(true);
        fresh = true;
        continue;
      }
      alpha = S(gamma / eta);
      beta = S(beta_next);
    }
    for (size_t i = 0; i < size; ++i) {
      z[i] = fresh ? n[i] : n[i] + beta * z[i];
      q[i] = fresh ? m[i] : m[i] + beta * q[i];
      s[i] = fresh ? w[i] : w[i] + beta * s[i];
      p[i] = fresh ? u[i] : u[i] + beta * p[i];
      dv[i] += alpha * p[i];
      r[i] -= alpha * s[i];
      u[i] -= alpha * q[i];
      w[i] -= alpha * z[i];
    }
    fresh = false;
    gamma_before = gamma;
    ++t;
    if (replace_every > 0 && t % replace_every == 0) replace(false);
  }
}

CgSolve pipelined(const ImplicitSystem& system, const Vectors& b, double target, Vectors& x) {
  return pipelinedEvery<glm::vec3>(system, b, target, x, 0);
}

// pipelined, its recurrences replaced every kReplaceEvery iterations
CgSolve pipelinedReplaced(const ImplicitSystem& system, const Vectors& b, double target,
                          Vectors& x) {
  return pipelinedEvery<glm::vec3>(system, b, target, x, kReplaceEvery);
}

// pipelined, replaced every kReplaceEvery iterations and restarted at a breakdown
CgSolve pipelinedRestarted(const ImplicitSystem& system, const Vectors& b, double target,
                           Vectors& x) {
  return pipelinedEvery<glm::vec3>(system, b, target, x, kReplaceEvery, true);
}

// pipelined with its vectors, α and β in double (not the device's precision): the float products
// and P⁻¹ alone
CgSolve pipelinedDouble(const ImplicitSystem& system, const Vectors& b, double target, Vectors& x) {
  return pipelinedEvery<glm::dvec3>(system, b, target, x, 0);
}

double median(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  const size_t k = v.size();
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

int usage(const char* why) {
  std::fprintf(stderr, "hooke-cg-forms: %s (usage: hooke-cg-forms cloth|volume RES STEPS)\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return usage("expects a scene, a resolution and a step count");
  const std::string scene_name = argv[1];
  if (scene_name != "cloth" && scene_name != "volume") return usage("the scene is cloth or volume");
  int res = 0, steps = 0;
  if (!hooke::bench::parseWholeNumber(argv[2], 2, 256, &res))
    return usage("RES is a whole number from 2 to 256");
  if (!hooke::bench::parseWholeNumber(argv[3], 1, 1000, &steps))
    return usage("STEPS is a whole number from 1 to 1000");

  hooke::Scene scene =
      scene_name == "cloth" ? hooke::makeCloth(res, {}) : hooke::makeVolume(res, {});
  const hooke::Model& model = scene.model;
  hooke::State& state = scene.state;
  const size_t n = state.x.size();
  constexpr float kH = 1.0f / 60.0f;
  struct Form {
    const char* name;
    CgSolve (*solve)(const ImplicitSystem&, const Vectors&, double, Vectors&);
    std::vector<int> iterations;
    double worst_residual = 0.0, worst_distance = 0.0;
    int breakdowns = 0;
  };
  Form forms[] = {{"standard", standardPcg, {}},         {"cg", chronopoulosGear, {}},
                  {"pipelined", pipelined, {}},          {"replaced", pipelinedReplaced, {}},
                  {"restarted", pipelinedRestarted, {}}, {"double", pipelinedDouble, {}}};
  std::printf(
      "%s %d: %zu particles, %zu springs; %d implicit steps (h = 1/60, tolerance 1e-4, cap %d) "
      "following standard PCG's solutions\nstep",
      scene_name.c_str(), res, n, model.springCount(), steps, kCgCap);
  for (const Form& form : forms)
    std::printf(&form == &forms[0] ? " | %s: iterations, |b - A dv| / |b|" : " | %s", form.name);
  std::printf("\n");
  ImplicitSystem system;
  system.resize(model);
  Vectors force(n), reference(n), dv(n), product(n);
  for (int k = 0; k < steps; ++k) {
    hooke::computeForces(model, state.x, state.v, {}, force);
    system.prepare(model, state.x, force, kH, state.v, kH);
    const Vectors b(system.rhs().begin(), system.rhs().end());
    const double b_norm = std::sqrt(dot(b, b));
    std::printf("%4d", k);
    for (Form& form : forms) {
      Vectors& x = &form == &forms[0] ? reference : dv;
      std::fill(x.begin(), x.end(), glm::vec3(0.0f));
      const CgSolve solve = form.solve(system, b, kTolerance * b_norm, x);
      system.apply(x, product);
      double residual = 0.0, distance = 0.0, largest = 0.0;
      for (size_t i = 0; i < n; ++i) {
        const glm::dvec3 e = glm::dvec3(b[i]) - glm::dvec3(product[i]);
        residual += glm::dot(e, e);
        distance = std::max(distance, glm::length(glm::dvec3(x[i]) - glm::dvec3(reference[i])));
        largest = std::max(largest, glm::length(glm::dvec3(reference[i])));
      }
      const double relative = b_norm > 0.0 ? std::sqrt(residual) / b_norm : 0.0;
      form.iterations.push_back(solve.iterations);
      form.worst_residual = std::max(form.worst_residual, relative);
      if (largest > 0.0) form.worst_distance = std::max(form.worst_distance, distance / largest);
      form.breakdowns += solve.breakdown;
      std::printf(" | %3d%s %.2e", solve.iterations, solve.breakdown ? "!" : "", relative);
    }
    std::printf("\n");
    for (size_t i = 0; i < n; ++i) {
      state.v[i] += reference[i];
      state.x[i] += kH * state.v[i];
    }
  }
  for (const Form& form : forms) {
    long total = 0;
    for (int v : form.iterations)
      total += v;
    std::printf(
        "%-9s total %ld, median %.1f; worst |b - A dv| / |b| %.2e; farthest from standard's dv "
        "%.2e; breakdowns %d\n",
        form.name, total, median(form.iterations), form.worst_residual, form.worst_distance,
        form.breakdowns);
  }
  return 0;
}
