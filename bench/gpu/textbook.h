// The textbook GPU baseline of the benchmark: the implicit system assembled as a scalar CSR matrix
// on the GPU every step, solved by Jacobi-preconditioned CG from cusparseSpMV and cuBLAS with α
// and β on the host (NVIDIA's conjugateGradient sample, plus the preconditioner). Benchmark only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bench/gpu/step_sample.h"
#include "sim/backend.h"
#include "sim/model.h"
#include "sim/status.h"

namespace hooke::bench {

class TextbookCg {
 public:
  TextbookCg();
  ~TextbookCg();
  TextbookCg(const TextbookCg&) = delete;
  TextbookCg& operator=(const TextbookCg&) = delete;

  // Builds the CSR pattern on the host, uploads the model and state, creates the handles.
  Status load(const Model& model, const State& state);

  // Puts the loaded model back to `state` (same particle count), keeping the matrix pattern.
  Status reset(const Model& model, const State& state);

  // One implicit step of h; CG to |r| <= tolerance |b| or max_iterations.
  Status step(float h, const SolverSettings& settings, StepSample* out);

  size_t nonzeros() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hooke::bench
