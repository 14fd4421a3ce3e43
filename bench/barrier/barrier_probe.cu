// hooke-barrier-probe: grid barrier protocols in the shape of item 14's cooperative kernel (129
// blocks of 512 threads: the 16k volume; 128 of 128: the 1k cloth), each iteration a little
// vector work, a block sum of three doubles, the barrier and, with "+ sums", the grid-wide sums of
// the blocks' partials by warps 0-2 as item 29 forms them. Prints µs per iteration (best of 7
// launches, 20,000 against 1,000 iterations). What it measured on the H200 is in
// docs/PERFORMANCE.md ("Item 33", "The grid barrier's protocols") and
// bench/results/barrier-probe-h200-*.txt. Not a test: it asserts nothing and needs a GPU.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__device__ __forceinline__ double warpAllSum(double v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
// The warp's total of up to 160 block partials, 5 a lane (lane + 32 k), past nb counting 0
__device__ __forceinline__ double lanesTotal(const double (&xs)[5], int lane, unsigned nb) {
  double t = 0;
#pragma unroll
  for (int k = 0; k < 5; ++k)
    t += 32 * k + lane < int(nb) ? xs[k] : 0.0;
  return warpAllSum(t);
}
__device__ __forceinline__ void redRelease(unsigned* p, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned atomRelease(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;"
               : "=r"(old)
               : "l"(p), "r"(v)
               : "memory");
  return old;
}
__device__ __forceinline__ unsigned atomAcqRel(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;"
               : "=r"(old)
               : "l"(p), "r"(v)
               : "memory");
  return old;
}
__device__ __forceinline__ void stRelease(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ldAcquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void stRelaxed64(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void ldRelaxed2x64(const unsigned long long* p, unsigned long long& a,
                                              unsigned long long& b) {
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
               : "=l"(a), "=l"(b)
               : "l"(p)
               : "memory");
}
__device__ __forceinline__ unsigned ldRelaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// V: 0 cg grid.sync, 1 red + acquire poll, 2 atom (last skips poll), 3 red + relaxed poll + fence,
// 4 two levels (K groups of consecutive blocks, the last of each arriving at the top word),
// 5 a flag per block that warp 0 of every block polls, 6 flags polled by block 0, which then
// releases the others through one word
// 7 tagged partials: each block stores its three sums as six 8-byte words, a 32-bit half of a
// double and the iteration's tag each, after one fence; warps 0-2 of every block poll all blocks'
// words of their sum with relaxed loads issued together, then fence (K = 1: every polling lane
// fences; K = 0: lane 0 after __syncwarp)
// S: with grid sums (3 warps read the partials) or barrier only
template <int V, bool S, int K = 8>
__global__ void __launch_bounds__(512, 1) probe(int iters, unsigned* counter, double* partials,
                                                int stride, double* out, float* vec, int n) {
  __shared__ double ws[3][32];
  __shared__ double totals[3];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  double acc = 0;
  const unsigned nb = gridDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = i < n ? vec[i] : 0.f;
  for (int it = 0; it < iters; ++it) {
    // a little work: neighbour read of the vector written the iteration before, a write
    const int j = (i + 977) % n;
    float y = vec[(it & 1) * n + j];
    x = 0.5f * x + 0.25f * y + 1e-3f;
    if (i < n) vec[((it + 1) & 1) * n + i] = x;
    double v[3] = {x, x * x, acc * 1e-9};
    for (int k = 0; k < 3; ++k)
      v[k] = warpAllSum(v[k]);
    if (lane == 0)
      for (int k = 0; k < 3; ++k)
        ws[k][warp] = v[k];
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int k = 0; k < 3; ++k) {
        double t = 0;
        for (int w = 0; w < warps; ++w)
          t += ws[k][w];
        partials[((it & 1) * 3 + k) * stride + blockIdx.x] = t;
      }
    }
    const unsigned target = nb * unsigned(it + 1);
    if constexpr (V == 7) {
      // the block's totals were stored by thread 0 above into `partials`; republish them tagged
      unsigned long long* words = reinterpret_cast<unsigned long long*>(counter + 32 * 64);
      __syncthreads();
      const unsigned tag = unsigned(it + 1);
      if (threadIdx.x == 0) {
        __threadfence();
        for (int k = 0; k < 3; ++k) {
          const double t = partials[((it & 1) * 3 + k) * stride + blockIdx.x];
          const unsigned long long bits = __double_as_longlong(t);
          unsigned long long* w = words + (((it & 1) * 3 + k) * stride + blockIdx.x) * 2;
          stRelaxed64(w, (bits >> 32) << 32 | tag);
          stRelaxed64(w + 1, (bits & 0xffffffffull) << 32 | tag);
        }
      }
      if (warp < 3) {
        const unsigned long long* base = words + ((it & 1) * 3 + warp) * stride * 2;
        double xs[5];
        bool all = false;
        while (!all) {
          all = true;
#pragma unroll
          for (int k = 0; k < 5; ++k) {
            const int b = 32 * k + lane;
            unsigned long long hi = 0, lo = 0;
            if (b < int(nb)) {
              ldRelaxed2x64(base + 2 * b, hi, lo);
              all = all && unsigned(hi) == tag && unsigned(lo) == tag;
            }
            xs[k] = __longlong_as_double((hi >> 32) << 32 | (lo >> 32));
          }
          all = __all_sync(0xffffffffu, all);
        }
        if constexpr (K == 1) {
          asm volatile("fence.acq_rel.gpu;" ::: "memory");
        } else {
          __syncwarp();
          if (lane == 0) asm volatile("fence.acq_rel.gpu;" ::: "memory");
          __syncwarp();
        }
        const double t = lanesTotal(xs, lane, nb);  // every lane: a warp-wide butterfly
        if (lane == 0) totals[warp] = t;
      }
      __syncthreads();
      acc += totals[0] + totals[1] + totals[2];
    } else if constexpr (V == 0) {
      cg::this_grid().sync();
    } else if constexpr (V == 4) {
      __syncthreads();
      if (threadIdx.x == 0) {
        const unsigned per = (nb + K - 1) / K, g = blockIdx.x / per;
        const unsigned members = min(per, nb - g * per), groups = (nb + per - 1) / per;
        const unsigned old = atomAcqRel(counter + 32 * (g + 1), 1);
        bool last = false;
        if (old + 1 == members * unsigned(it + 1))
          last = atomAcqRel(counter, 1) + 1 == groups * unsigned(it + 1);
        if (!last)
          while (ldAcquire(counter) < groups * unsigned(it + 1)) {
          }
      }
      __syncthreads();
    } else if constexpr (V == 5 || V == 6) {
      __syncthreads();
      unsigned* flags = counter + 32 * 64;
      if (threadIdx.x == 0) stRelease(flags + 32 * blockIdx.x, unsigned(it + 1));
      if (V == 5 || blockIdx.x == 0) {
        if (warp == 0) {
          for (int b = lane; b < int(nb); b += 32)
            while (ldAcquire(flags + 32 * b) < unsigned(it + 1)) {
            }
          __syncwarp();
          if (V == 6 && lane == 0) stRelease(counter, unsigned(it + 1));
        }
      } else if (threadIdx.x == 0) {
        while (ldAcquire(counter) < unsigned(it + 1)) {
        }
      }
      __syncthreads();
    } else {
      __syncthreads();
      if (threadIdx.x == 0) {
        if constexpr (V == 1) {
          redRelease(counter, 1);
          while (ldAcquire(counter) < target) {
          }
        } else if constexpr (V == 2) {
          const unsigned old = atomRelease(counter, 1);
          if (old + 1 != target)
            while (ldAcquire(counter) < target) {
            }
        } else if constexpr (V == 3) {
          redRelease(counter, 1);
          while (ldRelaxed(counter) < target) {
          }
          asm volatile("fence.acq_rel.gpu;" ::: "memory");
        }
      }
      __syncthreads();
    }
    if constexpr (S && V != 7) {
      if (warp < 3) {
        const double* base = partials + ((it & 1) * 3 + warp) * stride;
        double xs[5];
#pragma unroll
        for (int k = 0; k < 5; ++k) {
          const int b = 32 * k + lane;
          xs[k] = __ldcg(base + (b < int(nb) ? b : int(nb) - 1));
        }
        const double t = lanesTotal(xs, lane, nb);
        if (lane == 0) totals[warp] = t;
      }
      __syncthreads();
      acc += totals[0] + totals[1] + totals[2];
    }
  }
  if (threadIdx.x == 0) out[blockIdx.x] = acc + x;
}

// One launch of `iters` iterations: its time in ms, or a negative value when it failed (said on
// stderr).
template <int V, bool S, int K = 8>
float run(int blocks, int threads, int iters, unsigned* counter, double* partials, double* out,
          float* vec, int n, cudaEvent_t start, cudaEvent_t stop) {
  cudaMemset(counter, 0, 64 * 1024);
  void* args[] = {&iters, &counter, &partials, &blocks, &out, &vec, &n};
  cudaEventRecord(start);
  cudaError_t e = cudaLaunchCooperativeKernel((void*)probe<V, S, K>, blocks, threads, args, 0, 0);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  if (e == cudaSuccess) e = cudaGetLastError();
  float ms = -1.0f;
  if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, start, stop);
  if (e != cudaSuccess) {
    fprintf(stderr, "hooke-barrier-probe: launch failed: %s\n", cudaGetErrorString(e));
    return -1.0f;
  }
  return ms;
}

struct Buffers {
  unsigned* counter;
  double *partials, *out;
  float* vec;
  cudaEvent_t start, stop;
};

// Prints the best of 7 (20,000 against 1,000 iterations); false when a launch failed.
template <int V, bool S, int K = 8>
bool measure(const char* name, int blocks, int threads, const Buffers& d) {
  const int n = blocks * threads;
  float best = 1e9;
  for (int rep = 0; rep < 7; ++rep) {
    const float t1 = run<V, S, K>(blocks, threads, 20000, d.counter, d.partials, d.out, d.vec, n,
                                  d.start, d.stop);
    const float t0 = run<V, S, K>(blocks, threads, 1000, d.counter, d.partials, d.out, d.vec, n,
                                  d.start, d.stop);
    if (t1 < 0.0f || t0 < 0.0f) return false;
    const float per = (t1 - t0) / 19000.f * 1e3f;
    if (per < best) best = per;
  }
  printf("%-28s blocks %3d x %3d: %.3f us per iteration (best of 7)\n", name, blocks, threads,
         best);
  return true;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    fprintf(stderr, "hooke-barrier-probe: no CUDA device\n");
    return 2;
  }
  Buffers d{};
  if (cudaMalloc(&d.counter, 64 * 1024) != cudaSuccess ||
      cudaMalloc(&d.partials, 6 * 1024 * sizeof(double)) != cudaSuccess ||
      cudaMalloc(&d.out, 1024 * sizeof(double)) != cudaSuccess ||
      cudaMalloc(&d.vec, 2 * 1024 * 1024 * sizeof(float)) != cudaSuccess ||
      cudaEventCreate(&d.start) != cudaSuccess || cudaEventCreate(&d.stop) != cudaSuccess) {
    fprintf(stderr, "hooke-barrier-probe: device allocation failed\n");
    return 1;
  }
  cudaMemset(d.vec, 0, 2 * 1024 * 1024 * sizeof(float));
  const int shapes[][2] = {{129, 512}, {128, 128}};
  bool ok = true;
  for (auto& s : shapes) {
    const int B = s[0], T = s[1];
    ok = ok && measure<0, false>("cg grid.sync", B, T, d);
    ok = ok && measure<1, false>("red + acquire poll", B, T, d);
    ok = ok && measure<2, false>("atom, last skips poll", B, T, d);
    ok = ok && measure<3, false>("red + relaxed poll + fence", B, T, d);
    ok = ok && measure<0, true>("cg grid.sync + sums", B, T, d);
    ok = ok && measure<1, true>("red + acquire poll + sums", B, T, d);
    ok = ok && measure<2, true>("atom, last skips + sums", B, T, d);
    ok = ok && measure<3, true>("red + relaxed + fence + sums", B, T, d);
    ok = ok && measure<4, false, 4>("two levels, 4 groups", B, T, d);
    ok = ok && measure<4, false, 8>("two levels, 8 groups", B, T, d);
    ok = ok && measure<4, false, 16>("two levels, 16 groups", B, T, d);
    ok = ok && measure<5, false>("flags, every block polls", B, T, d);
    ok = ok && measure<6, false>("flags, block 0 releases", B, T, d);
    ok = ok && measure<4, true, 8>("two levels, 8 groups + sums", B, T, d);
    ok = ok && measure<4, true, 16>("two levels, 16 groups + sums", B, T, d);
    ok = ok && measure<5, true>("flags, every block + sums", B, T, d);
    ok = ok && measure<6, true>("flags, block 0 + sums", B, T, d);
    ok = ok && measure<7, true, 1>("tagged partials, lanes fence", B, T, d);
    ok = ok && measure<7, true, 0>("tagged partials, lane 0 fences", B, T, d);
    ok = ok && measure<2, true>("atom, last skips + sums", B, T, d);
  }
  cudaEventDestroy(d.start);
  cudaEventDestroy(d.stop);
  cudaFree(d.counter);
  cudaFree(d.partials);
  cudaFree(d.out);
  cudaFree(d.vec);
  return ok ? 0 : 1;
}
