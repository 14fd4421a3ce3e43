// Measures the floors of floors.h with CUDA events, after warm-up, as medians of repeated runs.
// Every CUDA call is checked; nothing here exits or throws.
#include "bench/gpu/floors.h"

#include <algorithm>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "bench/gpu/floor_kernels.h"
#include "bench/gpu/step_sample.h"

namespace hooke::bench {

namespace {

#define FL_CUDA(call)                                                                       \
  do {                                                                                      \
    cudaError_t fl_error_ = (call);                                                         \
    if (fl_error_ != cudaSuccess) {                                                         \
      return Status::error(std::string(#call) + ": " + cudaGetErrorName(fl_error_) + " (" + \
                           cudaGetErrorString(fl_error_) + ")");                            \
    }                                                                                       \
  } while (0)

// Everything the measurement allocates, freed on every way out.
struct Resources {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<void*> buffers;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Resources() {
    if (stream) cudaStreamSynchronize(stream);
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    for (void* b : buffers)
      cudaFree(b);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
    cudaGetLastError();
  }
};

Status elapsedMs(const Resources& r, double* ms) {
  float value = 0.0f;
  FL_CUDA(cudaEventSynchronize(r.stop));
  FL_CUDA(cudaEventElapsedTime(&value, r.start, r.stop));
  *ms = value;
  return Status::ok();
}

}  // namespace

Status measureFloors(Floors* out) {
  *out = Floors{};
  Resources r;
  FL_CUDA(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
  FL_CUDA(cudaEventCreate(&r.start));
  FL_CUDA(cudaEventCreate(&r.stop));

  // bandwidth: 1 GiB copied device to device; bytes moved = read + written
  {
    const size_t bytes = size_t(1) << 30;
    void *a = nullptr, *b = nullptr;
    FL_CUDA(cudaMalloc(&a, bytes));
    r.buffers.push_back(a);
    FL_CUDA(cudaMalloc(&b, bytes));
    r.buffers.push_back(b);
    FL_CUDA(cudaMemsetAsync(a, 0x3f, bytes, r.stream));  // not zeros: 0x3f3f3f3f floats
    for (int k = 0; k < 3; ++k)
      FL_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, r.stream));
    std::vector<double> rates;
    for (int k = 0; k < 15; ++k) {
      FL_CUDA(cudaEventRecord(r.start, r.stream));
      FL_CUDA(
          cudaMemcpyAsync(k % 2 ? a : b, k % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice, r.stream));
      FL_CUDA(cudaEventRecord(r.stop, r.stream));
      double ms = 0.0;
      Status s = elapsedMs(r, &ms);
      if (!s) return s;
      rates.push_back(2.0 * double(bytes) / (ms * 1e-3) / 1e9);
    }
    out->copy_gb_per_s = quantile(rates, 0.5);
    for (void* buffer : r.buffers)
      cudaFree(buffer);
    r.buffers.clear();
  }

  // latency: the 3-phase chain on 32 values
  FloorChain chain{};
  {
    float* base = nullptr;
    FL_CUDA(cudaMalloc(reinterpret_cast<void**>(&base), 5 * 32 * sizeof(float)));
    r.buffers.push_back(base);
    std::vector<float> init(5 * 32);
    for (size_t k = 0; k < init.size(); ++k)
      init[k] = 0.01f * float(k % 32 + 1);
    FL_CUDA(cudaMemcpy(base, init.data(), init.size() * sizeof(float), cudaMemcpyHostToDevice));
    chain = FloorChain{base, base + 32, base + 64, base + 96, base + 128};
  }
  constexpr int kChain = 100;  // iterations per graph / per timed stream run
  for (int k = 0; k < 10; ++k)
    FL_CUDA(launchFloorIteration(r.stream, chain));
  {
    std::vector<double> per_iteration;
    for (int rep = 0; rep < 11; ++rep) {
      FL_CUDA(cudaEventRecord(r.start, r.stream));
      for (int k = 0; k < kChain; ++k)
        FL_CUDA(launchFloorIteration(r.stream, chain));
      FL_CUDA(cudaEventRecord(r.stop, r.stream));
      double ms = 0.0;
      Status s = elapsedMs(r, &ms);
      if (!s) return s;
      per_iteration.push_back(1000.0 * ms / kChain);
    }
    out->latency_stream_us = quantile(per_iteration, 0.5);
  }
  {
    FL_CUDA(cudaStreamBeginCapture(r.stream, cudaStreamCaptureModeThreadLocal));
    cudaError_t launched = cudaSuccess;
    for (int k = 0; k < kChain && launched == cudaSuccess; ++k)
      launched = launchFloorIteration(r.stream, chain);
    cudaError_t ended = cudaStreamEndCapture(r.stream, &r.graph);
    FL_CUDA(launched);
    FL_CUDA(ended);
    FL_CUDA(cudaGraphInstantiate(&r.exec, r.graph, 0));
    for (int k = 0; k < 3; ++k)
      FL_CUDA(cudaGraphLaunch(r.exec, r.stream));
    std::vector<double> per_iteration;
    for (int rep = 0; rep < 21; ++rep) {
      FL_CUDA(cudaEventRecord(r.start, r.stream));
      FL_CUDA(cudaGraphLaunch(r.exec, r.stream));
      FL_CUDA(cudaEventRecord(r.stop, r.stream));
      double ms = 0.0;
      Status s = elapsedMs(r, &ms);
      if (!s) return s;
      per_iteration.push_back(1000.0 * ms / kChain);
    }
    out->latency_graph_us = quantile(per_iteration, 0.5);
    out->graph_node_us = out->latency_graph_us / 3.0;
  }
  {
    int device = 0, sms = 0, cooperative = 0;
    FL_CUDA(cudaGetDevice(&device));
    FL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    FL_CUDA(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (cooperative) {
      FL_CUDA(launchFloorCooperative(r.stream, chain, sms, 10));
      std::vector<double> per_iteration;
      for (int rep = 0; rep < 11; ++rep) {
        FL_CUDA(cudaEventRecord(r.start, r.stream));
        FL_CUDA(launchFloorCooperative(r.stream, chain, sms, kChain));
        FL_CUDA(cudaEventRecord(r.stop, r.stream));
        double ms = 0.0;
        Status s = elapsedMs(r, &ms);
        if (!s) return s;
        per_iteration.push_back(1000.0 * ms / kChain);
      }
      out->latency_cooperative_us = quantile(per_iteration, 0.5);
    }
  }
  FL_CUDA(cudaStreamSynchronize(r.stream));
  return Status::ok();
}

}  // namespace hooke::bench
