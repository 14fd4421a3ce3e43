// Device helpers shared by the .cu files: particle-vector loads and stores in either layout,
// double-precision block reductions in a fixed order, and the occupancy query. Include only from
// .cu files; no float atomics anywhere (results must be bit-reproducible).
#pragma once

#include <cstdint>

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <glm/glm.hpp>

#include "cuda/kernel_api.h"
#include "sim/spring_force.h"

namespace hooke::cuda {

// Compile-time upper bounds of the two kernel classes (item 4). The block size actually launched
// comes from the occupancy API on the device at hand, at most these.
inline constexpr int kLightThreads = 512;   // point-wise and reduction kernels: few registers
inline constexpr int kHeavyThreads = 256;   // gathers over springs: many registers
inline constexpr int kFinishThreads = 256;  // single-block finishing reductions

template <bool F4>
struct VecStorage {
  using type = float4;
};
template <>
struct VecStorage<false> {
  using type = float3;
};
template <bool F4>
using Vec = typename VecStorage<F4>::type;

// Loads of data that is read-only for the kernel's lifetime (item 5): through the read-only path.
__device__ __forceinline__ glm::vec3 loadConst(const float4* __restrict__ a, uint32_t i) {
  float4 t = __ldg(a + i);
  return glm::vec3(t.x, t.y, t.z);
}
__device__ __forceinline__ glm::vec3 loadConst(const float3* __restrict__ a, uint32_t i) {
  const float* f = reinterpret_cast<const float*>(a + i);
  return glm::vec3(__ldg(f), __ldg(f + 1), __ldg(f + 2));
}

// Loads of data this kernel may also write (own element only).
__device__ __forceinline__ glm::vec3 load(const float4* a, uint32_t i) {
  float4 t = a[i];
  return glm::vec3(t.x, t.y, t.z);
}
__device__ __forceinline__ glm::vec3 load(const float3* a, uint32_t i) {
  float3 t = a[i];
  return glm::vec3(t.x, t.y, t.z);
}

__device__ __forceinline__ void store(float4* a, uint32_t i, glm::vec3 v) {
  a[i] = make_float4(v.x, v.y, v.z, 0.0f);
}
__device__ __forceinline__ void store(float3* a, uint32_t i, glm::vec3 v) {
  a[i] = make_float3(v.x, v.y, v.z);
}

// P⁻¹ of one particle, a symmetric 3×3 block stored as its 6 distinct entries in 3 float2:
// (xx, yy), (zz, xy), (xz, yz). 24 bytes instead of 36 or 48 (the column layouts): the update and
// gather kernels read it every CG iteration.
__device__ __forceinline__ glm::mat3 symmetricFrom(float2 a, float2 b, float2 c) {
  return glm::mat3(a.x, b.y, c.x,   // column 0: xx, xy, xz
                   b.y, a.y, c.y,   // column 1: xy, yy, yz
                   c.x, c.y, b.x);  // column 2: xz, yz, zz
}
// the 3 float2 of particle i's block, loaded (read-only) but not yet unpacked
struct SymmetricEntries {
  float2 e[3];
};
__device__ __forceinline__ SymmetricEntries loadSymmetricEntries(const float2* __restrict__ base,
                                                                 uint32_t i) {
  const float2* e = base + 3 * size_t(i);
  return SymmetricEntries{{__ldg(e), __ldg(e + 1), __ldg(e + 2)}};
}
__device__ __forceinline__ glm::mat3 symmetricFrom(const SymmetricEntries& s) {
  return symmetricFrom(s.e[0], s.e[1], s.e[2]);
}
__device__ __forceinline__ glm::mat3 loadSymmetric(const float2* __restrict__ base, uint32_t i) {
  return symmetricFrom(loadSymmetricEntries(base, i));
}
// ½ (m + mᵀ): glm::inverse of a symmetric block may be asymmetric in the last bit
__device__ __forceinline__ glm::mat3 symmetricPart(const glm::mat3& m) {
  return symmetricFrom(make_float2(m[0][0], m[1][1]),
                       make_float2(m[2][2], 0.5f * (m[0][1] + m[1][0])),
                       make_float2(0.5f * (m[0][2] + m[2][0]), 0.5f * (m[1][2] + m[2][1])));
}
// stores a symmetric m (its lower triangle)
__device__ __forceinline__ void storeSymmetric(float2* base, uint32_t i, const glm::mat3& m) {
  float2* e = base + 3 * size_t(i);
  e[0] = make_float2(m[0][0], m[1][1]);
  e[1] = make_float2(m[2][2], m[0][1]);
  e[2] = make_float2(m[0][2], m[1][2]);
}

// A spring's system block S = a n nᵀ + b I (a >= 0) packed as (m, b) with m = √a n, so one 16-byte
// load carries it: S d = (m·d) m + b d. (The CPU reference applies a (n·d) n + b d; the two agree
// to rounding.)
__device__ __forceinline__ float4 packBlock(const SystemBlock& S) {
  const float root = sqrtf(S.a);  // a NaN (from a model the backend refuses) would propagate
  return make_float4(root * S.n.x, root * S.n.y, root * S.n.z, S.b);
}
// S d. Every rounding of the gather's arithmetic is spelled out (__fmaf_rn and __fmul_rn are never
// contracted again): left to the compiler, a product next to two sums may be fused into either,
// and it chose differently in two shapes of one loop (item 17's held entries against the walk),
// which then disagreed in the last bit.
__device__ __forceinline__ glm::vec3 applyPacked(float4 S, glm::vec3 d) {
  const float t = __fmaf_rn(S.z, d.z, __fmaf_rn(S.y, d.y, __fmul_rn(S.x, d.x)));
  return glm::vec3(__fmaf_rn(t, S.x, __fmul_rn(S.w, d.x)), __fmaf_rn(t, S.y, __fmul_rn(S.w, d.y)),
                   __fmaf_rn(t, S.z, __fmul_rn(S.w, d.z)));
}
// y + a x, one rounding per component
__device__ __forceinline__ glm::vec3 axpy(float a, glm::vec3 x, glm::vec3 y) {
  return glm::vec3(__fmaf_rn(a, x.x, y.x), __fmaf_rn(a, x.y, y.y), __fmaf_rn(a, x.z, y.z));
}
// m v, each component's three products summed in a spelled-out order
__device__ __forceinline__ glm::vec3 applyMatrix(const glm::mat3& m, glm::vec3 v) {
  glm::vec3 out;
  for (int c = 0; c < 3; ++c)
    out[c] = __fmaf_rn(m[2][c], v.z, __fmaf_rn(m[1][c], v.y, __fmul_rn(m[0][c], v.x)));
  return out;
}
// S itself, for the diagonal block A_ii = (m_i + h c_air) I + Σ S_s
__device__ __forceinline__ glm::mat3 packedMatrix(float4 S) {
  const glm::vec3 m(S.x, S.y, S.z);
  return glm::outerProduct(m, m) + glm::mat3(S.w);
}

// a·b in double, term by term as the CPU reference does (float products are exact in double)
__device__ __forceinline__ double dotDouble(glm::vec3 a, glm::vec3 b) {
  return double(a.x) * b.x + double(a.y) * b.y + double(a.z) * b.z;
}

// One adjacency entry decoded: the spring, the particle at its other end, and whether this
// particle is the spring's j end.
struct Incident {
  uint32_t spring;
  uint32_t other;
  bool is_j;
};

__device__ __forceinline__ Incident incident(const int2* __restrict__ adjacency, uint32_t e) {
  int2 a = __ldg(adjacency + e);
  Incident out;
  out.spring = static_cast<uint32_t>(a.x);
  out.is_j = a.y < 0;
  out.other = static_cast<uint32_t>(out.is_j ? ~a.y : a.y);
  return out;
}

// Gather lanes (item 13): a particle's springs may be split over `lanes` neighbouring threads of
// one warp (lanes a power of two, 1 to 32), lane l taking the row's entries l, l + lanes, ...,
// so the dependent loads of a long adjacency row run side by side instead of one after another.
// Loops over particles then go round by round per warp, so every lane of a warp reaches the same
// shuffles: a round starts at a warp-uniform particle index and gives each group of lanes one
// particle, which may lie past the end (then the group contributes nothing).
struct GatherLanes {
  uint32_t lanes;  // threads per particle
  uint32_t sub;    // this thread's lane within its particle's group
  uint32_t group;  // this thread's group within its warp
  uint32_t first;  // the first round's first particle (warp-uniform)
  uint32_t step;   // particles per round over all threads
};

__device__ __forceinline__ GatherLanes gatherLanes(uint32_t lanes, uint32_t thread,
                                                   uint32_t threads) {
  GatherLanes g;
  g.lanes = lanes;
  g.sub = thread & (lanes - 1);
  g.group = (thread & 31u) / lanes;
  g.first = (thread & ~31u) / lanes;
  g.step = threads / lanes;
  return g;
}

// Σ over the lanes of one group into every lane of it: an xor butterfly, a fixed order (so
// bit-reproducible; xor offsets below `lanes` never leave the group). Every lane of the warp
// must call it.
__device__ __forceinline__ glm::vec3 groupSum(glm::vec3 v, uint32_t lanes) {
  for (uint32_t offset = lanes >> 1; offset > 0; offset >>= 1) {
    v.x += __shfl_xor_sync(0xffffffffu, v.x, offset);
    v.y += __shfl_xor_sync(0xffffffffu, v.y, offset);
    v.z += __shfl_xor_sync(0xffffffffu, v.z, offset);
  }
  return v;
}

// Σ of add(fetch(e)) over a row's entries e = first, first + step, ... < end, in that order, with
// the loads of kBatch entries issued before any is used: each entry is a chain of dependent
// loads (the adjacency entry, then its spring's block and the neighbour's values), and a lane
// that walks them one at a time waits one memory round trip per link. A batch's entries past the
// end repeat the batch's first entry's loads (already in flight, so cache hits) and add nothing.
// The same sum, bit for bit, as the plain loop.
template <int kBatch, typename Fetch, typename Add>
__device__ __forceinline__ void batchedEntries(uint32_t first, uint32_t end, uint32_t step,
                                               Fetch fetch, Add add) {
  for (uint32_t e0 = first; e0 < end; e0 += kBatch * step) {
    decltype(fetch(e0)) item[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const uint32_t e = e0 + uint32_t(k) * step;
      item[k] = fetch(e < end ? e : e0);
    }
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      if (e0 + uint32_t(k) * step < end) add(item[k]);
    }
  }
}

// The set bits of `bits` at every other rank: ranks 0, 2, 4, ... (odd 0) or 1, 3, 5, ... (odd 1).
// x's bit b is the parity of bits 0 .. b, which is 1 exactly at the set bits of even rank.
__device__ __forceinline__ uint32_t everyOtherBit(uint32_t bits, uint32_t odd) {
  uint32_t x = bits;
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  return odd ? bits & ~x : bits & x;
}

// A lane's share of a row mask (item 22), as gatherRows deals out entries: lane `sub` of `lanes`
// (a power of two) takes the set bits of rank sub, sub + lanes, ...
__device__ __forceinline__ uint32_t laneBits(uint32_t bits, uint32_t sub, uint32_t lanes) {
  for (uint32_t l = lanes; l > 1; l >>= 1, sub >>= 1)
    bits = everyOtherBit(bits, sub & 1u);
  return bits;
}

// batchedEntries over the set bits of a mask, lowest first: Σ of add(fetch(b)), the loads of
// kBatch bits issued before any is used; a batch's bits past the last repeat its first bit's loads
// and add nothing.
template <int kBatch, typename Fetch, typename Add>
__device__ __forceinline__ void batchedBits(uint32_t bits, Fetch fetch, Add add) {
  while (bits != 0) {
    const uint32_t first = uint32_t(__ffs(bits)) - 1u;
    decltype(fetch(first)) item[kBatch];
    bool valid[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      valid[k] = bits != 0;
      item[k] = fetch(valid[k] ? uint32_t(__ffs(bits)) - 1u : first);
      bits &= bits - 1u;
    }
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      if (valid[k]) add(item[k]);
    }
  }
}

// f_i = m_i g − c_air v_i + e_i   (e: external input, may be absent)
__device__ __forceinline__ glm::vec3 bodyForce(const DeviceModel& m, float mass, glm::vec3 v,
                                               const float3* __restrict__ external, uint32_t i) {
  glm::vec3 f = mass * m.gravity - m.drag * v;
  if (external) {
    const float* e = reinterpret_cast<const float*>(external + i);
    f += glm::vec3(__ldg(e), __ldg(e + 1), __ldg(e + 2));
  }
  return f;
}

// The gather loop of item 13 over particles first, first + stride, ... < n (stride: all threads).
// row(i, sub, lanes) returns a struct whose `springs` member is this lane's part of particle i's
// spring sum (entries row_start + sub, + lanes, ...) and whatever else finish needs; finish(i, r)
// then runs once per particle with r.springs the whole sum. With one lane: a plain grid-stride
// loop without shuffles (the compiler may then overlap one particle's loads with the next one's);
// with several: rounds of groups, a group's parts summed by groupSum, and finish run by the
// group's first lane (every_lane: by each of its lanes, with the same r).
// gatherRows over slots 0 .. slots − 1 instead of rows, slot k gathering row rowOf(k), or nothing
// when that is kNoParticle (item 23's lattice tiles; every row must be some slot's, once)
template <typename RowOf, typename Row, typename Finish>
__device__ __forceinline__ void gatherSlots(const GatherLanes& g, uint32_t first, uint32_t stride,
                                            uint32_t slots, RowOf rowOf, Row row, Finish finish,
                                            bool every_lane = false) {
  if (g.lanes == 1) {
    for (uint32_t k = first; k < slots; k += stride) {
      const uint32_t i = rowOf(k);
      if (i != kNoParticle) finish(i, row(i, 0u, 1u));
    }
    return;
  }
  for (uint32_t round = g.first; round < slots; round += g.step) {
    const uint32_t k = round + g.group;
    const uint32_t i = k < slots ? rowOf(k) : kNoParticle;
    const bool valid = i != kNoParticle;
    decltype(row(0u, 0u, 1u)) r{};
    if (valid) r = row(i, g.sub, g.lanes);
    r.springs = groupSum(valid ? r.springs : glm::vec3(0.0f), g.lanes);
    if (valid && (every_lane || g.sub == 0)) finish(i, r);
  }
}

// gatherSlots with one load of each row issued a round early (item 24): ahead(i) loads what row i
// needs first (kNoParticle: something harmless), and row(i, sub, lanes, word) gets it, loaded
// while the round before was gathered. The same rows, sums and order as gatherSlots.
template <typename RowOf, typename Ahead, typename Row, typename Finish>
__device__ __forceinline__ void gatherSlotsAhead(const GatherLanes& g, uint32_t first,
                                                 uint32_t stride, uint32_t slots, RowOf rowOf,
                                                 Ahead ahead, Row row, Finish finish) {
  if (g.lanes == 1) {
    uint32_t i = first < slots ? rowOf(first) : kNoParticle;
    auto word = ahead(i);
    for (uint32_t k = first; k < slots; k += stride) {
      const uint32_t now = i;
      const auto word_now = word;
      i = k + stride < slots ? rowOf(k + stride) : kNoParticle;
      word = ahead(i);
      if (now != kNoParticle) finish(now, row(now, 0u, 1u, word_now));
    }
    return;
  }
  uint32_t i = g.first + g.group < slots ? rowOf(g.first + g.group) : kNoParticle;
  auto word = ahead(i);
  for (uint32_t round = g.first; round < slots; round += g.step) {
    const uint32_t now = i;
    const auto word_now = word;
    const uint32_t next = round + g.step + g.group;
    i = round + g.step < slots && next < slots ? rowOf(next) : kNoParticle;
    word = ahead(i);
    const bool valid = now != kNoParticle;
    decltype(row(0u, 0u, 1u, word_now)) r{};
    if (valid) r = row(now, g.sub, g.lanes, word_now);
    r.springs = groupSum(valid ? r.springs : glm::vec3(0.0f), g.lanes);
    if (valid && g.sub == 0) finish(now, r);
  }
}

template <typename Row, typename Finish>
__device__ __forceinline__ void gatherRows(const GatherLanes& g, uint32_t first, uint32_t stride,
                                           uint32_t n, Row row, Finish finish,
                                           bool every_lane = false) {
  gatherSlots(
      g, first, stride, n, [](uint32_t k) { return k; }, row, finish, every_lane);
}

// f_i = base + Σ_{s ∋ i} ±f_s, the spring forces at (x, v) gathered over i's springs in spring
// order, each evaluated in the spring's own orientation (i end first), bit for bit as the CPU
// does (+ at the spring's i end, − at its j end)
template <typename V>
__device__ __forceinline__ glm::vec3 addSpringForces(const DeviceModel& m, const V* __restrict__ x,
                                                     const V* __restrict__ v, uint32_t i,
                                                     glm::vec3 xi, glm::vec3 vi, glm::vec3 base) {
  glm::vec3 f = base;
  const uint32_t end = __ldg(m.row_start + i + 1);
  for (uint32_t e = __ldg(m.row_start + i); e < end; ++e) {
    const Incident s = incident(m.adjacency, e);
    const glm::vec3 xo = loadConst(x, s.other), vo = loadConst(v, s.other);
    const glm::vec3 xa = s.is_j ? xo : xi, xb = s.is_j ? xi : xo;
    const glm::vec3 va = s.is_j ? vo : vi, vb = s.is_j ? vi : vo;
    const SpringForce sf = springForce(xa, xb, va, vb, __ldg(m.rest + s.spring),
                                       __ldg(m.stiffness + s.spring), __ldg(m.damping + s.spring));
    f = s.is_j ? f - sf.on_i : f + sf.on_i;
  }
  return f;
}

// Item 21 (programmatic dependent launch, sm_90): a launched CG kernel may be scheduled while the
// kernel before it in the stream still runs (CudaOptions::dependent_launch_max_particles). It
// waits here until that kernel has finished and its writes are visible, then lets the kernel
// after it be scheduled, so at most two grids are in flight and every read sees what the one
// before wrote.
// Returns at once for a kernel launched without the attribute, and compiles to nothing below
// sm_90.
__device__ __forceinline__ void awaitPrevious() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ uint32_t firstIndex() {
  return blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ uint32_t gridStride() {
  return gridDim.x * blockDim.x;
}

// Σ over a warp by shuffles, in a fixed tree (item 8)
__device__ __forceinline__ double warpSum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Σ of N values over the block, fixed order: warps by shuffle, then warp 0 over the warp sums.
// Thread 0 holds the totals. blockDim.x must be a multiple of 32; call once per kernel.
// Item 35 (spread > 1, a power of two >= N): the threads come in groups of `spread` lanes of which
// only the first held values (the others +0.0), and now lane k of each group holds its group's
// value of sum k in v[0] instead: each lane sums v[0] over the lanes of its own rank in the warp,
// in the tree warpSum's levels of offsets >= spread form, and adds the +0.0 the levels below it
// added (so a −0.0 becomes +0.0 as there): the same warp sums, bit for bit, from one shuffled
// double per level where there were N, and log2(spread) levels fewer.
// kMaxThreads: the kernel's __launch_bounds__, which sizes the warp sums in shared memory (the
// 256-thread gather kernels keep 8 per sum, not 32: static shared memory counts against how many
// blocks an SM holds, see q = A p's table in applyKernel).
template <int N, int kMaxThreads = 1024>
__device__ __forceinline__ void blockSum(double (&v)[N], uint32_t spread = 1) {
  static_assert(kMaxThreads % 32 == 0 && kMaxThreads <= 1024, "whole warps, at most 32");
  __shared__ double warp_sums[N][kMaxThreads / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  if (spread > 1) {
    double x = v[0];
    for (int offset = 16; offset >= int(spread); offset >>= 1)
      x += __shfl_down_sync(0xffffffffu, x, offset);
    x += 0.0;
    if (lane < N) warp_sums[lane][warp] = x;
  } else {
    for (int k = 0; k < N; ++k)
      v[k] = warpSum(v[k]);
    if (lane == 0) {
      for (int k = 0; k < N; ++k)
        warp_sums[k][warp] = v[k];
    }
  }
  __syncthreads();
  if (warp == 0) {
    for (int k = 0; k < N; ++k)
      v[k] = warpSum(lane < warps ? warp_sums[k][lane] : 0.0);
  }
}

// Block partial sums written by one block of a reduction kernel.
template <int N, int kMaxThreads = 1024>
__device__ __forceinline__ void writePartials(double (&v)[N], Reduction reduction) {
  blockSum<N, kMaxThreads>(v);
  if (threadIdx.x == 0) {
    for (int k = 0; k < N; ++k)
      reduction.partials[k * reduction.stride + blockIdx.x] = v[k];
  }
}

// This thread's share of N sums over `count` (>= 1) block partials: for sum k, base[k · stride +
// b] over b = first, first + step, ... < count (by default threadIdx.x and blockDim.x), in that
// order. Every thread runs the same rounds and issues every load (past the end: the last partial,
// its value then selected away), so no warp diverges here: on the H200 a warp whose lanes ran
// different round counts in this loop (a count that is not a multiple of 32) made the block
// reduction after it ~2,700 cycles slower, about 1.5 µs per grid-wide sum. The same bits as the
// plain loop: v starts at +0.0, 0.0 + x is never −0.0, and y + 0.0 = y for every other y.
// __ldcg: read at L2, where other blocks have just written them.
template <int N>
__device__ __forceinline__ void threadPartials(const double* base, int stride, int count,
                                               double (&v)[N], int first = int(threadIdx.x),
                                               int step = int(blockDim.x)) {
  for (int k = 0; k < N; ++k)
    v[k] = 0.0;
  for (int b0 = 0; b0 < count; b0 += step) {
    const int b = b0 + first;
    const int at = b < count ? b : count - 1;
    for (int k = 0; k < N; ++k) {
      const double x = __ldcg(base + k * stride + at);
      v[k] += b < count ? x : 0.0;
    }
  }
}

// The second stage (item 8): one block sums count partials per sum in a fixed order. Thread 0
// holds the totals.
template <int N, int kMaxThreads = 1024>
__device__ __forceinline__ void sumPartials(Reduction reduction, int count, double (&v)[N]) {
  threadPartials<N>(reduction.partials, reduction.stride, count, v);
  blockSum<N, kMaxThreads>(v);
}

// True in every thread of the one block that arrives last, after all blocks wrote their partial
// sums (the threadFenceReduction pattern). The ticket is an integer atomic, so which block is
// last varies but the sum it then forms, in a fixed order, does not. Resets the counter.
__device__ __forceinline__ bool lastBlockToArrive(unsigned int* arrivals) {
  __shared__ bool is_last;
  __threadfence();  // this block's partials are visible device-wide before it is counted
  if (threadIdx.x == 0) {
    const unsigned int ticket = atomicAdd(arrivals, 1u);
    is_last = ticket == gridDim.x - 1;
    if (is_last) *arrivals = 0u;  // every block has arrived: ready for the next launch
  }
  __syncthreads();
  return is_last;
}

// The grid barrier of a cooperative launch. arrived == nullptr: cooperative groups' grid sync.
// Otherwise item 33: the same protocol on the backend's own barrier word (zero at allocation; block
// 0 adds 2^31 − (blocks − 1), every other block 1, so the word's top bit flips exactly when the
// last block arrives and its low bits are zero again after), except that the add has acquire as
// well as release semantics and the block whose add flips the bit sees that in the add's result and
// goes on at once; every other block polls the word with acquire loads until the bit has flipped,
// as cooperative groups does. The last block to arrive is the one the whole grid waits for: it
// saves the poll's round trip to L2. __syncthreads before and after order the block's other
// threads' accesses around thread 0's (as in cooperative groups).
__device__ __forceinline__ void gridBarrier(uint32_t* arrived) {
  if (arrived == nullptr) {
    cooperative_groups::this_grid().sync();
    return;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1u) : 1u;
    uint32_t before;
    asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;"
                 : "=r"(before)
                 : "l"(arrived), "r"(add)
                 : "memory");
    if (((before ^ (before + add)) & 0x80000000u) == 0) {
      uint32_t now;
      do {
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(arrived) : "memory");
      } while (((before ^ now) & 0x80000000u) == 0);
    }
  }
  __syncthreads();
}

// Item 41: thread 0's arrival, after it wrote its block's partials: an atomic add with acquire and
// release semantics on a counter (zero between launches), true in the block that arrives last,
// which has then acquired every block's partials and resets the counter for the next launch.
__device__ __forceinline__ bool arriveLast(unsigned int* arrivals) {
  unsigned int before;
  asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], 1;"
               : "=r"(before)
               : "l"(arrivals)
               : "memory");
  const bool last = before == gridDim.x - 1u;
  if (last) *arrivals = 0u;  // every block has arrived; the next launch's come after this one ends
  return last;
}

// Item 41's release word (thread 0 only): the last block stores with release semantics, the
// others poll with acquire semantics until it differs from the value they read before arriving.
__device__ __forceinline__ void storeRelease(unsigned long long* word, unsigned long long value) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" : : "l"(word), "l"(value) : "memory");
}
__device__ __forceinline__ unsigned long long awaitRelease(const unsigned long long* word,
                                                           unsigned long long before) {
  unsigned long long now;
  do {
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(now) : "l"(word) : "memory");
  } while (now == before);
  return now;
}

// Occupancy of one kernel: largest block (a multiple of 32, at most limit) that reaches the best
// occupancy, and how many such blocks fit on one multiprocessor. Sets the carve-out (item 9).
template <typename Kernel>
cudaError_t queryShape(Kernel kernel, int limit, bool prefer_l1, KernelShape* out) {
  cudaError_t error = cudaFuncSetAttribute(
      kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
      prefer_l1 ? int(cudaSharedmemCarveoutMaxL1) : int(cudaSharedmemCarveoutDefault));
  if (error != cudaSuccess) return error;
  int min_grid = 0, block = 0;
  error = cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel, 0, limit);
  if (error != cudaSuccess) return error;
  block = block / 32 * 32;
  if (block < 32) block = 32;
  int per_sm = 0;
  error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0);
  if (error != cudaSuccess) return error;
  out->block = block;
  out->blocks_per_sm = per_sm > 0 ? per_sm : 1;
  return cudaSuccess;
}

}  // namespace hooke::cuda
