// `hooke evaluate`: the validation study of docs/EVALUATION.md. Three parts:
//   drop       the built-in cloth (k = 1e5) falling from horizontal, per implicit integrator at
//              dt 0.05 and 0.1 and a converged bdf2 reference: time to reach the hanging depth,
//              max strain, cost per step
//   spring1d   the closed-form checks at m 1 kg, k 100 N/m, c 0.1 N·s/m, dt 0.01 s: amplitude
//              error after 10 periods, period error, added damping ratio, order of accuracy
//   stability  explicit (and symplectic) Euler's measured divergence dt vs 2 / ω_max and c / k
// Prints a compact table; writes DIR/evaluation.json and one CSV per part, atomically.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace hooke {

struct EvaluateOptions {
  std::string out_dir;
  std::string parts = "drop,spring1d,stability";
  std::string drop_res = "10,32";   // cloth resolutions of the drop study
  double stability_duration = 1.0;  // s per run of the stability sweep
};

void addEvaluateOptions(CLI::App* command, EvaluateOptions* options);

// Returns the exit code: 0 written; 2 bad input (one line on stderr, no file left behind).
int evaluateCommand(const EvaluateOptions& options);

}  // namespace hooke
