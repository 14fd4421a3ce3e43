// The whole PCG solve in one launch (items 10, 11): one block, directions in shared memory, or a
// cooperative grid. Never float atomics, never blocks that disagree: all decide from the same sums.
#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <type_traits>

#include "cuda/device_common.cuh"
#include "cuda/kernel_api.h"
#include "cuda/staged_halo.h"
#include "sim/spring_force.h"

namespace hooke::cuda {

namespace {

namespace cg = cooperative_groups;

inline constexpr int kOneBlockThreads = 1024;  // __launch_bounds__ of the one-block kernel
inline constexpr int kUnboundedBlock = 256;    // ablation 4: a block size fixed in the source
inline constexpr int kGridMaxThreads = 512;    // the largest grid block (CudaOptions::grid_block)

// Loads of data no thread writes during the solve (item 5): the read-only path, or plain loads
// when that optimisation is ablated.
template <int kAblate, typename T>
__device__ __forceinline__ T readOnly(const T* p) {
  if constexpr (kAblate == kAblateLdg) {
    return *p;
  } else {
    return __ldg(p);
  }
}

template <int kAblate>
__device__ __forceinline__ Incident incidentOf(const int2* adjacency, uint32_t e) {
  const int2 a = readOnly<kAblate>(adjacency + e);
  Incident out;
  out.spring = static_cast<uint32_t>(a.x);
  out.is_j = a.y < 0;
  out.other = static_cast<uint32_t>(out.is_j ? ~a.y : a.y);
  return out;
}

// One adjacency entry with its spring's system block (packed: packBlock).
struct SpringEntry {
  Incident incident;
  float4 block;
};

template <int kAblate>
__device__ __forceinline__ SpringEntry springEntry(const DeviceModel& m, const DeviceSystem& sys,
                                                   uint32_t e) {
  SpringEntry out;
  out.incident = incidentOf<kAblate>(m.adjacency, e);
  out.block = readOnly<kAblate>(sys.block + out.incident.spring);
  return out;
}

// One adjacency entry as a gather uses it: where its other end's value is found (a particle, or
// with item 18 a slot of the block's staged halo) and its spring's packed block.
struct GatherEntry {
  uint32_t other;
  float4 block;
};

// Item 18's entries: (spring, halo slot) per adjacency entry in global memory, and, when the block
// copied its rows' entries to shared memory at the start of the launch, their blocks and slots
// there from entry `begin` on.
// With item 31 (`words`) the shared blocks are the block's springs, once each, and `slots` holds
// per entry its spring's place among them | its slot << 16.
struct StagedEntries {
  const uint2* pairs = nullptr;
  const float4* blocks = nullptr;  // shared; nullptr: read through pairs
  const uint32_t* slots = nullptr;
  uint32_t begin = 0;
  bool words = false;
};

// kWords (kShared only): 1 or -1 where the kernel knows whether the entries are item 31's words,
// 0 to test `staged.words` at each entry
template <int kAblate, bool kStaged, bool kShared = false, int kWords = 0>
__device__ __forceinline__ GatherEntry gatherEntry(const DeviceModel& m, const DeviceSystem& sys,
                                                   const StagedEntries& staged, uint32_t e) {
  if constexpr (kStaged) {
    if (kShared || staged.blocks != nullptr) {
      const uint32_t k = e - staged.begin;
      if (kShared && kWords != 0 ? kWords > 0 : staged.words) {
        const uint32_t word = staged.slots[k];
        return GatherEntry{word >> 16, staged.blocks[word & 0xffffu]};
      }
      return GatherEntry{staged.slots[k], staged.blocks[k]};
    }
    const uint2 s = readOnly<kAblate>(staged.pairs + e);  // (spring, halo slot)
    return GatherEntry{s.y, readOnly<kAblate>(sys.block + s.x)};
  } else {
    const SpringEntry se = springEntry<kAblate>(m, sys, e);
    return GatherEntry{se.incident.other, se.block};
  }
}

// Item 17: the adjacency entries of the first row a grid lane gathers, loaded once per launch and
// kept in registers: the other end and the packed block of up to kHeldEntries entries (20 bytes
// each). A lane of the cooperative grid gathers the same row in every iteration, and at the sizes
// the grid runs most lanes have no more entries than that (lanes split a row, item 13). Each
// iteration then issues every held neighbour's loads at once instead of one adjacency round trip
// and one neighbour round trip per entry. Entries past kHeldEntries, and rows of later rounds, are
// walked from memory as before.
inline constexpr int kHeldEntries = 4;  // the two-barrier grid kernel (~100 registers)
inline constexpr int kHeldEntriesSingle = kGridHeldEntries;  // item 14's kernel, 128 registers

template <int kHeld>
struct HeldEntries {
  static constexpr int kSlots = kHeld > 0 ? kHeld : 1;
  uint32_t row = UINT32_MAX;  // the particle they belong to (UINT32_MAX: none)
  uint32_t count = 0;         // entries held, at most kHeld
  uint32_t rest = 0;          // the entries rest, rest + lanes, ... < end are not held
  uint32_t end = 0;
  uint32_t other[kSlots] = {};
  float4 block[kSlots] = {};
};

// The entries sub, sub + lanes, ... of row i (i < n), the first kHeld of them held. Read after the
// kernels before the solve wrote the system blocks; nothing writes them during it. kStaged: the
// other ends as slots of the block's halo (item 18, `staged` the entries' (spring, slot) pairs).
template <int kAblate, int kHeld, bool kStaged = false>
__device__ __forceinline__ HeldEntries<kHeld> holdEntries(const DeviceModel& m,
                                                          const DeviceSystem& sys, uint32_t i,
                                                          uint32_t sub, uint32_t lanes,
                                                          const StagedEntries& staged = {}) {
  HeldEntries<kHeld> h;
  if constexpr (kHeld > 0) {
    if (i >= m.particles) return h;
    h.row = i;
    h.end = readOnly<kAblate>(m.row_start + i + 1);
    uint32_t e = readOnly<kAblate>(m.row_start + i) + sub;
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      if (e < h.end) {
        const GatherEntry ge = gatherEntry<kAblate, kStaged>(m, sys, staged, e);
        h.other[k] = ge.other;
        h.block[k] = ge.block;
        h.count = uint32_t(k) + 1u;
        e += lanes;
      }
    }
    h.rest = e;
  }
  return h;
}

// This lane's part of Σ_{s ∋ i} S_s (x_i − x_o) over particle i's entries sub, sub + lanes, ...
// (item 13); x_o = value(o) for the neighbours (kStaged: value(slot), item 18), x_i given. (The
// same bits as ±S_s (x_{i_s} − x_{j_s}) in the spring's own orientation: S (−d) = −S d exactly in
// floating point.) Ablation 7: a pinned row is skipped by a branch instead of being masked by the
// caller's select. Row i's held entries (item 17) are taken from `held`: their neighbours' loads
// issued together, then the sum in entry order, so the same bits as the walk. Otherwise one entry
// at a time: on the H200 batching entries (batchedEntries) cost 5–15 % on the whole-CG paths
// (bench/results/gpu-h200-2026-11-30-batched-whole-cg.json against -b6799ad.json).
// Item 30 (kShared: the row's entries staged in shared memory, as item 27 always has them): the
// walk reads shared memory only, two entries a round, both entries' and both neighbours' reads
// issued before either product; the sum in entry order, so the same bits.
// Item 46 (kColumns: item 27's walk of item 31's words): each thread's share of its row past its
// held entries is in shared memory by column, its j-th entry at (j − kHeld) · blockDim + thread,
// so a warp's 32 threads read 32 consecutive words (one wavefront, where the rows' own ranges took
// 2–4 on one lane); the same pairs in the same order, so the same bits.
template <int kAblate, int kHeld, bool kStaged = false, bool kShared = false, int kWords = 0,
          bool kColumns = false, typename Value>
__device__ __forceinline__ glm::vec3 rowPart(const DeviceModel& m, const DeviceSystem& sys,
                                             const HeldEntries<kHeld>& held, uint32_t i,
                                             glm::vec3 xi, float mask, uint32_t sub, uint32_t lanes,
                                             Value value, const StagedEntries& staged = {}) {
  glm::vec3 part(0.0f);
  const bool gather = kAblate != kAblateMasks || mask != 0.0f;
  if (!gather) return part;
  uint32_t e, end;
  if (kHeld > 0 && i == held.row) {
    glm::vec3 xo[HeldEntries<kHeld>::kSlots];
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      if (uint32_t(k) < held.count) xo[k] = value(held.other[k]);
    }
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      if (uint32_t(k) < held.count) part += applyPacked(held.block[k], xi - xo[k]);
    }
    e = held.rest;
    end = held.end;
  } else {
    e = readOnly<kAblate>(m.row_start + i) + sub;
    end = readOnly<kAblate>(m.row_start + i + 1);
  }
  if constexpr (kColumns) {
    static_assert(kShared && kHeld > 0, "item 46 walks item 27's staged entries past the held");
    // i is the held row (item 27's one round of rows): this lane's entries past its held ones, at
    // its column j − kHeld
    if (e >= end) return part;
    uint32_t left = (end - e + lanes - 1) / lanes;
    uint32_t c = (held.count - uint32_t(kHeld)) * blockDim.x + threadIdx.x;
    for (; left >= 2; left -= 2, c += 2 * blockDim.x) {
      const GatherEntry a = gatherEntry<kAblate, kStaged, true, kWords>(m, sys, staged, c);
      const GatherEntry b =
          gatherEntry<kAblate, kStaged, true, kWords>(m, sys, staged, c + blockDim.x);
      const glm::vec3 xa = value(a.other), xb = value(b.other);
      part += applyPacked(a.block, xi - xa);
      part += applyPacked(b.block, xi - xb);
    }
    if (left > 0) {
      const GatherEntry ge = gatherEntry<kAblate, kStaged, true, kWords>(m, sys, staged, c);
      part += applyPacked(ge.block, xi - value(ge.other));
    }
    return part;
  }
  if constexpr (kShared) {
    for (; e + lanes < end; e += 2 * lanes) {
      const GatherEntry a = gatherEntry<kAblate, kStaged, true, kWords>(m, sys, staged, e);
      const GatherEntry b = gatherEntry<kAblate, kStaged, true, kWords>(m, sys, staged, e + lanes);
      const glm::vec3 xa = value(a.other), xb = value(b.other);
      part += applyPacked(a.block, xi - xa);
      part += applyPacked(b.block, xi - xb);
    }
  }
  for (; e < end; e += lanes) {
    const GatherEntry ge = gatherEntry<kAblate, kStaged, kShared, kWords>(m, sys, staged, e);
    part += applyPacked(ge.block, xi - value(ge.other));
  }
  return part;
}

template <int kAblate>
__device__ __forceinline__ glm::mat3 inverseBlock(const float2* base, uint32_t i) {
  if constexpr (kAblate == kAblateLdg) {
    const float2* e = base + 3 * size_t(i);
    return symmetricFrom(e[0], e[1], e[2]);
  } else {
    return loadSymmetric(base, i);
  }
}

// A particle vector in global memory in the backend's layout. Plain (coherent) loads: the solve
// writes these, and another block's writes are visible after a grid barrier.
template <bool F4>
struct GlobalVectors {
  void* base;
  __device__ __forceinline__ glm::vec3 get(uint32_t i) const {
    return load(static_cast<const Vec<F4>*>(base), i);
  }
  __device__ __forceinline__ void set(uint32_t i, glm::vec3 v) const {
    store(static_cast<Vec<F4>*>(base), i, v);
  }
};

// A particle vector in shared memory, packed 3 floats (stride 3: no bank conflicts).
struct SharedVectors {
  float* base;
  __device__ __forceinline__ glm::vec3 get(uint32_t i) const {
    const float* f = base + 3 * size_t(i);
    return glm::vec3(f[0], f[1], f[2]);
  }
  __device__ __forceinline__ void set(uint32_t i, glm::vec3 v) const {
    float* f = base + 3 * size_t(i);
    f[0] = v.x;
    f[1] = v.y;
    f[2] = v.z;
  }
};

// Σ over a warp into EVERY lane: an xor butterfly. At each level lanes l and l ^ offset add the
// same two numbers (a + b = b + a exactly), so all lanes end with bit-identical totals. (warpSum
// of device_common.cuh leaves the total in lane 0 only.)
__device__ __forceinline__ double warpAllSum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Σ of N values over the block, the totals in EVERY thread; may be called repeatedly. Warp
// shuffles (item 8), every warp then reducing the warp sums in the same order, so all threads
// hold bit-identical totals; or (ablation 8) a shared-memory tree.
template <int N, int kAblate, int kMaxThreads>
__device__ __forceinline__ void blockTotals(double (&v)[N]) {
  if constexpr (kAblate == kAblateShuffle) {
    __shared__ double tree[N][kMaxThreads];
    const int t = threadIdx.x;
    for (int k = 0; k < N; ++k)
      tree[k][t] = v[k];
    __syncthreads();
    // a tree over the next power of two, missing threads counting as 0
    int width = 1;
    while (width < int(blockDim.x))
      width <<= 1;
    for (int half = width >> 1; half > 0; half >>= 1) {
      if (t < half && t + half < int(blockDim.x)) {
        for (int k = 0; k < N; ++k)
          tree[k][t] += tree[k][t + half];
      }
      __syncthreads();
    }
    for (int k = 0; k < N; ++k)
      v[k] = tree[k][0];
    __syncthreads();  // tree may be reused at once
  } else {
    __shared__ double warp_sums[N][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (int k = 0; k < N; ++k)
      v[k] = warpAllSum(v[k]);
    if (lane == 0) {
      for (int k = 0; k < N; ++k)
        warp_sums[k][warp] = v[k];
    }
    __syncthreads();
    for (int k = 0; k < N; ++k)
      v[k] = warpAllSum(lane < warps ? warp_sums[k][lane] : 0.0);
    __syncthreads();  // warp_sums may be reused at once
  }
}

// Totals of N sums over the whole cooperative grid, in every thread of every block: each block
// sums its threads' values (thread 0 writes the block's partials), the grid barrier, then warp 0
// of every block sums all the partials in the same fixed order (threadPartials over its 32 lanes,
// then an xor butterfly) and hands the totals to its block through shared memory, so every block
// holds the same bits. Only thread 0 needs the block's own sums and only one warp the partials:
// per stage one warp butterfly and one __syncthreads fewer than forming both in every thread.
// On the H200: 1–5 % faster per iteration below 500 particles, within ±3 % up to 16k, 4–6 % slower
// at 65k (256–264 blocks: 8–9 partials per lane of warp 0); stage 2 in every thread with the warp
// sums then added in warp order was 3–13 % slower up to 16k and 2–3 % faster at 65k
// (bench/results/gpu-h200-2026-11-30-final.json against -rejected-stage2.json). Ablation 8 keeps
// the shared-memory tree in every thread for both stages. `partials`: the first of N rows of
// `stride` block partials.
// `after_barrier` runs in every thread right after the grid barrier, before the partials are
// read: loads it issues that depend only on the barrier are then in flight with the partials'
// (item 27).
// Item 29 (`split`, blocks of at least 32 N threads): warp k sums sum k alone, and issues every
// load of its lanes' partials (up to kSumBatch each, one round trip for up to 32 kSumBatch blocks)
// before after_barrier's loads. With warp 0 forming all N, the compiler reused a register of
// after_barrier's loads (an unused fourth float) for warp 0's first partial sum, so warp 0 waited
// for those loads before it issued its own: two round trips after the barrier where one would do
// (ncu on item 27's kernel at the 16k volume: that one wait was a third of the sums' phase, about
// 8 % of an iteration). Each lane adds its partials in threadPartials' order and the warp in the
// same butterfly, so the same bits.
constexpr int kSumBatch = 5;

template <int N, int kAblate, int kMaxThreads, typename AfterBarrier>
__device__ __forceinline__ void gridTotals(double (&v)[N], double* partials, int stride,
                                           AfterBarrier after_barrier, bool split = false,
                                           uint32_t* arrived = nullptr, uint32_t spread = 1) {
  if constexpr (kAblate == kAblateShuffle) {
    blockTotals<N, kAblate, kMaxThreads>(v);
    if (threadIdx.x == 0) {
      for (int k = 0; k < N; ++k)
        partials[k * stride + blockIdx.x] = v[k];
    }
    gridBarrier(arrived);
    after_barrier();
    threadPartials<N>(partials, stride, int(gridDim.x), v);
    blockTotals<N, kAblate, kMaxThreads>(v);
  } else {
    __shared__ double totals[N];
    blockSum<N>(v, spread);
    if (threadIdx.x == 0) {
      for (int k = 0; k < N; ++k)
        partials[k * stride + blockIdx.x] = v[k];
    }
    // the barrier also orders this block's reads of `totals` (the iteration before) before
    // thread 0 writes it again below
    gridBarrier(arrived);
    if (split && blockDim.x >= 32 * N) {
      const int warp = int(threadIdx.x >> 5), lane = int(threadIdx.x & 31), count = int(gridDim.x);
      const double* base = partials + (warp < N ? warp : 0) * stride;
      double x[kSumBatch];
      auto issue = [&](int b0) {
#pragma unroll
        for (int k = 0; k < kSumBatch; ++k) {
          const int b = b0 + 32 * k + lane;
          x[k] = __ldcg(base + (b < count ? b : count - 1));
        }
      };
      if (warp < N) issue(0);
      after_barrier();
      if (warp < N) {
        double total = 0.0;
        for (int b0 = 0;;) {
#pragma unroll
          for (int k = 0; k < kSumBatch; ++k)
            total += b0 + 32 * k + lane < count ? x[k] : 0.0;
          b0 += 32 * kSumBatch;
          if (b0 >= count) break;
          issue(b0);
        }
        total = warpAllSum(total);
        if (lane == 0) totals[warp] = total;
      }
      __syncthreads();
      for (int k = 0; k < N; ++k)
        v[k] = totals[k];
      return;
    }
    after_barrier();
    if (threadIdx.x < 32) {
      threadPartials<N>(partials, stride, int(gridDim.x), v, int(threadIdx.x), 32);
      for (int k = 0; k < N; ++k)
        v[k] = warpAllSum(v[k]);
      if (threadIdx.x == 0) {
        for (int k = 0; k < N; ++k)
          totals[k] = v[k];
      }
    }
    __syncthreads();
    for (int k = 0; k < N; ++k)
      v[k] = totals[k];
  }
}

// After an iteration: converged when |r| <= target, stopped at the cap; true when the solve ends.
__device__ __forceinline__ bool finished(int iterations, double r_norm, double target,
                                         int max_iterations, int* converged, int* done) {
  if (r_norm <= target) {
    *converged = 1;
    *done = 1;
    return true;
  }
  if (iterations >= max_iterations) {
    *done = 1;
    return true;
  }
  return false;
}

// Item 49: 1 / x for item 44's scalars (x > 0 and normal, as γ, α and η are there): the hardware's
// approximation (rcp.approx.ftz.f64) and one cubic correction, r (1 + e + e²) with e = 1 − x r, in
// four dependent operations and no branch, where `1.0 / x` takes six and a test for its slow path
// (and a / x nine). Not the correctly rounded quotient, but within about an ulp of it, before what
// it feeds is rounded to float (α, β) or used in η; ScalarsAhead.FollowsTheDividedChain holds the
// solve to the divisions'.
__device__ __forceinline__ double reciprocal(double x) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  const double e = fma(-x, r, 1.0);
  return fma(r, fma(e, e, e), r);
}

// Item 50: a row's term of item 14's sums, a·b formed in float (two FMAs) and converted once: one
// float-to-double conversion where dotDouble takes six (conversions to double issue at a fraction
// of the float rate; the finish held 7.5 % of cloth 256's stall samples). Not the same bits as
// dotDouble's exact products; the sums over the rows stay in double, in the same order.
__device__ __forceinline__ double dotRow(glm::vec3 a, glm::vec3 b) {
  return double(fmaf(a.z, b.z, fmaf(a.y, b.y, a.x * b.x)));
}

// Where a whole-CG launch left the solve, for the host and the next launch (one thread writes).
__device__ __forceinline__ void publish(CgScalars* scalars, int iterations, double r_norm,
                                        double rz, float alpha, float beta, int converged,
                                        int breakdown, int done) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  scalars->iterations = iterations;
  scalars->r_norm = r_norm;
  scalars->rz = rz;
  scalars->alpha = alpha;
  scalars->beta = beta;
  scalars->converged = converged;
  scalars->breakdown = breakdown;
  scalars->done = done;
}

// The solve. Iteration t (t completed before it):
//   A:  p = z + β p̂ (β = 0 at t = 0, where p̂ = z),  q = A p,  Σ p·q        [barrier]
//       α = r·z / p·q, or a breakdown when p·q <= 0
//   B:  Δv += α p,  r −= α q,  z = P⁻¹ r,  Σ r·r, Σ r·z                      [barrier]
//       |r| <= tolerance |b|: converged; t + 1 = cap: stop; else β = (r·z)_new / (r·z)
// Fused, the direction update of A is evaluated on the fly wherever p is read (p̂ from one buffer,
// p written to the other), so each iteration needs two barriers and every block finishes the
// sums itself. Unfused, as the launched kernels: one block finishes each sum while the others
// wait at a second barrier, and p = z + β p is a phase of its own: five barriers.
template <bool F4, bool kOneBlock, int kAblate, int kHeld>
__device__ __forceinline__ void wholeCg(const WholeCgArgs& a) {
  using Directions = std::conditional_t<kOneBlock, SharedVectors, GlobalVectors<F4>>;
  constexpr int kMaxThreads = kOneBlock ? kOneBlockThreads : kGridMaxThreads;
  const DeviceModel& m = a.model;
  const DeviceSystem& sys = a.system;
  CgScalars* scalars = a.scalars;
  const uint32_t n = m.particles;
  const uint32_t first = kOneBlock ? threadIdx.x : firstIndex();
  const uint32_t stride = kOneBlock ? blockDim.x : gridStride();

  // written by the kernel before this one: the same values in every block
  if (scalars->done) return;
  int iterations = scalars->iterations;
  double rz = scalars->rz, r_norm = scalars->r_norm;
  const double target = scalars->target;
  const int max_iterations = scalars->max_iterations;
  float alpha = scalars->alpha;
  float beta = iterations > 0 ? scalars->beta : 0.0f;
  int converged = 0, breakdown = 0, done = 0;
  const bool fused = a.fused;

  uint32_t* const arrived = a.last_arrival ? a.reduction.arrived : nullptr;  // item 33
  auto barrier = [&]() {
    if constexpr (kOneBlock) {
      __syncthreads();
    } else {
      gridBarrier(arrived);
    }
  };
  // Totals of N sums in every thread of every block. Fused: each block sums the block partials
  // in the same order. Unfused: block 0 sums them and publishes, the others wait.
  auto totals = [&](auto& v, int slot) {
    constexpr int N = sizeof(v) / sizeof(double);
    if constexpr (!kOneBlock) {
      if (fused) {
        gridTotals<N, kAblate, kMaxThreads>(
            v, a.reduction.partials + slot * a.reduction.stride, a.reduction.stride, [] {},
            a.split_sums, arrived);
        return;
      }
    }
    blockTotals<N, kAblate, kMaxThreads>(v);
    if constexpr (!kOneBlock) {
      if (threadIdx.x == 0) {
        for (int k = 0; k < N; ++k)
          a.reduction.partials[(slot + k) * a.reduction.stride + blockIdx.x] = v[k];
      }
      barrier();
      if (fused || blockIdx.x == 0) {
        threadPartials<N>(a.reduction.partials + slot * a.reduction.stride, a.reduction.stride,
                          int(gridDim.x), v);
        blockTotals<N, kAblate, kMaxThreads>(v);
      }
    }
    if (!fused) {
      if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (int k = 0; k < N; ++k)
          scalars->stage[k] = v[k];
      }
      barrier();
      for (int k = 0; k < N; ++k)
        v[k] = __ldcg(&scalars->stage[k]);
      barrier();  // stage is written again by the next finishing stage
    }
  };

  // the two direction buffers, P0 and P1 (selected, not indexed: no local memory), and z
  Directions P0, P1, Z;
  if constexpr (kOneBlock) {
    extern __shared__ float shared_vectors[];
    P0.base = shared_vectors;
    P1.base = shared_vectors + 3 * size_t(n);
    Z.base = shared_vectors + 6 * size_t(n);
    const bool odd = fused && (iterations & 1);
    const Directions p_start = odd ? P1 : P0;
    const GlobalVectors<F4> p_in{odd ? a.p_other : a.cg.p}, z_in{a.cg.z};
    for (uint32_t i = first; i < n; i += stride) {
      p_start.set(i, p_in.get(i));
      Z.set(i, z_in.get(i));
    }
    __syncthreads();
  } else {
    P0.base = a.cg.p;
    P1.base = a.p_other;
    Z.base = a.cg.z;
  }
  const GlobalVectors<F4> dv{a.cg.dv}, r{a.cg.r}, q{a.cg.q};
  const GatherLanes g = gatherLanes(static_cast<uint32_t>(a.lanes), first, stride);
  const HeldEntries<kHeld> held =
      holdEntries<kAblate, kHeld>(m, sys, g.first + g.group, g.sub, g.lanes);

  const int budget = a.iteration_budget > 0 ? a.iteration_budget : INT_MAX;
  for (int step = 0; step < budget; ++step) {
    const bool odd = fused && (iterations & 1);
    const Directions p_old = odd ? P1 : P0;
    const Directions p_new = fused ? (odd ? P0 : P1) : P0;

    // ---- A: q = A p, Σ p·q
    //   (A p)_i = (m_i + h c_air) p_i + Σ_{s ∋ i} ±S_s (p_{i_s} − p_{j_s}),  0 when pinned
    // each particle's springs split over a.lanes threads (item 13)
    double pq[1] = {0.0};
    struct Row {
      glm::vec3 pi, springs;
      float mask;
    };
    auto row = [&](uint32_t i, uint32_t sub, uint32_t lanes) {
      Row r;
      r.mask = readOnly<kAblate>(m.free_mask + i);
      r.pi = fused ? axpy(beta, p_old.get(i), Z.get(i)) : p_old.get(i);
      r.springs = rowPart<kAblate>(m, sys, held, i, r.pi, r.mask, sub, lanes, [&](uint32_t o) {
        return fused ? axpy(beta, p_old.get(o), Z.get(o)) : p_old.get(o);
      });
      return r;
    };
    auto finish = [&](uint32_t i, Row r) {
      glm::vec3 out = readOnly<kAblate>(sys.diag + i) * r.pi + r.springs;
      if constexpr (kAblate == kAblateMasks) {
        if (r.mask == 0.0f) {
          r.pi = glm::vec3(0.0f);
          out = glm::vec3(0.0f);
        }
      } else {
        out = r.mask == 0.0f ? glm::vec3(0.0f) : out;
      }
      if (fused) p_new.set(i, r.pi);
      q.set(i, out);
      pq[0] += dotDouble(r.pi, out);
    };
    gatherRows(g, first, stride, n, row, finish);
    totals(pq, 0);
    if (!(pq[0] > 0.0)) {
      breakdown = 1;
      done = 1;
      break;
    }
    alpha = static_cast<float>(rz / pq[0]);

    // ---- B: Δv += α p, r −= α q, z = P⁻¹ r; Σ r·r, Σ r·z
    double sums[2] = {0.0, 0.0};
    for (uint32_t i = first; i < n; i += stride) {
      dv.set(i, dv.get(i) + alpha * p_new.get(i));
      const glm::vec3 ri = r.get(i) - alpha * q.get(i);
      const glm::vec3 zi = inverseBlock<kAblate>(sys.inv_diag, i) * ri;
      r.set(i, ri);
      Z.set(i, zi);
      sums[0] += dotDouble(ri, ri);
      sums[1] += dotDouble(ri, zi);
    }
    totals(sums, 1);
    ++iterations;
    r_norm = sqrt(sums[0]);
    if (finished(iterations, r_norm, target, max_iterations, &converged, &done)) break;
    beta = static_cast<float>(sums[1] / rz);
    rz = sums[1];

    // ---- unfused: p = z + β p as a phase of its own
    if (!fused) {
      for (uint32_t i = first; i < n; i += stride)
        P0.set(i, Z.get(i) + beta * P0.get(i));
      barrier();
    }
  }

  if constexpr (kOneBlock) {
    if (!done) {  // the next launch goes on from global memory
      const bool odd = fused && (iterations & 1);
      const Directions p_next = odd ? P1 : P0;
      const GlobalVectors<F4> p_out{odd ? a.p_other : a.cg.p}, z_out{a.cg.z};
      for (uint32_t i = first; i < n; i += stride) {
        p_out.set(i, p_next.get(i));
        z_out.set(i, Z.get(i));
      }
    }
  }
  publish(scalars, iterations, r_norm, rz, alpha, beta, converged, breakdown, done);
}

// The solve with one grid barrier per iteration (item 14): Chronopoulos–Gear CG, which forms all
// of an iteration's sums in one reduction. With u = P⁻¹ r, w = A u, s = A p (t completed before):
//   init (t = 0 only): w = A u, δ = w·u; α = (r·u) / δ, β = 0                      [barrier]
//   iteration t:   p = u + β p,  s = w + β s,  Δv += α p,  r' = r − α s,  u' = P⁻¹ r',
//                  w' = A u',  Σ r'·u', Σ w'·u', Σ r'·r'                             [barrier]
//                  |r'| <= tolerance |b|: converged; t + 1 = cap: stop; else
//                  β' = (r'·u') / (r·u),  α' = (r'·u') / (w'·u' − β' (r'·u') / α)  (<= 0:
//                  breakdown)
// A u' needs the neighbours' u' before they are written, so each gatherer recomputes them from
// the neighbours' r, w and s of iteration t (u'_j = P⁻¹_j (r_j − α (w_j + β s_j))): r, w and s
// ping-pong between two buffers each (odd iterations read the second), so nothing a neighbour
// reads is written in the same phase; p and Δv are only ever touched by their own particle. The
// block partial sums alternate between two sets of three slots with the barriers, so a block that
// is already writing the next iteration's partials never overwrites ones another block is still
// reading. Same ablations as wholeCg.
// Item 18 (kStaged): before each gather every block evaluates u' once for each particle of its
// halo (its own rows and their neighbours, a.stage_halo) into shared memory, and the gather reads
// the neighbours' u' from there by slot (a.stage_entries) instead of every gatherer recomputing
// them from three vectors and a P⁻¹ block in global memory: the same expression, so the same
// bits as without it.
// Item 27 (kEarly, with kStaged and the entries staged: one round of rows): the fill also keeps,
// for the block's own rows (the halo's first slots), s', r' and u = P⁻¹ r in shared memory, and
// the row and its finish take them from there, with the row's mask, diagonal, p and Δv held in
// registers for the launch and written back at its end (p and Δv are only ever touched by their
// own particle). The fill's
// first round loads its slot's r, w, s and P⁻¹ right after the grid barrier, while warp 0 reads
// the partials. An iteration then waits for one memory round trip after the barrier instead of
// three (the partials; the halo's inputs; the rows' own inputs). The same expressions on the same
// values, so the same bits as kStaged alone.
template <bool F4, int kAblate, int kHeld, bool kStaged = false, bool kEarly = false,
          bool kSharedWalk = false, int kWords = 0, bool kOwnInRegisters = false,
          bool kColumns = false>
__device__ __forceinline__ void wholeCgSingleReduction(const WholeCgArgs& a) {
  static_assert(!kColumns || (kWords > 0 && kSharedWalk), "item 46 walks item 31's words");
  static_assert(!kEarly || kStaged, "item 27 runs on item 18's staged kernel");
  constexpr bool kPairedWalk = kEarly && kSharedWalk;  // item 30: item 27's entries are staged
  const DeviceModel& m = a.model;
  const DeviceSystem& sys = a.system;
  CgScalars* scalars = a.scalars;
  const uint32_t n = m.particles;
  if (scalars->done) return;  // written by the kernel before this one: the same in every block
  int iterations = scalars->iterations;
  double gamma = scalars->rz;
  const double target = scalars->target;
  const int max_iterations = scalars->max_iterations;
  float alpha = scalars->alpha, beta = scalars->beta;
  int converged = 0, breakdown = 0, done = 0;

  // block partials -> totals in every thread; `set` alternates with the barriers
  uint32_t* const arrived = a.last_arrival ? a.reduction.arrived : nullptr;  // item 33
  auto totals = [&](double(&v)[3], int set) {
    gridTotals<3, kAblate, kGridMaxThreads>(
        v, a.reduction.partials + 3 * set * a.reduction.stride, a.reduction.stride, [] {},
        a.split_sums, arrived);
  };

  const GlobalVectors<F4> R0{a.cg.r}, R1{a.r_other}, W0{a.cg.q}, W1{a.w_other};
  const GlobalVectors<F4> S0{a.cg.z}, S1{a.p_other}, P{a.cg.p}, dv{a.cg.dv};
  const GatherLanes g = gatherLanes(static_cast<uint32_t>(a.lanes), firstIndex(), gridStride());
  const HeldEntries<kHeld> held = holdEntries<kAblate, kHeld, kStaged>(
      m, sys, g.first + g.group, g.sub, g.lanes, StagedEntries{a.stage_entries});

  // item 18: this block's halo, one u per slot, filled by `stage` before each gather
  uint32_t stage_begin = 0, stage_count = 0;
  SharedVectors halo{nullptr};
  StagedEntries entries{a.stage_entries};
  if constexpr (kStaged) {
    // shared memory: the entries' blocks and slots (a.stage_entry_slots of each; item 31: the
    // block's springs' blocks, a.stage_spring_slots, and a word per entry), then the halo
    extern __shared__ float4 stage_shared[];
    const uint32_t entry_slots = a.stage_entry_slots, spring_slots = a.stage_spring_slots;
    const uint32_t block_slots = spring_slots > 0 ? spring_slots : entry_slots;
    halo.base = reinterpret_cast<float*>(stage_shared + block_slots) + entry_slots;
    stage_begin = __ldg(a.stage_start + blockIdx.x);
    stage_count = __ldg(a.stage_start + blockIdx.x + 1) - stage_begin;
    if (entry_slots > 0) {
      // one round of rows (the backend stages entries only then): this block's rows are
      // first, first + 1, ... < first + blockDim.x / lanes and their entries one range of the
      // CSR; copied once per launch, ordered before their first use by the first fill's
      // __syncthreads
      const uint32_t rows = blockDim.x / uint32_t(a.lanes), first = blockIdx.x * rows;
      const uint32_t begin = readOnly<kAblate>(m.row_start + min(first, n));
      const uint32_t end = readOnly<kAblate>(m.row_start + min(first + rows, n));
      float4* blocks = stage_shared;
      uint32_t* slots = reinterpret_cast<uint32_t*>(stage_shared + block_slots);
      if (spring_slots > 0) {
        // item 31: each of the block's springs once, then a word per entry
        const uint32_t s0 = __ldg(a.stage_spring_start + blockIdx.x);
        const uint32_t s1 = __ldg(a.stage_spring_start + blockIdx.x + 1);
        for (uint32_t k = threadIdx.x; s0 + k < s1; k += blockDim.x)
          blocks[k] = readOnly<kAblate>(sys.block + __ldg(a.stage_springs + s0 + k));
        if constexpr (kColumns) {
          // item 46: each thread the words of its share of its row (entries sub, sub + lanes, ...)
          // past the held ones, by column (one round: the block's row t / lanes is thread t's)
          const uint32_t lanes = kOwnInRegisters ? 1u : uint32_t(a.lanes);  // item 45: one
          const uint32_t row = first + threadIdx.x / lanes;
          if (row < n) {
            const uint32_t r1 = readOnly<kAblate>(m.row_start + row + 1);
            uint32_t c = threadIdx.x;
            for (uint32_t e = readOnly<kAblate>(m.row_start + row) + threadIdx.x % lanes +
                              lanes * uint32_t(kHeld);
                 e < r1; e += lanes, c += blockDim.x)
              slots[c] = __ldg(a.stage_words + e);
          }
        } else {
          for (uint32_t k = threadIdx.x; begin + k < end; k += blockDim.x)
            slots[k] = __ldg(a.stage_words + begin + k);
        }
      } else {
        for (uint32_t k = threadIdx.x; begin + k < end; k += blockDim.x) {
          const uint2 pair = readOnly<kAblate>(a.stage_entries + begin + k);
          blocks[k] = readOnly<kAblate>(sys.block + pair.x);
          slots[k] = pair.y;
        }
      }
      // (item 46: words by column, indexed from 0)
      entries =
          StagedEntries{a.stage_entries, blocks, slots, kColumns ? 0u : begin, spring_slots > 0};
    }
  }
  // item 27: this block's own rows (the halo's first own_rows slots) as the fill left them, 9
  // floats each (s', r', u = P⁻¹ r), and what the thread's row keeps in registers.
  // Item 45 (rows on one lane, a.rows_in_registers): thread t's row is the block's own row t in
  // slot t, which the fill's first round gives thread t too. Its s', r' and u then stay in
  // registers from the fill to the finish and its r', w', s' from the finish to the next fill:
  // no `own` area in shared memory, and the loads right after the barrier (`next`) are the first
  // round of the other blocks' slots, own_rows + t, instead of the block's own.
  SharedVectors own{nullptr};
  uint32_t own_rows = 0, slot_particle = 0, own_row = 0, own_slot = 0, ahead_slot = threadIdx.x;
  float own_mask = 0.0f, own_diag = 0.0f;
  glm::vec3 own_p(0.0f), own_dv(0.0f);
  constexpr bool in_registers = kEarly && kOwnInRegisters;  // a.rows_in_registers
  if constexpr (kEarly) {
    const uint32_t rows = blockDim.x / uint32_t(a.lanes), begin = blockIdx.x * rows;
    own_rows = begin < n ? min(rows, n - begin) : 0u;
    own.base = halo.base + 3 * size_t(a.stage_slots);
    if (in_registers) ahead_slot += own_rows;
    if (ahead_slot < stage_count) slot_particle = __ldg(a.stage_halo + stage_begin + ahead_slot);
    own_row = g.first + g.group;                 // one round of rows: the thread's only row
    own_slot = threadIdx.x / uint32_t(a.lanes);  // its slot: own_row − the block's first row
    if (own_row < n) {
      own_mask = __ldg(m.free_mask + own_row);
      own_diag = __ldg(sys.diag + own_row);
      own_p = P.get(own_row);
      own_dv = dv.get(own_row);
    }
  }
  // item 43, after `own` in shared memory: the own rows' r', w', s' as the finish formed them
  // (keep_rows; 9 floats per row of the block), then every slot's P⁻¹ block (inverses; 6 floats)
  // (item 45 needs neither area: the own rows' values stay in registers)
  const bool keep_rows = kEarly && a.fill_kept_rows && !in_registers;
  const bool shared_inverses = kEarly && a.fill_inverses;
  SharedVectors kept{nullptr};
  float* inverses = nullptr;
  if constexpr (kEarly) {
    const uint32_t rows = blockDim.x / uint32_t(a.lanes);
    kept.base = own.base + (in_registers ? 0 : 9 * size_t(rows));
    // rounded up to 8 bytes for float2 (stagedHaloBytes counts a float for it). The pointer rebuilt
    // from an integer compiles to generic loads and stores; as an offset from the kept area's
    // pointer (ld.shared, st.shared) it measured 2 % slower at volume 41 and 2 % faster at cloth
    // 64 (docs/PERFORMANCE.md, "Items 43 and 44"), so it stays generic
    const uintptr_t end =
        reinterpret_cast<uintptr_t>(kept.base + (keep_rows ? 9 * size_t(rows) : 0));
    inverses = reinterpret_cast<float*>((end + 7) & ~uintptr_t(7));
    if (shared_inverses) {
      // slot j's block is read only by the thread that writes it here, in the fill's order: slots
      // t, t + blockDim, ...; with item 45 its own slot t and then own_rows + t, own_rows + t +
      // blockDim, ... (in a block of fewer rows than threads those are other threads' slots in
      // the plain order, and a launch that does not start the solve has no barrier before its
      // first fill)
      auto copy = [&](uint32_t j) {
        const SymmetricEntries e =
            loadSymmetricEntries(sys.inv_diag, __ldg(a.stage_halo + stage_begin + j));
        float2* out = reinterpret_cast<float2*>(inverses) + 3 * size_t(j);
        out[0] = e.e[0];
        out[1] = e.e[1];
        out[2] = e.e[2];
      };
      if (in_registers && threadIdx.x < own_rows) copy(threadIdx.x);
      for (uint32_t j = ahead_slot; j < stage_count; j += blockDim.x)
        copy(j);
    }
  }
  // Fills the halo with u_of(particle) and returns what the gather reads for a neighbour: its
  // slot, or (unstaged) u_of(o) from global memory: one expression either way, so the same bits.
  // The slots are rewritten only after the block's reads of them: every thread passes the
  // __syncthreads of the grid-wide sums between one gather and the next fill.
  auto stage = [&](auto u_of) {
    if constexpr (kStaged) {
      for (uint32_t j = threadIdx.x; j < stage_count; j += blockDim.x)
        halo.set(j, u_of(__ldg(a.stage_halo + stage_begin + j)));
      __syncthreads();
    }
    return [&halo, u_of](uint32_t o) {
      if constexpr (kStaged) {
        return halo.get(o);
      } else {
        return u_of(o);
      }
    };
  };

  const bool started = iterations == 0;  // this launch starts the solve
  if (started) {
    // ---- init: w = A u with u = P⁻¹ r (r = b from the prepare kernels), δ = w·u
    double sums[3] = {0.0, 0.0, 0.0};
    struct Row {
      glm::vec3 ui, springs;
      float mask;
    };
    const auto neighbour = stage(
        [&](uint32_t o) { return applyMatrix(inverseBlock<kAblate>(sys.inv_diag, o), R0.get(o)); });
    auto row = [&](uint32_t i, uint32_t sub, uint32_t lanes) {
      Row r;
      r.mask = readOnly<kAblate>(m.free_mask + i);
      r.ui = applyMatrix(inverseBlock<kAblate>(sys.inv_diag, i), R0.get(i));
      // (item 46: the staged words are by column, which only its walk reads)
      r.springs = rowPart<kAblate, kHeld, kStaged, kColumns, kWords, kColumns>(
          m, sys, held, i, r.ui, r.mask, kOwnInRegisters ? 0u : sub, kOwnInRegisters ? 1u : lanes,
          neighbour, entries);
      return r;
    };
    auto finish = [&](uint32_t i, const Row& r) {
      glm::vec3 wi = readOnly<kAblate>(sys.diag + i) * r.ui + r.springs;
      wi = r.mask == 0.0f ? glm::vec3(0.0f) : wi;
      W0.set(i, wi);
      sums[1] += dotDouble(wi, r.ui);
    };
    gatherRows(g, firstIndex(), gridStride(), n, row, finish);
    totals(sums, 1);
    if (!(sums[1] > 0.0)) {
      breakdown = 1;
      done = 1;
    } else {
      alpha = static_cast<float>(gamma / sums[1]);
      beta = 0.0f;
    }
  }

  // item 27: what the fill needs of halo particle j, loaded before α and β are known
  struct SlotInputs {
    glm::vec3 r, w, s;
    SymmetricEntries inv;
  };
  // (slot: j's place in the halo; item 43 reads its block from there, and with `kept` an own
  // row's r, w, s from where the finish left them)
  auto slotInverse = [&](uint32_t j, uint32_t slot) {
    if (shared_inverses) {
      const float2* e = reinterpret_cast<const float2*>(inverses) + 3 * size_t(slot);
      return SymmetricEntries{{e[0], e[1], e[2]}};
    }
    return loadSymmetricEntries(sys.inv_diag, j);
  };
  auto slotInputs = [&](uint32_t j, uint32_t slot, bool odd_in, bool kept_rows = false) {
    SlotInputs in;
    if (kept_rows && slot < own_rows) {
      in.r = kept.get(3 * slot);
      in.w = kept.get(3 * slot + 1);
      in.s = kept.get(3 * slot + 2);
    } else {
      in.r = (odd_in ? R1 : R0).get(j);
      in.w = (odd_in ? W1 : W0).get(j);
      in.s = (odd_in ? S1 : S0).get(j);
    }
    in.inv = slotInverse(j, slot);
    return in;
  };
  // item 45: `mine`, the thread's own row's inputs (its P⁻¹ block loaded with the other blocks'
  // slots after each barrier), and `own_s`, `own_r`, `own_u`, `own_u_old`: what the fill formed of
  // them for the row and its finish
  SlotInputs next{}, mine{};
  glm::vec3 own_s(0.0f), own_r(0.0f), own_u(0.0f), own_u_old(0.0f);
  if constexpr (kEarly) {
    if (ahead_slot < stage_count) next = slotInputs(slot_particle, ahead_slot, iterations & 1);
    if (in_registers && threadIdx.x < own_rows)
      mine = slotInputs(own_row, threadIdx.x, iterations & 1);
  }

  // item 44: what the scalars after the sums divide by, formed an iteration ahead (item 49: by
  // reciprocal() in the loop). At the solve's start by division (a form with reciprocal() here as
  // well spilled item 45's kernel, 128 registers, and measured 2–3 % slower at one lane); a later
  // launch (whole_cg_interval K > 0) takes what the launch before formed, so K launches give the
  // bits of one
  double gamma_inverse, alpha_inverse;
  if (started) {
    gamma_inverse = 1.0 / gamma;
    alpha_inverse = 1.0 / double(alpha);
  } else {
    gamma_inverse = scalars->rz_inverse;
    alpha_inverse = scalars->alpha_inverse;
  }
  // item 49: r'·r' of the launch's last iteration (-1: none ran), its root r_norm taken once, after
  // the loop, instead of in every iteration (only the published |r| and item 44's ablation use it)
  double rr = -1.0;

  // item 35 (item 27's rows on 4 or more lanes): every lane of a row finishes it (the same values;
  // only the first stores them) and lane k forms its sum k, which the block's sums then take from
  // lane k of each row instead of all three from the first
  const bool spread = kEarly && a.lane_sums && g.lanes >= 4;
  const int budget = a.iteration_budget > 0 ? a.iteration_budget : INT_MAX;
  for (int step = 0; step < budget && !done; ++step) {
    const bool odd = iterations & 1, first = iterations == 0;
    const GlobalVectors<F4> r_in = odd ? R1 : R0, r_out = odd ? R0 : R1;
    const GlobalVectors<F4> w_in = odd ? W1 : W0, w_out = odd ? W0 : W1;
    const GlobalVectors<F4> s_in = odd ? S1 : S0, s_out = odd ? S0 : S1;
    // s = w + β s (s of the iteration before; at t = 0 there is none: s = w)
    auto direction = [&](uint32_t j) {
      const glm::vec3 wj = w_in.get(j);
      return first ? wj : axpy(beta, s_in.get(j), wj);
    };
    // r' = r − α s and u' = P⁻¹ r' of particle j: one expression for the owner and every
    // gatherer, so all of them form the same bits
    auto residual = [&](uint32_t j, glm::vec3 sj) { return axpy(-alpha, sj, r_in.get(j)); };
    auto preconditioned = [&](uint32_t j, glm::vec3 rj) {
      return applyMatrix(inverseBlock<kAblate>(sys.inv_diag, j), rj);
    };
    double sums[3] = {0.0, 0.0, 0.0};  // r'·u', w'·u', r'·r'
    struct Row {
      glm::vec3 si, ri, ui, springs;
      float mask;
    };
    if constexpr (kEarly) {
      // item 27: slot j's u' (and for the block's own rows s', r' and u) from its inputs, in
      // the expressions of direction, residual and preconditioned; the first round's were
      // loaded after the last barrier
      auto fill = [&](uint32_t j, const SlotInputs& in) {
        const glm::vec3 sj = first ? in.w : axpy(beta, in.s, in.w);
        const glm::vec3 rj = axpy(-alpha, sj, in.r);
        const glm::mat3 inv = symmetricFrom(in.inv);
        const glm::vec3 uj = applyMatrix(inv, rj);
        halo.set(j, uj);
        if (j < own_rows) {
          if (in_registers) {  // item 45: j is this thread's own row's slot
            own_s = sj;
            own_r = rj;
            own_u = uj;
            own_u_old = applyMatrix(inv, in.r);
          } else {
            own.set(3 * j, sj);
            own.set(3 * j + 1, rj);
            own.set(3 * j + 2, applyMatrix(inv, in.r));
          }
        }
      };
      if (in_registers && threadIdx.x < own_rows) fill(threadIdx.x, mine);
      if (ahead_slot < stage_count) fill(ahead_slot, next);
      for (uint32_t j = ahead_slot + blockDim.x; j < stage_count; j += blockDim.x)
        fill(j, slotInputs(__ldg(a.stage_halo + stage_begin + j), j, odd));
      __syncthreads();
    }
    const auto neighbour = [&] {
      if constexpr (kEarly) {
        return [&halo](uint32_t o) { return halo.get(o); };  // filled above
      } else {
        return stage([&](uint32_t o) { return preconditioned(o, residual(o, direction(o))); });
      }
    }();
    auto row = [&](uint32_t i, uint32_t sub, uint32_t lanes) {
      Row r;
      if constexpr (kEarly) {
        r.mask = own_mask;  // i == own_row
        if (in_registers) {
          r.si = own_s;
          r.ri = own_r;
          r.ui = own_u;
        } else {
          r.si = own.get(3 * own_slot);
          r.ri = own.get(3 * own_slot + 1);
          r.ui = halo.get(own_slot);
        }
      } else {
        r.mask = readOnly<kAblate>(m.free_mask + i);
        r.si = direction(i);
        r.ri = residual(i, r.si);        // r'
        r.ui = preconditioned(i, r.ri);  // u'
      }
      // (item 45's rows are on one lane: known here, for the compiler)
      r.springs = rowPart<kAblate, kHeld, kStaged, kPairedWalk, kWords, kColumns>(
          m, sys, held, i, r.ui, r.mask, in_registers ? 0u : sub, in_registers ? 1u : lanes,
          neighbour, entries);
      return r;
    };
    auto finish = [&](uint32_t i, const Row& r) {
      glm::vec3 u_old, p_before, dv_before;
      float diag;
      if constexpr (kEarly) {
        u_old = in_registers ? own_u_old : own.get(3 * own_slot + 2);
        p_before = own_p;
        dv_before = own_dv;
        diag = own_diag;
      } else {
        u_old = applyMatrix(inverseBlock<kAblate>(sys.inv_diag, i), r_in.get(i));
        p_before = first ? glm::vec3(0.0f) : P.get(i);
        dv_before = dv.get(i);
        diag = readOnly<kAblate>(sys.diag + i);
      }
      const glm::vec3 pi = first ? u_old : axpy(beta, p_before, u_old);
      glm::vec3 wi = diag * r.ui + r.springs;
      wi = r.mask == 0.0f ? glm::vec3(0.0f) : wi;
      const glm::vec3 dvi = dv_before + alpha * pi;
      if constexpr (kEarly) {
        own_p = pi;  // written back once, at the end of the launch
        own_dv = dvi;
      } else {
        P.set(i, pi);
        dv.set(i, dvi);
      }
      if (!spread || g.sub == 0) {
        s_out.set(i, r.si);
        r_out.set(i, r.ri);
        w_out.set(i, wi);
        if (keep_rows) {  // item 43: the same values for this block's next fill
          kept.set(3 * own_slot, r.ri);
          kept.set(3 * own_slot + 1, wi);
          kept.set(3 * own_slot + 2, r.si);
        }
        if (in_registers) {  // item 45: likewise, in this thread's registers
          mine.r = r.ri;
          mine.w = wi;
          mine.s = r.si;
        }
      }
      if (spread) {
        // item 35: lane k of the row forms sum k (lanes past the third: sum 0, never read)
        sums[0] += dotRow(g.sub == 1 ? wi : r.ri, g.sub == 2 ? r.ri : r.ui);
      } else {
        sums[0] += dotRow(r.ri, r.ui);
        sums[1] += dotRow(wi, r.ui);
        sums[2] += dotRow(r.ri, r.ri);
      }
    };
    gatherRows(g, firstIndex(), gridStride(), n, row, finish, spread);
    gridTotals<3, kAblate, kGridMaxThreads>(
        sums, a.reduction.partials + 3 * (iterations & 1) * a.reduction.stride, a.reduction.stride,
        [&] {
          // item 27: the next fill's first round, from what this iteration wrote (r', w', s';
          // item 43: the own rows' from shared memory, where the finish left them; item 45: the
          // other blocks' slots, and the own row's P⁻¹ block)
          if constexpr (kEarly) {
            if (ahead_slot < stage_count)
              next = slotInputs(slot_particle, ahead_slot, !odd, keep_rows);
            if (in_registers && threadIdx.x < own_rows)
              mine.inv = slotInverse(own_row, threadIdx.x);
          }
        },
        a.split_sums, arrived, spread ? g.lanes : 1u);
    ++iterations;
    rr = sums[2];
    double beta_next, eta;
    if (a.scalars_ahead) {
      // item 44: the stop from r'·r' against target², and β' and η from 1/γ and 1/α formed
      // after the iteration before, while the rows ran (item 49: and α' from reciprocal(); no
      // division after the sums)
      if (sums[2] <= target * target) {
        converged = 1;
        done = 1;
        break;
      }
      if (iterations >= max_iterations) {
        done = 1;
        break;
      }
      beta_next = sums[0] * gamma_inverse;
      eta = sums[1] - beta_next * sums[0] * alpha_inverse;
    } else {
      if (finished(iterations, sqrt(rr), target, max_iterations, &converged, &done)) break;
      beta_next = sums[0] / gamma;
      eta = sums[1] - beta_next * sums[0] / double(alpha);  // p'·A p'
    }
    if (!(eta > 0.0)) {
      breakdown = 1;
      done = 1;
      break;
    }
    // (item 49 with item 44: reciprocal() instead of the divisions)
    alpha = static_cast<float>(a.scalars_ahead ? sums[0] * reciprocal(eta) : sums[0] / eta);
    beta = static_cast<float>(beta_next);
    gamma = sums[0];
    if (a.scalars_ahead) {  // (read only there)
      gamma_inverse = reciprocal(gamma);
      alpha_inverse = reciprocal(double(alpha));
    }
  }
  // (the root of the same sum the loop took it of before item 49, a NaN's too; where no iteration
  // ran, the |r| the launch started from: block 0's publish may already have written it back here,
  // the same value, and only block 0's is published)
  const double r_norm = rr < 0.0 ? scalars->r_norm : sqrt(rr);

  if constexpr (kEarly) {
    // item 27: p and Δv, held for the launch, for the next launch and the commit (the lane that
    // finished the row holds them)
    if (own_row < n && g.sub == 0) {
      P.set(own_row, own_p);
      dv.set(own_row, own_dv);
    }
  }
  publish(scalars, iterations, r_norm, gamma, alpha, beta, converged, breakdown, done);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    scalars->rz_inverse = gamma_inverse;
    scalars->alpha_inverse = alpha_inverse;
  }
}

// Register limits per kernel class (item 4). The one-block kernel is bounded by its block of up to
// 1024 threads (ablation 4: unbounded, a 256-thread block). The cooperative-grid kernels run
// 256-thread blocks (512 with CudaOptions::grid_block; queryWholeCg) and are compiled without a
// bound: on the H200 the bound
// gave the same register counts and cost 3–6 % per iteration (bench/results, ablation 4, which
// for the grid now puts the bound back).
template <bool F4, int kAblate>
__global__ void __launch_bounds__(kOneBlockThreads) oneBlockKernel(WholeCgArgs args) {
  wholeCg<F4, true, kAblate, 0>(args);
}

template <bool F4>
__global__ void oneBlockUnboundedKernel(WholeCgArgs args) {
  wholeCg<F4, true, kAblateBounds, 0>(args);
}

// The grid kernels hold entries (item 17) in every static ablation; kHeld = 0 is item 17's own
// ablation. The two-barrier kernel holds 4 (about 100 registers, two 256-thread blocks per
// multiprocessor); item 14's kernel holds 2 and is bounded to 128 registers (166 unbounded with 4:
// one block per multiprocessor, and then a second round of rows at 4k–16k particles). On the H200
// those were the fastest of 2 or 4 entries, bounded or not (docs/PERFORMANCE.md, item 17).
template <bool F4, int kAblate, int kHeld>
__global__ void gridKernel(WholeCgArgs args) {
  wholeCg<F4, false, kAblate, kHeld>(args);
}

template <bool F4>
__global__ void __launch_bounds__(kHeavyThreads) gridBoundedKernel(WholeCgArgs args) {
  wholeCg<F4, false, kAblateBounds, kHeldEntries>(args);
}

template <bool F4, int kAblate>
__global__ void __launch_bounds__(kGridMaxThreads, 1) singleReductionKernel(WholeCgArgs args) {
  wholeCgSingleReduction<F4, kAblate, kHeldEntriesSingle>(args);
}

template <bool F4>
__global__ void __launch_bounds__(kGridMaxThreads, 1)
    singleReductionStagedKernel(WholeCgArgs args) {
  wholeCgSingleReduction<F4, kAblateNone, kHeldEntriesSingle, true>(args);
}

// Item 27's kernel, one per walk of the staged entries: item 30's paired walk over the 20-byte
// entries (kWalkPairedEntries) or item 31's words (kWalkPairedWords), and one entry at a time
// (kWalkOneAtATime, item 30 off: which form the entries take tested at each entry). Separate
// kernels, not one with a branch over the forms: so no staged entry tests its form where the
// walk is paired (ncu at the 16k volume: the test and the other form's address arithmetic were a
// sixth of the walk's instructions), and each kernel stays within its 128 registers (one kernel
// holding the three walks spilled).
enum RowsWalk { kWalkOneAtATime = 0, kWalkPairedWords = 1, kWalkPairedEntries = -1 };

// Each also with item 45 (kOwn = kOwnRegisters, rows on one lane), a kernel of its own: as a flag
// of one kernel it cost the kernels on several lanes 2.5–3.5 % per iteration (volume 26 and 41,
// cloth 64 and 128; bench/results/gpu-h200-2026-12-04-registers.json, call 1).
// And item 46 (item 31's words by column: kOwnColumns with item 45, kOwnSharedColumns without),
// with item 30's paired walk only.
enum RowsOwn { kOwnShared = 0, kOwnRegisters = 1, kOwnColumns = 2, kOwnSharedColumns = 3 };

template <bool F4, int kWalk, int kOwn>
__global__ void __launch_bounds__(kGridMaxThreads, 1)
    singleReductionStagedRowsKernel(WholeCgArgs args) {
  wholeCgSingleReduction<F4, kAblateNone, kHeldEntriesSingle, true, true, kWalk != kWalkOneAtATime,
                         kWalk, kOwn == kOwnRegisters || kOwn == kOwnColumns,
                         kOwn == kOwnColumns || kOwn == kOwnSharedColumns>(args);
}

template <bool F4>
__global__ void singleReductionUnheldKernel(WholeCgArgs args) {
  wholeCgSingleReduction<F4, kAblateNone, 0>(args);
}

template <bool F4>
__global__ void __launch_bounds__(kHeavyThreads) singleReductionBoundedKernel(WholeCgArgs args) {
  wholeCgSingleReduction<F4, kAblateBounds, kHeldEntriesSingle>(args);
}

using KernelFn = void (*)(WholeCgArgs);

// The grid kernel of one static ablation, with held entries.
template <bool F4, int kAblate>
KernelFn gridKernelFor(bool single_reduction) {
  return single_reduction ? singleReductionKernel<F4, kAblate>
                          : gridKernel<F4, kAblate, kHeldEntries>;
}

// The compiled variants: each layout without ablation and with each ablation; the grid also with
// one barrier per iteration (single_reduction) and, without ablation, without held entries; item
// 14's kernel without ablation with held entries also staged (item 18), and staged with its
// own rows through the halo (item 27, `rows`). nullptr: not compiled (held = false with a static
// ablation, staged other than that, rows without staged, or an unknown ablation).
template <bool F4, int kOwn>
KernelFn rowsKernelFor(int walk) {
  switch (walk) {
    case kWalkPairedEntries:
      return singleReductionStagedRowsKernel<F4, kWalkPairedEntries, kOwn>;
    case kWalkPairedWords:
      return singleReductionStagedRowsKernel<F4, kWalkPairedWords, kOwn>;
    case kWalkOneAtATime:
      return singleReductionStagedRowsKernel<F4, kWalkOneAtATime, kOwn>;
    default:
      return nullptr;
  }
}

template <bool F4>
KernelFn kernelFor(bool one_block, int ablation, bool single_reduction, bool held, bool staged,
                   bool rows, int walk, int own) {
  if (rows && !staged) return nullptr;
  if (own != kOwnShared && !rows) return nullptr;
  if (staged) {
    if (one_block || !single_reduction || !held || ablation != kAblateNone) return nullptr;
    if (!rows) return singleReductionStagedKernel<F4>;
    switch (own) {
      case kOwnShared:
        return rowsKernelFor<F4, kOwnShared>(walk);
      case kOwnRegisters:
        return rowsKernelFor<F4, kOwnRegisters>(walk);
      case kOwnColumns:
        return walk == kWalkPairedWords
                   ? singleReductionStagedRowsKernel<F4, kWalkPairedWords, kOwnColumns>
                   : nullptr;
      case kOwnSharedColumns:
        return walk == kWalkPairedWords
                   ? singleReductionStagedRowsKernel<F4, kWalkPairedWords, kOwnSharedColumns>
                   : nullptr;
      default:
        return nullptr;
    }
  }
  if (!one_block && !held) {
    if (ablation != kAblateNone) return nullptr;
    return single_reduction ? singleReductionUnheldKernel<F4> : gridKernel<F4, kAblateNone, 0>;
  }
  switch (ablation) {
    case kAblateNone:
      return one_block ? oneBlockKernel<F4, kAblateNone>
                       : gridKernelFor<F4, kAblateNone>(single_reduction);
    case kAblateBounds:
      if (one_block) return oneBlockUnboundedKernel<F4>;
      return single_reduction ? singleReductionBoundedKernel<F4> : gridBoundedKernel<F4>;
    case kAblateLdg:
      return one_block ? oneBlockKernel<F4, kAblateLdg>
                       : gridKernelFor<F4, kAblateLdg>(single_reduction);
    case kAblateMasks:
      return one_block ? oneBlockKernel<F4, kAblateMasks>
                       : gridKernelFor<F4, kAblateMasks>(single_reduction);
    case kAblateShuffle:
      return one_block ? oneBlockKernel<F4, kAblateShuffle>
                       : gridKernelFor<F4, kAblateShuffle>(single_reduction);
    default:
      return nullptr;
  }
}

KernelFn kernelFor(bool float4_layout, bool one_block, int ablation, bool single_reduction,
                   bool held, bool staged, bool rows = false, int walk = kWalkPairedEntries,
                   int own = kOwnShared) {
  return float4_layout
             ? kernelFor<true>(one_block, ablation, single_reduction, held, staged, rows, walk, own)
             : kernelFor<false>(one_block, ablation, single_reduction, held, staged, rows, walk,
                                own);
}

// Item 27's kernel form for its own rows: in shared memory, in registers (item 45), in registers
// with the words by column (item 46).
int ownForm(bool registers, bool columns) {
  if (columns) return registers ? kOwnColumns : kOwnSharedColumns;
  return registers ? kOwnRegisters : kOwnShared;
}

// The kernels a staged launch may run, into out (room for 3): item 27's three walks (rows; `own`:
// its form, ownForm), or item 46's one, else item 18's kernel. Returns how many.
int stagedKernels(bool float4_layout, bool rows, int own, KernelFn* out) {
  if (!rows) {
    out[0] = kernelFor(float4_layout, false, kAblateNone, true, true, true, false);
    return 1;
  }
  if (own == kOwnColumns || own == kOwnSharedColumns) {  // item 46's one walk
    out[0] =
        kernelFor(float4_layout, false, kAblateNone, true, true, true, true, kWalkPairedWords, own);
    return 1;
  }
  const int walks[3] = {kWalkPairedEntries, kWalkPairedWords, kWalkOneAtATime};
  for (int k = 0; k < 3; ++k)
    out[k] = kernelFor(float4_layout, false, kAblateNone, true, true, true, true, walks[k], own);
  return 3;
}

}  // namespace

size_t wholeCgSharedBytes(uint32_t particles) {
  return 3 * 3 * sizeof(float) * size_t(particles);  // P[0], P[1], Z
}

size_t stagedHaloBytes(uint32_t slots, uint32_t entry_slots, uint32_t own_rows,
                       uint32_t spring_slots, bool kept_rows, bool inverses,
                       bool rows_in_registers) {
  const size_t blocks = spring_slots > 0 ? size_t(spring_slots) : size_t(entry_slots);
  const bool own_area = own_rows > 0 && !rows_in_registers;
  const size_t kept = own_rows == 0 ? 0
                                    : (kept_rows && own_area ? 9 * size_t(own_rows) : 0) +
                                          (inverses ? 6 * size_t(slots) + 1 : 0);
  return sizeof(float4) * blocks + sizeof(uint32_t) * size_t(entry_slots) +
         3 * sizeof(float) * size_t(slots) + (own_area ? 9 * sizeof(float) * size_t(own_rows) : 0) +
         sizeof(float) * kept;
}

cudaError_t prepareStagedKernel(bool float4_layout, bool rows, bool registers, bool columns,
                                int block, size_t halo_bytes, int wanted_per_sm, bool prefer_l1,
                                int* blocks_per_sm, int* carveout_out) {
  *blocks_per_sm = 0;
  *carveout_out = int(cudaSharedmemCarveoutDefault);
  KernelFn kernels[3] = {};
  const int count = stagedKernels(float4_layout, rows, ownForm(registers, columns), kernels);
  int device = 0, per_sm_bytes = 0, reserved = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  e = cudaDeviceGetAttribute(&per_sm_bytes, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  if (e != cudaSuccess) return e;
  e = cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device);
  if (e != cudaSuccess) return e;
  size_t static_bytes = 0;
  for (int k = 0; k < count; ++k) {
    if (!kernels[k]) return cudaErrorInvalidValue;
    cudaFuncAttributes attributes{};
    e = cudaFuncGetAttributes(&attributes, kernels[k]);
    if (e != cudaSuccess) return e;
    static_bytes = std::max(static_bytes, attributes.sharedSizeBytes);
  }
  // a block larger than the device grants is refused here, before any attribute is asked for
  // (the backend tries several sizes: a refused cudaFuncSetAttribute is an API error to a
  // sanitizer)
  int optin = 0;
  e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return e;
  if (static_bytes + halo_bytes > size_t(optin)) return cudaErrorInvalidValue;
  // item 9 as far as the halos allow: the smallest carve-out that holds wanted_per_sm blocks
  int carveout = int(cudaSharedmemCarveoutDefault);
  if (prefer_l1 && per_sm_bytes > 0) {
    const size_t need =
        size_t(std::max(1, wanted_per_sm)) * (static_bytes + halo_bytes + size_t(reserved));
    carveout =
        int(std::min<size_t>(100, (need * 100 + size_t(per_sm_bytes) - 1) / size_t(per_sm_bytes)));
  }
  // every kernel the launch may pick, the fewest blocks any of them keeps resident
  int fewest = 0;
  for (int k = 0; k < count; ++k) {
    e = cudaFuncSetAttribute(kernels[k], cudaFuncAttributePreferredSharedMemoryCarveout, carveout);
    if (e != cudaSuccess) return e;
    e = cudaFuncSetAttribute(kernels[k], cudaFuncAttributeMaxDynamicSharedMemorySize,
                             int(halo_bytes));
    if (e != cudaSuccess) return e;
    int per_sm = 0;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[k], block, halo_bytes);
    if (e != cudaSuccess) return e;
    fewest = k == 0 ? per_sm : std::min(fewest, per_sm);
  }
  *carveout_out = carveout;
  *blocks_per_sm = fewest;
  return cudaSuccess;
}

cudaError_t queryWholeCg(bool float4_layout, bool one_block, bool single_reduction, bool held,
                         bool staged, bool staged_rows, int ablation, bool prefer_l1,
                         int grid_block, KernelShape* out, size_t* max_shared_bytes) {
  KernelFn kernel =
      kernelFor(float4_layout, one_block, ablation, single_reduction, held, staged, staged_rows);
  if (!kernel) return cudaErrorInvalidValue;
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  *max_shared_bytes = 0;
  if (!one_block) {
    // item 4 for a cooperative grid: 256-thread blocks (kHeavyThreads, the gather class) or
    // grid_block's, as many per multiprocessor as the occupancy query allows. Not the block of best
    // occupancy: every block is a participant in every grid barrier and a partial sum every block
    // reads, so fewer, larger blocks win. A kernel that cannot run the block asked for (ablation
    // 4's bounded kernels: 256) gets its largest; the backend refuses that mismatch
    // item 27's walks are three kernels (staged_rows), each also in item 45's form, and item
    // 46's two: the shape all eight can run
    KernelFn kernels[8] = {kernel};
    int count = 1;
    if (staged_rows) {
      count = stagedKernels(float4_layout, true, kOwnShared, kernels);
      count += stagedKernels(float4_layout, true, kOwnRegisters, kernels + count);
      count += stagedKernels(float4_layout, true, kOwnColumns, kernels + count);
      count += stagedKernels(float4_layout, true, kOwnSharedColumns, kernels + count);
    }
    const int wanted = grid_block > 0 ? std::min(grid_block, kGridMaxThreads) : kHeavyThreads;
    int block = wanted;
    for (int k = 0; k < count; ++k) {
      e = cudaFuncSetAttribute(
          kernels[k], cudaFuncAttributePreferredSharedMemoryCarveout,
          prefer_l1 ? int(cudaSharedmemCarveoutMaxL1) : int(cudaSharedmemCarveoutDefault));
      if (e != cudaSuccess) return e;
      cudaFuncAttributes attributes{};
      e = cudaFuncGetAttributes(&attributes, kernels[k]);
      if (e != cudaSuccess) return e;
      block = std::min(attributes.maxThreadsPerBlock, block);
    }
    block = block / 32 * 32;
    if (block < 32) return cudaErrorInvalidConfiguration;
    int fewest = 0;
    for (int k = 0; k < count; ++k) {
      int per_sm = 0;
      e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[k], block, 0);
      if (e != cudaSuccess) return e;
      fewest = k == 0 ? per_sm : std::min(fewest, per_sm);
    }
    *out = KernelShape{block, fewest};
    return cudaSuccess;
  }
  // one block: as many threads as the kernel can launch, all the opt-in shared memory the
  // device allows (less what the kernel declares statically)
  int optin = 0;
  e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return e;
  cudaFuncAttributes attributes{};
  e = cudaFuncGetAttributes(&attributes, kernel);
  if (e != cudaSuccess) return e;
  const size_t dynamic =
      size_t(optin) > attributes.sharedSizeBytes ? size_t(optin) - attributes.sharedSizeBytes : 0;
  e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dynamic));
  if (e != cudaSuccess) return e;
  e = cudaFuncSetAttribute(
      kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
      prefer_l1 ? int(cudaSharedmemCarveoutMaxL1) : int(cudaSharedmemCarveoutDefault));
  if (e != cudaSuccess) return e;
  int block = attributes.maxThreadsPerBlock;
  if (ablation == kAblateBounds) block = block < kUnboundedBlock ? block : kUnboundedBlock;
  block = block < kOneBlockThreads ? block : kOneBlockThreads;
  block = block / 32 * 32;
  if (block < 32) return cudaErrorInvalidConfiguration;
  *out = KernelShape{block, 1};
  *max_shared_bytes = dynamic;
  return cudaSuccess;
}

cudaError_t launchWholeCg(Launch launch, cudaStream_t stream, bool float4_layout, bool one_block,
                          int ablation, const WholeCgArgs& args) {
  const bool staged = args.stage_entries != nullptr;
  const bool rows = staged && args.stage_rows && args.stage_entry_slots > 0;
  const int walk = !args.paired_walk             ? kWalkOneAtATime
                   : args.stage_spring_slots > 0 ? kWalkPairedWords
                                                 : kWalkPairedEntries;
  const bool registers = rows && args.rows_in_registers;  // item 45 (item 27's rows only)
  const bool columns = rows && args.entry_columns;        // item 46 (item 27's only)
  KernelFn kernel = kernelFor(float4_layout, one_block, ablation, args.single_reduction,
                              args.held_entries, staged, rows, walk, ownForm(registers, columns));
  if (!kernel) return cudaErrorInvalidValue;
  if (one_block) {
    kernel<<<1, launch.block, wholeCgSharedBytes(args.model.particles), stream>>>(args);
    return cudaGetLastError();
  }
  const uint32_t own_rows = rows ? uint32_t(launch.block / args.lanes) : 0u;
  if (registers && args.lanes != 1) return cudaErrorInvalidValue;  // item 45: one lane a row
  const size_t shared = staged
                            ? stagedHaloBytes(args.stage_slots, args.stage_entry_slots, own_rows,
                                              args.stage_spring_slots, rows && args.fill_kept_rows,
                                              rows && args.fill_inverses, registers)
                            : 0;
  if (staged) {
    // a kernel's attributes are the process's, not one backend's: this backend's, at every launch
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         args.stage_carveout);
    if (e != cudaSuccess) return e;
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
    if (e != cudaSuccess) return e;
  }
  WholeCgArgs copy = args;
  void* parameters[] = {&copy};
  cudaError_t e =
      cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(launch.grid),
                                  dim3(launch.block), parameters, shared, stream);
  if (e != cudaSuccess) return e;
  return cudaGetLastError();
}

}  // namespace hooke::cuda
