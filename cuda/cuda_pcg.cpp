// Plans and launches the GPU PCG iterations (kernels in pcg_kernels.cu). The host touches the CG
// state only once per block of K iterations; it must never decide anything from stale scalars.
#include "cuda/cuda_pcg.h"

#include <string>

#include "cuda/cuda_check.h"

namespace hooke::cuda {

CudaPcg::~CudaPcg() {
  dropGraph();
}

void CudaPcg::dropGraph() {
  if (graph_) cudaGraphExecDestroy(graph_);
  graph_ = nullptr;
}

void CudaPcg::configure(const CgPlan& plan) {
  dropGraph();
  plan_ = plan;
  if (plan_.check_interval < 1) plan_.check_interval = 1;
}

// One iteration, five launches:
//   q = A p, Σ p·q  ->  α = r·z / p·q  ->  Δv += α p, r −= α q, z = P⁻¹ r, Σ r·r, Σ r·z
//   ->  |r|, converged?, β = (r·z)_new / (r·z)_old  ->  p = z + β p
// or three when fused_finish: the α and β kernels' work is done by the last block of the
// kernel before them; or two with item 26: the update, β and the direction in one cooperative
// launch.
Status CudaPcg::launchIteration() {
  const CgPlan& c = plan_;
  HOOKE_CUDA_TRY(launchApply(c.apply, c.stream, c.float4_layout, c.applyFused(), c.model, c.system,
                             c.vectors, c.reduction, c.scalars, c.lanes, c.batch, c.entries,
                             c.apply_mode, c.dependent));
  if (c.joined()) {
    HOOKE_CUDA_TRY(launchUpdateDirection(c.update, c.direction_held, c.stream, c.float4_layout,
                                         c.model.particles, c.system, c.vectors, c.reduction,
                                         c.scalars, c.alphaJoined() ? c.apply : Launch{}));
    return Status::ok();
  }
  if (!c.fused_finish) {
    HOOKE_CUDA_TRY(
        launchAlpha(c.finish_threads, c.stream, c.reduction, c.apply.grid, c.scalars, c.dependent));
  }
  HOOKE_CUDA_TRY(launchUpdate(c.update, c.stream, c.float4_layout, c.fused_finish,
                              c.dv_in_direction, c.model.particles, c.system, c.vectors,
                              c.reduction, c.scalars, c.dependent));
  if (!c.fused_finish) {
    HOOKE_CUDA_TRY(
        launchBeta(c.finish_threads, c.stream, c.reduction, c.update.grid, c.scalars, c.dependent));
  }
  HOOKE_CUDA_TRY(launchDirection(c.direction, c.stream, c.float4_layout, c.dv_in_direction,
                                 c.model.particles, c.vectors, c.scalars, c.dependent));
  return Status::ok();
}

// K iterations captured once into a graph (item 10); the kernels' parameters are all pointers
// and sizes fixed by configure(), so one capture serves every later solve.
Status CudaPcg::captureBlock() {
  HOOKE_CUDA_TRY(cudaStreamBeginCapture(plan_.stream, cudaStreamCaptureModeThreadLocal));
  Status launched = Status::ok();
  for (int k = 0; k < plan_.check_interval && launched; ++k)
    launched = launchIteration();
  cudaGraph_t graph = nullptr;
  cudaError_t ended = cudaStreamEndCapture(plan_.stream, &graph);
  if (!launched) {
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();  // the failed capture's error is reported through `launched`
    return launched;
  }
  if (ended != cudaSuccess) {
    return cudaStatus(ended, "cudaStreamEndCapture(stream, &graph)", __FILE__, __LINE__);
  }
  cudaError_t made = cudaGraphInstantiate(&graph_, graph, 0);
  cudaGraphDestroy(graph);
  if (made != cudaSuccess) {
    graph_ = nullptr;
    return cudaStatus(made, "cudaGraphInstantiate(&graph_, graph, 0)", __FILE__, __LINE__);
  }
  return Status::ok();
}

Status CudaPcg::launchBlock() {
  if (plan_.use_graph) {
    if (!graph_) HOOKE_TRY(captureBlock());
    HOOKE_CUDA_TRY(cudaGraphLaunch(graph_, plan_.stream));
    return Status::ok();
  }
  for (int k = 0; k < plan_.check_interval; ++k)
    HOOKE_TRY(launchIteration());
  return Status::ok();
}

Status CudaPcg::solve(int start_count, float tolerance, int max_iterations, CgResult* out) {
  const CgPlan& c = plan_;
  HOOKE_CUDA_TRY(launchCgStart(c.finish_threads, c.stream, c.reduction, start_count, c.scalars,
                               tolerance, max_iterations, c.vectors.dv, c.model.particles,
                               c.float4_layout ? 16 : 12));
  // The device stops itself (done) on convergence, breakdown or the cap; the host only looks
  // every K iterations. The bound below is a guard against a logic error, never reached.
  const long long guard = static_cast<long long>(max_iterations) + 2LL * c.check_interval;
  long long launched = 0;
  for (;;) {
    HOOKE_TRY(launchBlock());
    launched += c.check_interval;
    HOOKE_CUDA_TRY(cudaMemcpyAsync(c.host_scalars, c.scalars, sizeof(CgScalars),
                                   cudaMemcpyDeviceToHost, c.stream));
    HOOKE_CUDA_TRY(cudaStreamSynchronize(c.stream));
    if (c.host_scalars->done) break;
    if (launched > guard) {
      return Status::error("CUDA PCG did not stop after " + std::to_string(launched) +
                           " iterations (cap " + std::to_string(max_iterations) + ")");
    }
  }
  const CgScalars& s = *c.host_scalars;
  out->iterations = s.iterations;
  out->residual = s.b_norm > 0.0 ? static_cast<float>(s.r_norm / s.b_norm) : 0.0f;
  out->converged = s.converged != 0;
  return Status::ok();
}

}  // namespace hooke::cuda
