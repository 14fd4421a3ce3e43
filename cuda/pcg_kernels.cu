// Kernels of the matrix-free block-Jacobi PCG (the CPU reference is sim/pcg.cpp): A p by gather,
// the vector updates with their dot products, and single-block finishing kernels that own the CG
// scalars in device memory. Every kernel returns at once when CgScalars::done is set, so launched
// iterations past convergence, the cap or a breakdown change nothing. No float atomics.
#include <cooperative_groups.h>

#include <algorithm>
#include <initializer_list>
#include <utility>
#include <vector>

#include "cuda/common_shape.h"
#include "cuda/compact_entries.h"
#include "cuda/device_common.cuh"
#include "cuda/kernel_api.h"
#include "sim/spring_force.h"

namespace hooke::cuda {

namespace {

// α = (r·z) / (p·A p); p·A p <= 0 is a breakdown and stops CG. Thread 0 only.
__device__ __forceinline__ void finishAlpha(double pq, CgScalars* scalars) {
  if (!(pq > 0.0)) {
    scalars->breakdown = 1;
    scalars->done = 1;
  } else {
    scalars->alpha = static_cast<float>(scalars->rz / pq);
  }
}

// One iteration done: |r| = √(r·r); converged when |r| <= target, capped at max_iterations;
// otherwise β = (r·z)_new / (r·z)_old. Thread 0 only.
__device__ __forceinline__ void finishBeta(double rr, double rz_new, CgScalars* scalars) {
  const int iterations = scalars->iterations + 1;
  scalars->dv_pending = 1;  // this iteration's Δv += α p, where the direction kernel does it
  const double r_norm = sqrt(rr);
  scalars->iterations = iterations;
  scalars->r_norm = r_norm;
  if (r_norm <= scalars->target) {
    scalars->converged = 1;
    scalars->done = 1;
  } else if (iterations >= scalars->max_iterations) {
    scalars->done = 1;
  } else {
    scalars->beta = static_cast<float>(rz_new / scalars->rz);
    scalars->rz = rz_new;
  }
}

// (A p)_i = (m_i + h c_air) p_i + Σ_{s ∋ i} S_s (p_i − p_o)   (o: the spring's other end),
// zero at pinned particles (their rows are filtered); partial sums of p·(A p). Each particle's
// springs are split over `lanes` threads (item 13), each lane issuing the loads of kBatch of its
// entries together (item 16), from the (spring, other) pairs, from item 20's 4-byte entries or
// from item 22's stencil rows: the same entries in the same order, so the same bits. With stencil
// rows, the rows may be visited in item 23's lattice tiles (the same rows' bits; the partials
// group them differently); with item 37's offset blocks, a row on one lane walks every stencil
// position (item 40; the same bits). Fused: the last block to finish sums the partials and
// computes α itself.
template <bool F4, bool kFused, int kBatch, ApplyEntries kEntries = ApplyEntries::kPairs,
          int kMode = 0>
__global__ void __launch_bounds__(kHeavyThreads)
    applyKernel(DeviceModel m, DeviceSystem sys, CgVectors cg, Reduction reduction,
                CgScalars* scalars, uint32_t lanes) {
  awaitPrevious();
  // item 25: the direction kernel before this one has done the Δv it owed (stream order)
  if (blockIdx.x == 0 && threadIdx.x == 0) scalars->dv_pending = 0;
  if (scalars->done) return;  // uniform across the grid
  constexpr bool kStencil = kEntries == ApplyEntries::kStencil;
  static_assert(kStencil || kMode == 0, "tiles, rows ahead and offset blocks are item 22's only");
  constexpr bool kOffsetBlocks = (kMode & kApplyOffsetBlocks) != 0;
  // Static shared memory decides how many blocks an SM holds: at 256 threads and the carve-out
  // that prefers L1, 5 blocks fit only at <= 512 bytes a block (the H200 takes 1 KB more per
  // block and rounds to 128). So the offset-block kernels keep no offsets[] (the table holds
  // them) and the block sums keep 8 warps' sums, not 32.
  __shared__ uint32_t offsets[kStencil && !kOffsetBlocks ? kStencilMaxOffsets : 1];
  // item 40: per position b of a row, (other end − i, place − i) mod 2^32; positions past the
  // stencil's 2D (up to a batch past them) put the other end past the particles
  constexpr uint32_t kWalk = 2 * kStencilMaxOffsets + kBatch;
  __shared__ uint2 walk[kOffsetBlocks ? kWalk : 1];
  if constexpr (kStencil) {
    if constexpr (!kOffsetBlocks) {
      if (threadIdx.x < kStencilMaxOffsets) offsets[threadIdx.x] = m.stencil_offsets[threadIdx.x];
    } else {
      const uint32_t count = m.stencil_count, n = m.particles;
      for (uint32_t b = threadIdx.x; b < kWalk; b += blockDim.x) {  // blocks of 32 threads too
        uint2 w = make_uint2(n, 0u);
        if (b < count) {  // the lower end: offset count − 1 − b
          const uint32_t d = count - 1u - b, off = m.stencil_offsets[d];
          w = make_uint2(0u - off, d * n - off);
        } else if (b < 2u * count) {  // the upper: offset b − count, the place row i's own
          const uint32_t d = b - count;
          w = make_uint2(m.stencil_offsets[d], d * n);
        }
        walk[b] = w;
      }
    }
    __syncthreads();
  }
  const Vec<F4>* __restrict__ p = static_cast<const Vec<F4>*>(cg.p);
  Vec<F4>* __restrict__ q = static_cast<Vec<F4>*>(cg.q);
  double sums[1] = {0.0};
  struct Row {
    glm::vec3 pi, springs;
  };
  // own: item 22's word of row i (its first own spring, its mask); unused otherwise
  auto row = [&](uint32_t i, uint32_t sub, uint32_t lanes_now, uint2 own) {
    Row r{loadConst(p, i), glm::vec3(0.0f)};
    struct Entry {
      float4 block;
      glm::vec3 po;
    };
    // S (p_i − p_o): the same bits as ±S (p_{i_s} − p_{j_s}), S (−d) = −S d exactly
    auto add = [&](const Entry& en) { r.springs += applyPacked(en.block, r.pi - en.po); };
    if constexpr (kStencil) {
      // the row's k-th set position is its k-th entry; a spring's place in its lower end's run
      // is the number of that end's own springs at smaller offsets
      const uint32_t count = m.stencil_count;
      if constexpr (kOffsetBlocks) {
        if (lanes_now == 1u) {
          // item 40: a row on one lane walks all 2D positions without its word. An absent
          // spring's place holds zeros (the offset blocks are zeroed at load and only present
          // springs are written), and a position whose other end falls outside the particles
          // reads the zero place past the last offset block and row i's own p. A zero block adds
          // ±0 to a sum that began at +0, which leaves it unchanged (a sum is −0 only when both
          // terms are), so the set positions give the same bits as batchedBits. (A non-finite p at
          // an absent position would add NaN, where p·A p is not finite either way.)
          const uint32_t n = m.particles, zero = count * n;
          for (uint32_t b0 = 0; b0 < 2u * count; b0 += kBatch) {
            Entry item[kBatch];
#pragma unroll
            for (int k = 0; k < kBatch; ++k) {
              const uint2 w = walk[b0 + uint32_t(k)];
              const uint32_t other = i + w.x;
              const bool in = other < n;
              item[k] = Entry{__ldg(sys.offset_block + (in ? i + w.y : zero)),
                              loadConst(p, in ? other : i)};
            }
#pragma unroll
            for (int k = 0; k < kBatch; ++k)
              add(item[k]);
          }
          return r;
        }
      }
      auto fetch = [&](uint32_t b) {
        uint32_t other;
        if constexpr (kOffsetBlocks) {
          // item 37: the spring at the lower end's place for offset d (d·n + the lower end, which
          // fits 32 bits), no load of that end's word; item 40's table holds both differences
          const uint2 w = walk[b];
          other = i + w.x;
          return Entry{__ldg(sys.offset_block + (i + w.y)), loadConst(p, other)};
        } else {
          uint32_t spring;
          if (b >= count) {
            const uint32_t d = b - count;
            other = i + offsets[d];
            spring = own.x + __popc((own.y >> count) & ((1u << d) - 1u));
          } else {
            const uint32_t d = count - 1u - b;
            other = i - offsets[d];
            const uint2 lower = __ldg(m.stencil + other);
            spring = lower.x + __popc((lower.y >> count) & ((1u << d) - 1u));
          }
          return Entry{__ldg(sys.block + spring), loadConst(p, other)};
        }
      };
      batchedBits<kBatch>(laneBits(own.y, sub, lanes_now), fetch, add);
    } else {
      batchedEntries<kBatch>(
          __ldg(m.row_start + i) + sub, __ldg(m.row_start + i + 1), lanes_now,
          [&](uint32_t e) {
            if constexpr (kEntries == ApplyEntries::kCompact) {
              const uint32_t c = __ldg(m.compact + e), other = c >> kCompactShift;
              const uint32_t spring =
                  __ldg(m.own_start + min(i, other)) + (c & (kCompactMaxRun - 1));
              return Entry{__ldg(sys.block + spring), loadConst(p, other)};
            } else {
              const Incident s = incident(m.adjacency, e);
              return Entry{__ldg(sys.block + s.spring), loadConst(p, s.other)};
            }
          },
          add);
    }
    return r;
  };
  auto finish = [&](uint32_t i, const Row& r) {
    glm::vec3 out = __ldg(sys.diag + i) * r.pi + r.springs;
    out = __ldg(m.free_mask + i) == 0.0f ? glm::vec3(0.0f) : out;
    store(q, i, out);
    sums[0] += dotDouble(r.pi, out);
  };
  const GatherLanes g = gatherLanes(lanes, firstIndex(), gridStride());
  if constexpr (kStencil) {
    // item 23: the rows in lattice tiles; item 24: each row's word loaded a round ahead
    constexpr bool kTiled = (kMode & kApplyTiled) != 0, kAhead = (kMode & kApplyAhead) != 0;
    const LatticeTiles& t = m.tiles;
    const uint32_t slots = kTiled ? t.slots : m.particles;
    auto rowOf = [&](uint32_t k) { return kTiled ? latticeSlotRow(t, k) : k; };
    auto word = [&](uint32_t i) {
      return i != kNoParticle ? __ldg(m.stencil + i) : make_uint2(0u, 0u);
    };
    if constexpr (kAhead) {
      gatherSlotsAhead(g, firstIndex(), gridStride(), slots, rowOf, word, row, finish);
    } else {
      gatherSlots(
          g, firstIndex(), gridStride(), slots, rowOf,
          [&](uint32_t i, uint32_t sub, uint32_t lanes_now) {
            return row(i, sub, lanes_now, __ldg(m.stencil + i));
          },
          finish);
    }
  } else {
    gatherRows(
        g, firstIndex(), gridStride(), m.particles,
        [&](uint32_t i, uint32_t sub, uint32_t lanes_now) {
          return row(i, sub, lanes_now, make_uint2(0u, 0u));
        },
        finish);
  }
  writePartials<1, kHeavyThreads>(sums, reduction);
  if constexpr (kFused) {
    if (!lastBlockToArrive(&scalars->apply_arrivals)) return;
    sumPartials<1, kHeavyThreads>(reduction, gridDim.x, sums);
    if (threadIdx.x == 0) finishAlpha(sums[0], scalars);
  }
}

// Δv += α p (kDv; else the direction kernel does it, item 25),  r −= α q,  z = P⁻¹ r;  partial
// sums of r·r and r·z. Fused: the last block to finish sums the partials and does betaKernel's
// work itself.
template <bool F4, bool kFused, bool kDv = true>
__global__ void __launch_bounds__(kLightThreads)
    updateKernel(uint32_t particles, DeviceSystem sys, CgVectors cg, Reduction reduction,
                 CgScalars* scalars) {
  awaitPrevious();
  if (scalars->done) return;
  const float alpha = scalars->alpha;
  const Vec<F4>* __restrict__ p = static_cast<const Vec<F4>*>(cg.p);
  const Vec<F4>* __restrict__ q = static_cast<const Vec<F4>*>(cg.q);
  Vec<F4>* __restrict__ dv = static_cast<Vec<F4>*>(cg.dv);
  Vec<F4>* __restrict__ r = static_cast<Vec<F4>*>(cg.r);
  Vec<F4>* __restrict__ z = static_cast<Vec<F4>*>(cg.z);
  double sums[2] = {0.0, 0.0};
  for (uint32_t i = firstIndex(); i < particles; i += gridStride()) {
    if constexpr (kDv) store(dv, i, axpy(alpha, loadConst(p, i), load(dv, i)));
    const glm::vec3 ri = load(r, i) - alpha * loadConst(q, i);
    const glm::vec3 zi = loadSymmetric(sys.inv_diag, i) * ri;
    store(r, i, ri);
    store(z, i, zi);
    sums[0] += dotDouble(ri, ri);
    sums[1] += dotDouble(ri, zi);
  }
  writePartials<2>(sums, reduction);
  if constexpr (kFused) {
    if (!lastBlockToArrive(&scalars->update_arrivals)) return;
    sumPartials<2>(reduction, gridDim.x, sums);
    if (threadIdx.x == 0) finishBeta(sums[0], sums[1], scalars);
  }
}

// p = z + β p. kDv (item 25): first Δv += α p with the p it replaces (the update kernel then
// leaves Δv alone: p is read here anyway, so 16 bytes less per particle), also in the iteration
// that ended CG, whose new p is not needed. The same Δv, bit for bit.
template <bool F4, bool kDv = false>
__global__ void __launch_bounds__(kLightThreads)
    directionKernel(uint32_t particles, CgVectors cg, const CgScalars* __restrict__ scalars) {
  awaitPrevious();
  const bool done = scalars->done != 0;
  if (done && !(kDv && scalars->dv_pending)) return;
  const float beta = scalars->beta;
  const Vec<F4>* __restrict__ z = static_cast<const Vec<F4>*>(cg.z);
  Vec<F4>* __restrict__ p = static_cast<Vec<F4>*>(cg.p);
  if constexpr (kDv) {
    const float alpha = scalars->alpha;
    Vec<F4>* __restrict__ dv = static_cast<Vec<F4>*>(cg.dv);
    for (uint32_t i = firstIndex(); i < particles; i += gridStride()) {
      const glm::vec3 pi = load(p, i);
      store(dv, i, axpy(alpha, pi, load(dv, i)));
      if (!done) store(p, i, loadConst(z, i) + beta * pi);
    }
  } else {
    for (uint32_t i = firstIndex(); i < particles; i += gridStride()) {
      store(p, i, loadConst(z, i) + beta * load(p, i));
    }
  }
}

// Item 26: the update and the direction in one cooperative launch of the update kernel's own
// grid and block (every block resident). Each thread takes the particles updateKernel's thread
// takes (at most `held`, the grid-stride rounds): Δv += α p, r −= α q, z = P⁻¹ r, its z and p
// kept in shared memory, Σ r·r and Σ r·z. After a grid barrier every block sums all blocks'
// partials exactly as updateKernel's last block does, decides as finishBeta does from the scalars
// it read before the barrier (block 0 alone writes them back), and forms p = z + β p from shared
// memory: z never goes to global memory (32 bytes less per particle and iteration) and the
// iteration has two launches. The same bits as updateKernel (fused) and directionKernel.
// kAlpha (item 38): q = A p ran unfused, and every block forms α itself from its `apply_blocks`
// block partials of p·q, its first `apply_block` threads exactly as q = A p's last block would
// have (the others add +0.0, which leaves the block's sum unchanged); a breakdown (p·q <= 0) stops
// every block before the barrier. Its own partials go to sums 1 and 2 (q = A p's sum 0 may still be
// read). The barrier: item 33's where reduction.arrived is set, else cooperative groups'.
// Item 41 (with kAlpha, reduction.release set): no barrier; the last block to arrive alone sums
// the partials, writes the scalars and releases the others with β and the stop in one word (the
// count of releases, twice, plus the stop in the high half; β's bits in the low half). Without
// kAlpha the kernel is as before item 41: in that variant item 41's code cost 8 registers.
// Its grid is the update kernel's, which fills a multiprocessor (2048 threads; 1536 on sm_86 and
// sm_89) with blocks of 512: the bound keeps it there (item 41's code in the float4 variant
// without item 38 took it to 40 registers, 3 blocks per multiprocessor on the H200, and then its
// grid did not fit).
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890)
inline constexpr int kJoinedMinBlocks = 1536 / kLightThreads;
#else
inline constexpr int kJoinedMinBlocks = 2048 / kLightThreads;
#endif
template <bool F4, bool kAlpha>
__global__ void __launch_bounds__(kLightThreads, kJoinedMinBlocks)
    updateDirectionKernel(uint32_t particles, uint32_t held, DeviceSystem sys, CgVectors cg,
                          Reduction reduction, CgScalars* scalars, uint32_t apply_blocks,
                          uint32_t apply_block) {
  // z then p of round k, component c, thread t at kept[(6 k + c) blockDim + t] (no bank conflicts)
  extern __shared__ float kept[];
  __shared__ CgScalars before;
  __shared__ float beta, formed_alpha;
  __shared__ int stop;
  __shared__ unsigned long long released;  // item 41's word as it was before this launch's release
  // *scalars changes in a launch only once every block has arrived (block 0 after the barrier or
  // item 41's last block writes it), or on a breakdown (kAlpha: block 0's finishAlpha sets done
  // while later blocks may still be starting). Thread 0 reads done once and the whole block goes
  // by it, so no block splits on a done written while it starts (a block that returns here on a
  // breakdown returns as every block does on it). Item 41's word changes only once every block
  // has arrived: the last thread takes it.
  __shared__ int done;
  const bool once = kAlpha && reduction.release != nullptr;  // item 41 (with item 38 only)
  if (threadIdx.x == 0) done = scalars->done;
  if (threadIdx.x == blockDim.x - 1 && once) released = __ldcg(reduction.release);
  __syncthreads();
  if (done) return;  // uniform across the grid, but for a breakdown in this launch
  // the fields this launch reads (rz, iterations, target, cap, β) change only after every block
  // has arrived
  if (threadIdx.x == 0) before = *scalars;
  const Vec<F4>* __restrict__ q = static_cast<const Vec<F4>*>(cg.q);
  Vec<F4>* __restrict__ p = static_cast<Vec<F4>*>(cg.p);
  Vec<F4>* __restrict__ dv = static_cast<Vec<F4>*>(cg.dv);
  Vec<F4>* __restrict__ r = static_cast<Vec<F4>*>(cg.r);
  const uint32_t block = blockDim.x, t = threadIdx.x;
  auto keep = [&](uint32_t k, int which, glm::vec3 v) {
    float* at = kept + (6 * k + 3 * which) * block + t;
    at[0] = v.x;
    at[block] = v.y;
    at[2 * block] = v.z;
  };
  auto kept3 = [&](uint32_t k, int which) {
    const float* at = kept + (6 * k + 3 * which) * block + t;
    return glm::vec3(at[0], at[block], at[2 * block]);
  };
  float alpha;
  if constexpr (kAlpha) {
    double pq[1] = {0.0};
    if (t < apply_block) {
      threadPartials<1>(reduction.partials, reduction.stride, int(apply_blocks), pq, int(t),
                        int(apply_block));
    }
    blockSum<1>(pq);
    if (t == 0) {
      stop = !(pq[0] > 0.0);
      if (stop && blockIdx.x == 0) finishAlpha(pq[0], scalars);  // the breakdown
      formed_alpha = stop ? 0.0f : static_cast<float>(before.rz / pq[0]);
    }
    __syncthreads();
    if (stop) return;  // uniform across the grid
    alpha = formed_alpha;
  } else {
    alpha = scalars->alpha;
  }
  const uint32_t first = firstIndex();
  double sums[2] = {0.0, 0.0};
  uint32_t k = 0;
  for (uint32_t i = first; i < particles && k < held; i += gridStride(), ++k) {
    const glm::vec3 pi = load(p, i);
    store(dv, i, axpy(alpha, pi, load(dv, i)));
    const glm::vec3 ri = load(r, i) - alpha * loadConst(q, i);
    const glm::vec3 zi = loadSymmetric(sys.inv_diag, i) * ri;
    store(r, i, ri);
    keep(k, 0, zi);
    keep(k, 1, pi);
    sums[0] += dotDouble(ri, ri);
    sums[1] += dotDouble(ri, zi);
  }
  Reduction own = reduction;  // sums 1 and 2
  own.partials += own.stride;
  writePartials<2>(sums, own);
  // item 41: only the block that arrives last sums, and releases the others; else a grid barrier
  // and every block sums
  __shared__ int sum_here;
  if (once) {
    if (t == 0) sum_here = arriveLast(&scalars->update_arrivals);
    __syncthreads();
  } else {
    if (t == 0) sum_here = 1;
    gridBarrier(reduction.arrived);  // its __syncthreads order the flag
  }
  if (sum_here) {
    sumPartials<2>(own, gridDim.x, sums);
    if (t == 0) {
      CgScalars after = before;
      finishBeta(sums[0], sums[1], &after);
      if (once || blockIdx.x == 0) {
        // one block writes back what finishBeta changed (update_arrivals in `before` may be
        // stale: not written back)
        if constexpr (kAlpha) scalars->alpha = alpha;
        scalars->dv_pending = after.dv_pending;
        scalars->iterations = after.iterations;
        scalars->r_norm = after.r_norm;
        scalars->converged = after.converged;
        scalars->done = after.done;
        scalars->beta = after.beta;
        scalars->rz = after.rz;
      }
      if (once) {
        // then the word: the count of releases, twice, plus the stop; β's bits
        const unsigned long long count = ((released >> 32) + 2u) & 0xfffffffeull;
        storeRelease(reduction.release,
                     (count | unsigned(after.done != 0)) << 32 | __float_as_uint(after.beta));
      }
      beta = after.beta;
      stop = after.done;
    }
  } else if (t == 0) {
    const unsigned long long word = awaitRelease(reduction.release, released);
    beta = __uint_as_float(static_cast<unsigned>(word));
    stop = static_cast<int>((word >> 32) & 1u);
  }
  __syncthreads();
  if (stop) return;
  k = 0;
  for (uint32_t i = first; i < particles && k < held; i += gridStride(), ++k)
    store(p, i, kept3(k, 0) + beta * kept3(k, 1));
}

// |b| = √(b·b), target = tolerance |b|, |r| = √(r·r) (|b| from Δv = 0), (r·z)_0; nothing to do
// when |b| = 0 (then Δv = 0: a warm guess is cleared), when |r| <= target already, or when the
// cap is 0
__global__ void __launch_bounds__(kFinishThreads)
    cgStartKernel(Reduction reduction, int count, CgScalars* scalars, float tolerance,
                  int max_iterations, float* dv, uint32_t particles, int vector_bytes) {
  __shared__ bool clear_guess;
  double sums[3];
  sumPartials<3>(reduction, count, sums);
  if (threadIdx.x == 0) {
    CgScalars s;
    s.max_iterations = max_iterations;
    s.b_norm = sqrt(sums[0]);
    s.rz = sums[1];
    clear_guess = false;
    if (s.b_norm == 0.0) {
      s.converged = 1;
      s.done = 1;
      clear_guess = sums[2] > 0.0;
    } else {
      s.target = double(tolerance) * s.b_norm;
      s.r_norm = sqrt(sums[2]);
      s.converged = s.r_norm <= s.target;
      s.done = !(s.r_norm > s.target) || max_iterations <= 0;
    }
    *scalars = s;
  }
  __syncthreads();
  if (clear_guess) {
    const size_t floats = size_t(particles) * size_t(vector_bytes) / sizeof(float);
    for (size_t k = threadIdx.x; k < floats; k += blockDim.x)
      dv[k] = 0.0f;
  }
}

// α, as the second stage of the p·A p reduction
__global__ void __launch_bounds__(kFinishThreads)
    alphaKernel(Reduction reduction, int count, CgScalars* scalars) {
  awaitPrevious();
  if (scalars->done) return;
  double sums[1];
  sumPartials<1>(reduction, count, sums);
  if (threadIdx.x == 0) finishAlpha(sums[0], scalars);
}

// |r|, convergence, cap and β, as the second stage of the r·r and r·z reductions
__global__ void __launch_bounds__(kFinishThreads)
    betaKernel(Reduction reduction, int count, CgScalars* scalars) {
  awaitPrevious();
  if (scalars->done) return;
  double sums[2];
  sumPartials<2>(reduction, count, sums);
  if (threadIdx.x == 0) finishBeta(sums[0], sums[1], scalars);
}

// One shape for the variants of one kernel (item 4), which the backend launches alike
// (commonShape): each variant's carve-out set first (item 9), since residency depends on it, and
// each variant's own best block a candidate. On the H200 the fused batched q = A p (57 registers)
// and the plain one (55) ran 4 blocks of 192 threads per multiprocessor, 768 threads, when the
// shape took the smaller block of one and the smaller residency of the other at its own block
// size; 4 blocks of 256 fit (ncu: achieved occupancy 37 % -> 49 %, q = A p 93 -> 86 µs at 1M
// cloth particles).
// A block of `block` threads (CudaOptions::apply_block) is the only candidate when given.
template <typename Kernel>
cudaError_t queryCommon(int limit, bool prefer_l1, std::initializer_list<Kernel> variants,
                        KernelShape* out, int block = 0) {
  std::vector<int> candidates;
  for (Kernel kernel : variants) {
    KernelShape own;
    const cudaError_t e = queryShape(kernel, limit, prefer_l1, &own);
    if (e != cudaSuccess) return e;
    candidates.push_back(own.block);
  }
  if (block > 0) candidates.assign(1, block);
  const std::vector<Kernel> list(variants);
  cudaError_t error = cudaSuccess;
  *out = commonShape(candidates, int(list.size()), [&](int variant, int block) {
    int resident = 0;
    const cudaError_t e =
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, list[variant], block, 0);
    if (e != cudaSuccess) error = e;
    return resident;
  });
  return error;
}

using ApplyKernelFn = void (*)(DeviceModel, DeviceSystem, CgVectors, Reduction, CgScalars*,
                               uint32_t);

// item 22's q = A p in one of its modes (kApplyTiled | kApplyAhead | kApplyOffsetBlocks) with
// batches of 3 or 4
template <bool F4, bool kFused, int... kModes>
ApplyKernelFn stencilKernelOf(int mode, int batch, std::integer_sequence<int, kModes...>) {
  constexpr ApplyEntries S = ApplyEntries::kStencil;
  constexpr int B = kGatherBatch, B3 = kGatherBatchShort;
  const ApplyKernelFn kernels[][2] = {
      {applyKernel<F4, kFused, B, S, kModes>, applyKernel<F4, kFused, B3, S, kModes>}...};
  if (mode < 0 || mode >= kApplyModes || (batch != B && batch != B3)) return nullptr;
  return kernels[mode][batch == B3 ? 1 : 0];
}
template <bool F4, bool kFused>
ApplyKernelFn stencilKernel(int mode, int batch) {
  return stencilKernelOf<F4, kFused>(mode, batch, std::make_integer_sequence<int, kApplyModes>{});
}

template <bool F4>
cudaError_t queryAll(bool prefer_l1, int apply_block, KernelShape out[kCgKernelCount]) {
  cudaError_t e;
  // the fused and plain variants differ only in their tails and share a shape; the batched
  // variants (item 16) get a shape of their own
  constexpr int B = kGatherBatch;
  using Apply = void (*)(DeviceModel, DeviceSystem, CgVectors, Reduction, CgScalars*, uint32_t);
  using Update = void (*)(uint32_t, DeviceSystem, CgVectors, Reduction, CgScalars*);
  if ((e = queryCommon<Apply>(kHeavyThreads, prefer_l1,
                              {applyKernel<F4, false, 1>, applyKernel<F4, true, 1>},
                              &out[kApplyKernel], apply_block)))
    return e;
  if ((e = queryCommon<Apply>(kHeavyThreads, prefer_l1,
                              {applyKernel<F4, false, B>, applyKernel<F4, true, B>},
                              &out[kApplyBatchedKernel], apply_block)))
    return e;
  constexpr int B3 = kGatherBatchShort;
  if ((e = queryCommon<Apply>(kHeavyThreads, prefer_l1,
                              {applyKernel<F4, false, B3>, applyKernel<F4, true, B3>},
                              &out[kApplyBatched3Kernel], apply_block)))
    return e;
  constexpr ApplyEntries C = ApplyEntries::kCompact;
  if ((e = queryCommon<Apply>(kHeavyThreads, prefer_l1,
                              {applyKernel<F4, false, B, C>, applyKernel<F4, true, B, C>},
                              &out[kApplyCompactKernel], apply_block)))
    return e;
  if ((e = queryCommon<Apply>(kHeavyThreads, prefer_l1,
                              {applyKernel<F4, false, B3, C>, applyKernel<F4, true, B3, C>},
                              &out[kApplyCompact3Kernel], apply_block)))
    return e;
  for (int mode = 0; mode < kApplyModes; ++mode) {
    for (int batch : {B, B3}) {
      if ((e = queryCommon<Apply>(
               kHeavyThreads, prefer_l1,
               {stencilKernel<F4, false>(mode, batch), stencilKernel<F4, true>(mode, batch)},
               &out[stencilKernelId(mode, batch)], apply_block)))
        return e;
    }
  }
  if ((e = queryCommon<Update>(kLightThreads, prefer_l1,
                               {updateKernel<F4, false>, updateKernel<F4, true>,
                                updateKernel<F4, false, false>, updateKernel<F4, true, false>},
                               &out[kUpdateKernel])))
    return e;
  using Direction = void (*)(uint32_t, CgVectors, const CgScalars*);
  if ((e = queryCommon<Direction>(kLightThreads, prefer_l1,
                                  {directionKernel<F4, false>, directionKernel<F4, true>},
                                  &out[kDirectionKernel])))
    return e;
  // the three finishing kernels share one shape: a single block of at most kFinishThreads
  KernelShape start, alpha, beta;  // (start reduces 3 sums)
  if ((e = queryShape(cgStartKernel, kFinishThreads, prefer_l1, &start))) return e;
  if ((e = queryShape(alphaKernel, kFinishThreads, prefer_l1, &alpha))) return e;
  if ((e = queryShape(betaKernel, kFinishThreads, prefer_l1, &beta))) return e;
  int block = start.block < alpha.block ? start.block : alpha.block;
  block = block < beta.block ? block : beta.block;
  out[kFinishKernel] = KernelShape{block, 1};
  return cudaSuccess;
}

// One launch of a CG kernel; dependent (item 21): allowed to be scheduled while the kernel before
// it in the stream runs (the kernel's awaitPrevious keeps the order of their memory effects)
template <typename... Params, typename... Args>
cudaError_t launchCg(void (*kernel)(Params...), int grid, int block, cudaStream_t stream,
                     bool dependent, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(grid));
  config.blockDim = dim3(static_cast<unsigned>(block));
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = dependent ? &attribute : nullptr;
  config.numAttrs = dependent ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace

cudaError_t queryCgKernels(bool float4_layout, bool prefer_l1, int apply_block,
                           KernelShape out[kCgKernelCount]) {
  return float4_layout ? queryAll<true>(prefer_l1, apply_block, out)
                       : queryAll<false>(prefer_l1, apply_block, out);
}

cudaError_t launchCgStart(int threads, cudaStream_t stream, Reduction reduction, int count,
                          CgScalars* scalars, float tolerance, int max_iterations, void* dv,
                          uint32_t particles, int vector_bytes) {
  cgStartKernel<<<1, threads, 0, stream>>>(reduction, count, scalars, tolerance, max_iterations,
                                           static_cast<float*>(dv), particles, vector_bytes);
  return cudaGetLastError();
}

namespace {

// The q = A p variant for these arguments; nullptr where none is compiled (batch 1 with the
// compact entries or the stencil rows, a batch other than 1, 3 or 4, a mode without the rows)
ApplyKernelFn applyKernelOf(bool float4_layout, bool fused, int batch, ApplyEntries entries,
                            int mode) {
  using Kernel = ApplyKernelFn;
  constexpr int B = kGatherBatch, B3 = kGatherBatchShort;
  constexpr ApplyEntries P = ApplyEntries::kPairs, C = ApplyEntries::kCompact,
                         S = ApplyEntries::kStencil;
  // [layout][fused][pairs, compact entries][batch 1, 3, 4] (no batch 1 for the compact entries);
  // item 22's stencil rows from stencilKernel, in every mode
  const Kernel kernels[2][2][2][3] = {
      {{{applyKernel<false, false, 1, P>, applyKernel<false, false, B3, P>,
         applyKernel<false, false, B, P>},
        {nullptr, applyKernel<false, false, B3, C>, applyKernel<false, false, B, C>}},
       {{applyKernel<false, true, 1, P>, applyKernel<false, true, B3, P>,
         applyKernel<false, true, B, P>},
        {nullptr, applyKernel<false, true, B3, C>, applyKernel<false, true, B, C>}}},
      {{{applyKernel<true, false, 1, P>, applyKernel<true, false, B3, P>,
         applyKernel<true, false, B, P>},
        {nullptr, applyKernel<true, false, B3, C>, applyKernel<true, false, B, C>}},
       {{applyKernel<true, true, 1, P>, applyKernel<true, true, B3, P>,
         applyKernel<true, true, B, P>},
        {nullptr, applyKernel<true, true, B3, C>, applyKernel<true, true, B, C>}}}};
  if (batch != 1 && batch != B3 && batch != B) return nullptr;
  if (mode != 0 && entries != S) return nullptr;
  return entries == S ? (float4_layout ? (fused ? stencilKernel<true, true>(mode, batch)
                                                : stencilKernel<true, false>(mode, batch))
                                       : (fused ? stencilKernel<false, true>(mode, batch)
                                                : stencilKernel<false, false>(mode, batch)))
                      : kernels[float4_layout][fused][static_cast<int>(entries)][batch == 1    ? 0
                                                                                 : batch == B3 ? 1
                                                                                               : 2];
}

}  // namespace

cudaError_t applyKernelResources(bool float4_layout, bool fused, int batch, ApplyEntries entries,
                                 int mode, int block, bool prefer_l1, ApplyKernelResources* out) {
  *out = ApplyKernelResources{};
  const ApplyKernelFn kernel = applyKernelOf(float4_layout, fused, batch, entries, mode);
  if (kernel == nullptr || block <= 0) return cudaErrorInvalidValue;
  cudaError_t e = cudaFuncSetAttribute(
      kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
      prefer_l1 ? int(cudaSharedmemCarveoutMaxL1) : int(cudaSharedmemCarveoutDefault));
  if (e != cudaSuccess) return e;
  cudaFuncAttributes attributes{};
  e = cudaFuncGetAttributes(&attributes, kernel);
  if (e != cudaSuccess) return e;
  int per_sm = 0;
  e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0);
  if (e != cudaSuccess) return e;
  out->registers = attributes.numRegs;
  out->static_shared_bytes = static_cast<int>(attributes.sharedSizeBytes);
  out->blocks_per_sm = per_sm;
  return cudaSuccess;
}

cudaError_t launchApply(Launch launch, cudaStream_t stream, bool float4_layout, bool fused,
                        const DeviceModel& model, const DeviceSystem& system, const CgVectors& cg,
                        Reduction reduction, CgScalars* scalars, int lanes, int batch,
                        ApplyEntries entries, int mode, bool dependent) {
  constexpr ApplyEntries C = ApplyEntries::kCompact, S = ApplyEntries::kStencil;
  if (entries == C && (model.compact == nullptr || model.own_start == nullptr))
    return cudaErrorInvalidValue;
  if (entries == S && (model.stencil == nullptr || model.stencil_count > kStencilMaxOffsets))
    return cudaErrorInvalidValue;
  if ((mode & kApplyTiled) != 0 && model.tiles.slots == 0) return cudaErrorInvalidValue;
  if ((mode & kApplyOffsetBlocks) != 0 && system.offset_block == nullptr)
    return cudaErrorInvalidValue;
  const ApplyKernelFn kernel = applyKernelOf(float4_layout, fused, batch, entries, mode);
  if (kernel == nullptr) return cudaErrorInvalidValue;
  return launchCg(kernel, launch.grid, launch.block, stream, dependent, model, system, cg,
                  reduction, scalars, static_cast<uint32_t>(lanes));
}

cudaError_t launchAlpha(int threads, cudaStream_t stream, Reduction reduction, int count,
                        CgScalars* scalars, bool dependent) {
  return launchCg(alphaKernel, 1, threads, stream, dependent, reduction, count, scalars);
}

cudaError_t launchUpdate(Launch launch, cudaStream_t stream, bool float4_layout, bool fused,
                         bool dv_in_direction, uint32_t particles, const DeviceSystem& system,
                         const CgVectors& cg, Reduction reduction, CgScalars* scalars,
                         bool dependent) {
  using Kernel = void (*)(uint32_t, DeviceSystem, CgVectors, Reduction, CgScalars*);
  // [layout][fused][Δv here]
  const Kernel kernels[2][2][2] = {
      {{updateKernel<false, false, false>, updateKernel<false, false, true>},
       {updateKernel<false, true, false>, updateKernel<false, true, true>}},
      {{updateKernel<true, false, false>, updateKernel<true, false, true>},
       {updateKernel<true, true, false>, updateKernel<true, true, true>}}};
  const Kernel kernel = kernels[float4_layout][fused][!dv_in_direction];
  return launchCg(kernel, launch.grid, launch.block, stream, dependent, particles, system, cg,
                  reduction, scalars);
}

size_t updateDirectionSharedBytes(int block, int held) {
  return size_t(6) * sizeof(float) * size_t(std::max(0, block)) * size_t(std::max(0, held));
}

namespace {

template <bool F4>
cudaError_t updateDirectionResidencyOf(int block, int held, bool alpha, int* blocks_per_sm) {
  // all shared memory for this kernel, which reads every byte once (item 9's L1 does nothing
  // for it), and room for the largest held count: the same attributes for every backend of the
  // process, whatever it holds (both variants: with and without item 38)
  int device = 0, optin = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return e;
  cudaFuncAttributes attributes{};
  for (auto kernel : {updateDirectionKernel<F4, false>, updateDirectionKernel<F4, true>}) {
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                             int(cudaSharedmemCarveoutMaxShared));
    if (e != cudaSuccess) return e;
    cudaFuncAttributes own{};
    e = cudaFuncGetAttributes(&own, kernel);
    if (e != cudaSuccess) return e;
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             optin - int(own.sharedSizeBytes));
    if (e != cudaSuccess) return e;
    if (kernel == (alpha ? updateDirectionKernel<F4, true> : updateDirectionKernel<F4, false>))
      attributes = own;
  }
  if (block > attributes.maxThreadsPerBlock) {
    *blocks_per_sm = 0;
    return cudaSuccess;
  }
  const size_t bytes = updateDirectionSharedBytes(block, held);
  if (bytes + attributes.sharedSizeBytes > size_t(optin)) {
    *blocks_per_sm = 0;
    return cudaSuccess;
  }
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      blocks_per_sm, alpha ? updateDirectionKernel<F4, true> : updateDirectionKernel<F4, false>,
      block, bytes);
}

}  // namespace

cudaError_t updateDirectionResidency(bool float4_layout, int block, int held, bool alpha,
                                     int* blocks_per_sm) {
  *blocks_per_sm = 0;
  return float4_layout ? updateDirectionResidencyOf<true>(block, held, alpha, blocks_per_sm)
                       : updateDirectionResidencyOf<false>(block, held, alpha, blocks_per_sm);
}

cudaError_t launchUpdateDirection(Launch launch, int held, cudaStream_t stream, bool float4_layout,
                                  uint32_t particles, const DeviceSystem& system,
                                  const CgVectors& cg, Reduction reduction, CgScalars* scalars,
                                  Launch alpha_from) {
  if (held < 1) return cudaErrorInvalidValue;
  const bool alpha = alpha_from.grid > 0;
  if (alpha && (alpha_from.block > launch.block || alpha_from.grid > reduction.stride))
    return cudaErrorInvalidValue;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeCooperative;
  attribute.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(launch.grid));
  config.blockDim = dim3(static_cast<unsigned>(launch.block));
  config.dynamicSmemBytes = updateDirectionSharedBytes(launch.block, held);
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  const uint32_t blocks = static_cast<uint32_t>(alpha_from.grid),
                 threads = static_cast<uint32_t>(alpha_from.block);
  const auto kernel =
      float4_layout
          ? (alpha ? updateDirectionKernel<true, true> : updateDirectionKernel<true, false>)
          : (alpha ? updateDirectionKernel<false, true> : updateDirectionKernel<false, false>);
  return cudaLaunchKernelEx(&config, kernel, particles, static_cast<uint32_t>(held), system, cg,
                            reduction, scalars, blocks, threads);
}

cudaError_t launchBeta(int threads, cudaStream_t stream, Reduction reduction, int count,
                       CgScalars* scalars, bool dependent) {
  return launchCg(betaKernel, 1, threads, stream, dependent, reduction, count, scalars);
}

cudaError_t launchDirection(Launch launch, cudaStream_t stream, bool float4_layout,
                            bool dv_in_direction, uint32_t particles, const CgVectors& cg,
                            const CgScalars* scalars, bool dependent) {
  auto kernel =
      float4_layout
          ? (dv_in_direction ? directionKernel<true, true> : directionKernel<true, false>)
          : (dv_in_direction ? directionKernel<false, true> : directionKernel<false, false>);
  return launchCg(kernel, launch.grid, launch.block, stream, dependent, particles, cg, scalars);
}

}  // namespace hooke::cuda
