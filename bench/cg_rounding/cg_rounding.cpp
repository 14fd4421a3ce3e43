// hooke-cg-rounding: how much a change of rounding moves the iterations item 14's CG takes to
// tolerance. Runs the GPU grid's algorithm on the CPU (Chronopoulos–Gear PCG with the block-Jacobi
// preconditioner: float vectors, double sums, one pass of sums per iteration), though not its
// arithmetic to the bit: divisions for the scalars (items 44 and 49 off), the sums in row order
// rather than by block, the model's particle order. Implicit-Euler trajectories of a scene from its
// initial state, each following its own solutions, with each row's terms of r'·u', w'·u', r'·r'
// either exact in double ("exact", dotDouble) or formed in float and converted once ("float", item
// 50's dotRow); each from the initial state and from NUDGES states with one free particle moved up
// by one float ulp ("exact+k", "float+k": the free particle nearest k/(NUDGES + 1) of the order).
// Prints each step's iterations, each trajectory's total and median from step FROM on, and each
// form's range over its trajectories: where the two ranges overlap, the float terms move the
// counts no more than a one-ulp nudge of the state does.
//   Usage: hooke-cg-rounding cloth|volume RES STEPS [FROM [NUDGES]]
//          (h = 1/60, tolerance 1e-4, cap 500; FROM 0, NUDGES 1 by default; NUDGES up to 16)
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "bench/cg_on_cpu.h"
#include "bench/whole_number.h"
#include "sim/forces.h"
#include "sim/implicit_system.h"
#include "sim/scenes.h"

namespace {

using hooke::ImplicitSystem;

// Δv from A Δv = b, x starting at zero; the iterations taken (the cap when not converged)
int solve(const ImplicitSystem& system, const std::vector<glm::vec3>& b, bool float_terms,
          std::vector<glm::vec3>& x) {
  constexpr double kTolerance = 1e-4;
  double bb = 0.0;
  for (const glm::vec3& v : b)
    bb += hooke::bench::dotExact(v, v);
  return hooke::bench::chronopoulosGear(system, b, kTolerance * std::sqrt(bb), float_terms, x)
      .iterations;
}

double median(std::vector<int> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t k = v.size();
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

int usage(const char* why) {
  std::fprintf(stderr,
               "hooke-cg-rounding: %s (usage: hooke-cg-rounding cloth|volume RES STEPS [FROM "
               "[NUDGES]])\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 6) return usage("expects a scene, a resolution and a step count");
  const std::string scene_name = argv[1];
  if (scene_name != "cloth" && scene_name != "volume") return usage("the scene is cloth or volume");
  int res = 0, steps = 0, from = 0, nudges = 1;
  if (!hooke::bench::parseWholeNumber(argv[2], 2, 256, &res))
    return usage("RES is a whole number from 2 to 256");
  if (!hooke::bench::parseWholeNumber(argv[3], 1, 1000, &steps))
    return usage("STEPS is a whole number from 1 to 1000");
  if (argc >= 5 && !hooke::bench::parseWholeNumber(argv[4], 0, steps - 1, &from))
    return usage("FROM is a step from 0 to STEPS - 1");
  if (argc == 6 && !hooke::bench::parseWholeNumber(argv[5], 0, 16, &nudges))
    return usage("NUDGES is a whole number from 0 to 16");

  const hooke::Scene scene =
      scene_name == "cloth" ? hooke::makeCloth(res, {}) : hooke::makeVolume(res, {});
  const hooke::Model& model = scene.model;
  const size_t n = scene.state.x.size();
  constexpr float kH = 1.0f / 60.0f;
  struct Run {
    std::string name;
    bool float_terms;
    hooke::State state;
    std::vector<int> iterations;
  };
  std::vector<Run> runs;
  for (int k = 0; k <= nudges; ++k) {
    hooke::State state = scene.state;
    std::string suffix;
    if (k > 0) {
      // the free particle nearest k / (nudges + 1) of the order, one ulp up
      size_t i = size_t(double(n) * k / (nudges + 1));
      while (i < n && model.pinned[i])
        ++i;
      if (i == n) return usage("the scene has no free particle to nudge there");
      float& y = state.x[i].y;
      const float y0 = y;
      y = std::nextafter(y, 2.0f * std::fabs(y) + 1.0f);
      char tag[16];
      std::snprintf(tag, sizeof tag, "+%d", k);
      suffix = tag;
      std::printf("nudge %d: particle %zu moved %.2e m\n", k, i, double(y) - double(y0));
    }
    runs.push_back({"exact" + suffix, false, state, {}});
    runs.push_back({"float" + suffix, true, state, {}});
  }
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
    std::printf(" %8s", run.name.c_str());
  std::printf("\n");
  for (int k = 0; k < steps; ++k) {
    std::printf("%4d", k);
    for (const Run& run : runs)
      std::printf(" %8d", run.iterations[size_t(k)]);
    std::printf("\n");
  }
  struct Range {
    long low = LONG_MAX, high = 0, sum = 0;
    double median_low = 1e300, median_high = 0.0;
    int count = 0;
  } ranges[2];
  for (const Run& run : runs) {
    const std::vector<int> tail(run.iterations.begin() + from, run.iterations.end());
    long total = 0;
    for (int v : run.iterations)
      total += v;
    const double m = median(tail);
    Range& r = ranges[run.float_terms];
    r.low = std::min(r.low, total);
    r.high = std::max(r.high, total);
    r.sum += total;
    r.median_low = std::min(r.median_low, m);
    r.median_high = std::max(r.median_high, m);
    ++r.count;
    std::printf("%-8s total %ld, median from step %d %.1f\n", run.name.c_str(), total, from, m);
  }
  for (int f = 0; f < 2; ++f)
    std::printf(
        "%s terms over %d trajectories: totals %ld to %ld (mean %.0f), medians %.1f to %.1f\n",
        f ? "float" : "exact", ranges[f].count, ranges[f].low, ranges[f].high,
        double(ranges[f].sum) / ranges[f].count, ranges[f].median_low, ranges[f].median_high);
  return 0;
}
