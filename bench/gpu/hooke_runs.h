// Runs hooke's CUDA backend through the public Backend interface for the benchmark: a fresh
// backend per run, warm-up steps, then timed steps. Must not reach into cuda/'s internals.
#pragma once

#include "bench/gpu/step_sample.h"
#include "cuda/cuda_backend.h"
#include "sim/model.h"

namespace hooke::bench {

// Loads `scene` into a new CUDA backend made with `options`, runs `warmup` steps of h, then times
// `steps` more. The summary says which CG path ran, or why nothing did.
RunSummary runHooke(const CudaOptions& options, const Scene& scene, const SolverSettings& settings,
                    float h, int warmup, int steps);

class TextbookCg;

// The same for the textbook baseline, loaded once per scene (its CSR pattern is costly to build)
// and reset to the scene's initial state before each run.
RunSummary runTextbook(TextbookCg& textbook, const Scene& scene, const SolverSettings& settings,
                       float h, int warmup, int steps);

}  // namespace hooke::bench
