// The contract between the CUDA backend's host code (.cpp, compiled by the C++ compiler) and its
// kernels (.cu): device data views, CG scalars and launch wrappers. Internal to cuda/: only the
// CUDA runtime API header here, never cuda_runtime.h or device code.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>
#include <glm/glm.hpp>

#include "cuda/kernel_shape.h"
#include "cuda/lattice_tiles.h"
#include "cuda/stencil_rows.h"

namespace hooke::cuda {

// Adjacency entries whose loads a gathering lane of the launched q = A p may issue together
// (item 16, batchedEntries; CudaOptions::gather_batch): 4, or 3 where a lane's share of a row is
// at most 6.
inline constexpr int kGatherBatch = 4;
inline constexpr int kGatherBatchShort = 3;

// How the launched q = A p finds a row's springs: (spring, other) pairs, item 20's 4-byte
// entries, or item 22's offset-stencil rows
enum class ApplyEntries { kPairs, kCompact, kStencil };

// How the launched q = A p walks item 22's stencil rows (bits): in item 23's lattice tiles
// (DeviceModel::tiles), with each row's 8-byte word loaded a round ahead (item 24), and with the
// spring blocks read from item 37's offset blocks (DeviceSystem::offset_block). The modes are
// 0 to kApplyModes − 1: words ahead with offset blocks (6 and 7) are not compiled, since with
// the offset blocks a row's addresses follow from the row alone and the host never loads its word
// ahead (CudaBackend::load)
inline constexpr int kApplyTiled = 1;
inline constexpr int kApplyAhead = 2;
inline constexpr int kApplyOffsetBlocks = 4;
inline constexpr int kApplyModes = (kApplyOffsetBlocks | kApplyTiled) + 1;  // 6
static_assert((kApplyAhead | kApplyOffsetBlocks) >= kApplyModes, "words ahead with offset blocks");

// One launch: grid-stride loops cover any count with any grid.
struct Launch {
  int grid = 0;
  int block = 0;
};

// The model on the device; only load and updateModel change it. Vectors are float4 or packed
// float3 depending on the layout (CudaOptions::float4_layout).
struct DeviceModel {
  uint32_t particles = 0;
  uint32_t springs = 0;
  const float* mass = nullptr;          // (particles) kg
  const float* free_mask = nullptr;     // (particles) 1 free, 0 pinned
  const uint32_t* row_start = nullptr;  // (particles + 1) CSR offsets into adjacency
  // (2 springs) per particle, its springs in increasing spring order: x = spring index,
  // y = the other end's particle, bit-inverted (~y) when this particle is the spring's j end
  const int2* adjacency = nullptr;
  // item 20, the launched q = A p only, or nullptr: the adjacency in 4 bytes an entry,
  // other << kCompactShift | k, the spring being own_start[min(this particle, other)] + k
  // (cuda/compact_entries.h)
  const uint32_t* compact = nullptr;    // (2 springs)
  const uint32_t* own_start = nullptr;  // (particles + 1)
  // item 22, the launched q = A p only, or nullptr: the offset-stencil rows
  // (cuda/stencil_rows.h), per particle its first own spring and its row mask, and the offsets
  const uint2* stencil = nullptr;  // (particles)
  uint32_t stencil_count = 0;      // D, at most kStencilMaxOffsets
  uint32_t stencil_offsets[kStencilMaxOffsets] = {};
  // item 37, with item 22's rows only, or nullptr: per spring (lower end a, offset d of the
  // stencil) its place d · particles + a in DeviceSystem::offset_block
  const uint32_t* spring_slot = nullptr;  // (springs)
  // item 23, with item 22's rows only: the order in which the launched q = A p's grid-stride loop
  // visits the rows (cuda/lattice_tiles.h); slots 0: particle order
  LatticeTiles tiles;
  const uint2* ends = nullptr;       // (springs) i, j
  const float* rest = nullptr;       // (springs) L
  const float* stiffness = nullptr;  // (springs) k
  const float* damping = nullptr;    // (springs) c
  glm::vec3 gravity{0.0f};
  float drag = 0.0f;
};

// The linearised implicit system of one step: written by the prepare kernels, read-only during
// CG (this is what the L2 persisting window covers).
struct DeviceSystem {
  float4* spring_force = nullptr;  // (springs) f_s on the spring's i end (w unused)
  float4* spring_kv = nullptr;     // (springs) h² K_s (v_i − v_j) (w unused)
  // (springs) S_s = a n nᵀ + b I = m mᵀ + b I, packed in one 16-byte load: m = √a n in xyz, b in
  // w (a >= 0: the backend refuses negative stiffness and damping)
  float4* block = nullptr;
  float* diag = nullptr;       // (particles) free (m + h c_air)
  float2* inv_diag = nullptr;  // (particles) P⁻¹ = inverse 3×3 diagonal block of A, symmetric:
                               // 3 float2 per particle, (xx, yy), (zz, xy), (xz, yz)
  // item 37, or nullptr: the same blocks again at DeviceModel::spring_slot, d · particles + a for
  // the spring from particle a at the stencil's offset d, so q = A p finds a row's springs at
  // addresses it computes from the row alone (places of absent springs: zero blocks, item 40)
  float4* offset_block = nullptr;  // (D particles, then item 40's zero block)
};

// CG vectors, all in the particle layout.
struct CgVectors {
  void* dv = nullptr;  // x of A x = b: Δv
  void* r = nullptr;   // residual b − A x
  void* z = nullptr;   // P⁻¹ r
  void* p = nullptr;   // search direction
  void* q = nullptr;   // A p
};

// Per-block partial sums: partials[k * stride + block] for sum k.
struct Reduction {
  double* partials = nullptr;
  int stride = 0;
  // the whole-CG grid's barrier word (item 33), zero at allocation: each barrier adds 2^31 to it
  // in all, so its low 31 bits stay zero between barriers and its top bit flips at each
  uint32_t* arrived = nullptr;
  // item 41's release word for item 26's joined kernel, zero at allocation: the high half counts
  // releases (twice, its low bit CG's stop), the low half is β's bits; nullptr: item 41 off
  unsigned long long* release = nullptr;
};

// CG state on the device, written only by the single-block finishing kernels. Once done is set,
// every CG kernel returns at once, so extra launched iterations change nothing.
struct CgScalars {
  double rz = 0.0;      // r·z of the current iterate
  double b_norm = 0.0;  // |b|
  double target = 0.0;  // tolerance × |b|
  double r_norm = 0.0;  // |r| of the current iterate
  // item 49 (item 14's kernel with item 44): 1/(r·z) and 1/α as the last iteration formed them
  // (reciprocal()), for the next launch of the same solve, so that a relaunch takes the same bits
  // as one launch
  double rz_inverse = 0.0;
  double alpha_inverse = 0.0;
  float alpha = 0.0f;
  float beta = 0.0f;
  int iterations = 0;
  int max_iterations = 0;
  int done = 0;       // converged, capped or broken down
  int converged = 0;  // |r| <= tolerance |b|
  int breakdown = 0;  // p·A p <= 0
  // item 25: finishBeta closed an iteration whose Δv += α p the direction kernel still owes (set
  // by finishBeta, cleared by the next q = A p; launched kernels only)
  int dv_pending = 0;
  // fused finishing (CudaOptions::fused_finish): blocks of the apply and update kernels that have
  // written their partial sums; the last one to arrive finishes the reduction and resets it
  unsigned int apply_arrivals = 0;
  unsigned int update_arrivals = 0;
  // whole-CG kernels without fusion: the totals one block finished, read by all after a barrier
  double stage[2] = {0.0, 0.0};
};

// ---- step_kernels.cu ----
enum StepKernelId {
  kExplicitKernel,
  kSpringPrepareKernel,
  kParticlePrepareKernel,
  kCommitKernel,
  kVisualKernel,
  kSpringPrepareNewtonKernel,  // the prepare kernels for a Newton iterate (base_x, base_v given)
  kParticlePrepareNewtonKernel,
  kStepKernelCount
};

// Sets the carve-out preference and reads the occupancy of every step kernel of one layout.
// Fails with cudaErrorNoKernelImageForDevice (or similar) when this GPU has no kernel image.
cudaError_t queryStepKernels(bool float4_layout, bool prefer_l1, KernelShape out[kStepKernelCount]);

cudaError_t launchExplicit(Launch launch, cudaStream_t stream, bool float4_layout,
                           const DeviceModel& model, const void* x0, const void* v0, void* x1,
                           void* v1, const float3* external, float h, bool symplectic);

// base_x null: the implicit step's system at (x0, v0). base_x given: a Newton iterate's, h = β,
// (x0, v0) = (x_k, v_k), offset d = x̂ + β v_k − x_k (see springPrepareKernel).
cudaError_t launchSpringPrepare(Launch launch, cudaStream_t stream, bool float4_layout,
                                const DeviceModel& model, const void* x0, const void* v0,
                                const DeviceSystem& system, float h, const void* base_x = nullptr);

// Also starts CG: Δv = 0 and r = b, or (warm_start) Δv as the last solve left it and
// r = b − A Δv; z = P⁻¹ r, p = z, and partial sums of b·b, r·z and r·r. P⁻¹ is the inverse 3×3
// diagonal block of A (block_jacobi) or the inverse of its diagonal (point Jacobi). base_v given
// (a Newton iterate, after launchSpringPrepare with base_x): b −= M (v0 − base_v) at free
// particles.
cudaError_t launchParticlePrepare(Launch launch, cudaStream_t stream, bool float4_layout,
                                  const DeviceModel& model, const void* v0, const float3* external,
                                  const DeviceSystem& system, const CgVectors& cg,
                                  Reduction reduction, float h, bool block_jacobi, bool warm_start,
                                  const void* base_v = nullptr);

cudaError_t launchCommit(Launch launch, cudaStream_t stream, bool float4_layout, uint32_t particles,
                         const void* x0, const void* v0, const void* dv, void* x1, void* v1,
                         float h);

cudaError_t launchVisual(Launch launch, cudaStream_t stream, bool float4_layout, uint32_t particles,
                         const void* previous, const void* current, float3* out, float alpha);

// ---- newton_kernels.cu: the Newton iterations of newton and bdf2 (CpuBackend::stepNewton) ----
enum NewtonKernelId {
  kNewtonEvalKernel,
  kNewtonTrialKernel,
  kBdf2BaseKernel,
  kNewtonFinishKernel,
  kNewtonKernelCount
};

cudaError_t queryNewtonKernels(bool float4_layout, bool prefer_l1,
                               KernelShape out[kNewtonKernelCount]);

// The sums a Newton iterate branches on, in kNewtonSums partials per block (Reduction rows):
enum NewtonSum {
  kGradientSquared,  // |g|², g = M (v − v̂) − β f(x, v) over free particles
  kGradientDelta,    // g·δ (0 without δ)
  kLoadSquared,      // Σ |m g_gravity + f(x, v)|² over free particles (the convergence scale)
  kMerit,            // Φ(x, v), CpuBackend::merit
  kNewtonSums
};

// Partial sums of NewtonSum at (x, v) for base velocity v̂ = base_v and step β; delta may be null.
cudaError_t launchNewtonEval(Launch launch, cudaStream_t stream, bool float4_layout,
                             const DeviceModel& model, const void* x, const void* v,
                             const void* base_v, const float3* external, const void* delta,
                             float beta, Reduction reduction);

// One block: out[k] = Σ of count partials of sum k, k < kNewtonSums, in a fixed order.
cudaError_t launchNewtonFinish(int threads, cudaStream_t stream, Reduction reduction, int count,
                               double* out);

// The line search's trial: v_t = v + α δ, x_t = x̂ + β v_t.
cudaError_t launchNewtonTrial(Launch launch, cudaStream_t stream, bool float4_layout,
                              uint32_t particles, const void* v, const void* delta,
                              const void* base_x, void* x_out, void* v_out, float alpha,
                              float beta);

// BDF2's base point from the last two states: x̂ = (4 x_n − x_{n−1}) / 3, v̂ likewise.
cudaError_t launchBdf2Base(Launch launch, cudaStream_t stream, bool float4_layout,
                           uint32_t particles, const void* x_n, const void* v_n,
                           const void* x_before, const void* v_before, void* base_x, void* base_v);

// A launch the runtime refuses (2048 threads per block; CUDA 13 reports cudaErrorInvalidValue,
// earlier runtimes cudaErrorInvalidConfiguration) and so runs nothing: CudaOptions::fault_at_step's
// real CUDA error.
cudaError_t launchInvalidConfiguration(cudaStream_t stream);

// ---- pcg_kernels.cu ----
// Every launch below takes `dependent` (item 21, CudaOptions::dependent_launch, sm_90 only): the
// kernel may be scheduled while the one before it in the stream still runs; it waits for that
// one's results itself (awaitPrevious).
// kApplyBatchedKernel: q = A p with item 16's batched loads (its own shape: it may need more
// registers)
enum CgKernelId {
  kApplyKernel,
  kApplyBatchedKernel,
  kApplyBatched3Kernel,  // batches of 3 (kGatherBatchShort)
  kApplyCompactKernel,   // item 20's 4-byte entries, batches of kGatherBatch
  kApplyCompact3Kernel,  // and of kGatherBatchShort
  // item 22's offset-stencil rows in each mode (kApplyTiled | kApplyAhead | kApplyOffsetBlocks:
  // 0 to kApplyModes − 1), batches of kGatherBatch then of kGatherBatchShort: kApplyStencilKernel +
  // 2 mode + (short batch) (stencilKernelId)
  kApplyStencilKernel,
  kApplyStencilLast = kApplyStencilKernel + 2 * kApplyModes - 1,
  kUpdateKernel,
  kDirectionKernel,
  kFinishKernel,
  kCgKernelCount
};

cudaError_t queryCgKernels(bool float4_layout, bool prefer_l1, int apply_block,
                           KernelShape out[kCgKernelCount]);

// Finishes the start sums (count partials of b·b, r·z, r·r): |b|, |r|, r·z, target; sets done
// when nothing is left to do. b = 0 means Δv = 0: a warm start guess in dv (particles vectors of
// vector_bytes) is then cleared.
cudaError_t launchCgStart(int threads, cudaStream_t stream, Reduction reduction, int count,
                          CgScalars* scalars, float tolerance, int max_iterations, void* dv,
                          uint32_t particles, int vector_bytes);

// q = A p and partial sums of p·q, each particle's springs over `lanes` threads (a power of two,
// 1 to 32; launch.grid × launch.block threads cover lanes × particles in rounds), each lane
// issuing `batch` entries' loads together (1, 3 or 4: item 16); entries: the pairs, item 20's
// 4-byte entries (model.compact) or item 22's stencil rows (model.stencil), the last two in
// batches of 3 or 4 only; fused: the last block also computes α (launchAlpha's work). mode: with
// the stencil rows, kApplyTiled (model.tiles), kApplyAhead and kApplyOffsetBlocks
// (model.spring_slot and system.offset_block); 0 otherwise
cudaError_t launchApply(Launch launch, cudaStream_t stream, bool float4_layout, bool fused,
                        const DeviceModel& model, const DeviceSystem& system, const CgVectors& cg,
                        Reduction reduction, CgScalars* scalars, int lanes, int batch,
                        ApplyEntries entries, int mode, bool dependent);

// What the compiled q = A p variant that launchApply would launch with these arguments uses:
// registers per thread and static shared memory per block (cudaFuncGetAttributes), and the
// blocks of `block` threads a multiprocessor holds under item 9's carve-out `prefer_l1` (set on
// the kernel first, as queryCgKernels sets it). cudaErrorInvalidValue for a combination
// launchApply refuses (regardless of the model).
struct ApplyKernelResources {
  int registers = 0;
  int static_shared_bytes = 0;
  int blocks_per_sm = 0;
};
cudaError_t applyKernelResources(bool float4_layout, bool fused, int batch, ApplyEntries entries,
                                 int mode, int block, bool prefer_l1, ApplyKernelResources* out);

// The CgKernelId of item 22's q = A p in `mode` with batches of `batch` (3 or 4)
inline CgKernelId stencilKernelId(int mode, int batch) {
  return static_cast<CgKernelId>(kApplyStencilKernel + 2 * mode +
                                 (batch == kGatherBatchShort ? 1 : 0));
}

// α = r·z / p·q, or breakdown
cudaError_t launchAlpha(int threads, cudaStream_t stream, Reduction reduction, int count,
                        CgScalars* scalars, bool dependent);

// Δv += α p (unless dv_in_direction), r −= α q, z = P⁻¹ r, and partial sums of r·r and r·z;
// fused: the last block also does launchBeta's work
cudaError_t launchUpdate(Launch launch, cudaStream_t stream, bool float4_layout, bool fused,
                         bool dv_in_direction, uint32_t particles, const DeviceSystem& system,
                         const CgVectors& cg, Reduction reduction, CgScalars* scalars,
                         bool dependent);

// |r|, convergence and cap; β = (r·z)_new / (r·z)_old
cudaError_t launchBeta(int threads, cudaStream_t stream, Reduction reduction, int count,
                       CgScalars* scalars, bool dependent);

// p = z + β p; dv_in_direction (item 25): first Δv += α p with the p it replaces, also in the
// iteration that ended CG (CgScalars::dv_pending), and then no new p
cudaError_t launchDirection(Launch launch, cudaStream_t stream, bool float4_layout,
                            bool dv_in_direction, uint32_t particles, const CgVectors& cg,
                            const CgScalars* scalars, bool dependent);

// ---- whole_cg_kernels.cu ----
// Item 26 (CudaOptions::direction_in_update): the update and the direction kernels' work in one
// cooperative launch of the update's own shape (launch: grid, block), each thread's z and p for
// its at most `held` particles kept in shared memory across a grid barrier: Δv += α p, r −= α q,
// z = P⁻¹ r, Σ r·r, Σ r·z; the barrier; in every block the totals, |r|, the stop and β as the
// fused update's last block forms them (block 0 writes the scalars), then p = z + β p. The same
// bits as launchUpdate (fused) then launchDirection; z is never written. Every block must be
// resident: updateDirectionResidency gives the blocks of `block` threads holding `held` particles
// each that one multiprocessor keeps (0 when none), after setting the kernel's attributes.
// alpha_from (item 38): q = A p's launch when it ran unfused (its partials of p·q at sum 0; at
// most this launch's block, at most reduction.stride blocks): every block forms α from them as
// q = A p's last block would have; grid 0: α from the scalars. The grid barrier is item 33's where
// reduction.arrived is set. The kernel's own partials are sums 1 and 2.
size_t updateDirectionSharedBytes(int block, int held);
cudaError_t updateDirectionResidency(bool float4_layout, int block, int held, bool alpha,
                                     int* blocks_per_sm);
cudaError_t launchUpdateDirection(Launch launch, int held, cudaStream_t stream, bool float4_layout,
                                  uint32_t particles, const DeviceSystem& system,
                                  const CgVectors& cg, Reduction reduction, CgScalars* scalars,
                                  Launch alpha_from);

// The whole PCG solve in one launch: one block (directions in shared memory) or a cooperative
// grid. Starts from the state launchCgStart (or an earlier whole-CG launch) left in CgScalars and
// leaves it there, exactly as the launched kernels do.
struct WholeCgArgs {
  DeviceModel model;
  DeviceSystem system;
  CgVectors cg;
  void* p_other = nullptr;  // second direction buffer: p ping-pongs between cg.p and this
  Reduction reduction;      // 3 sums per block: p·q, r·r, r·z (6 with single_reduction)
  CgScalars* scalars = nullptr;
  int iteration_budget = 0;  // iterations this launch may do; <= 0: until done
  bool fused = true;         // 2 barriers per iteration; false: 5 (separate stages, as launched)
  int lanes = 1;             // threads per particle in q = A p (a power of two, 1 to 32)
  // grid only: Chronopoulos–Gear CG, one barrier per iteration (needs fused); r, w = A u and s
  // = A p ping-pong between cg.r / r_other, cg.q / w_other and cg.z / p_other, and the reduction
  // holds 6 sums per block
  bool single_reduction = false;
  void* r_other = nullptr;
  void* w_other = nullptr;
  // grid only (item 17): each lane keeps its first row's adjacency entries in registers for the
  // launch. Off: compiled without ablation only (queryWholeCg fails for the others)
  bool held_entries = true;
  // grid with single_reduction and held_entries only (item 18): each block stages its halo's u'
  // in shared memory before each gather. nullptr stage_entries: not staged
  const uint32_t* stage_start = nullptr;  // (grid + 1) each block's first slot in stage_halo
  const uint32_t* stage_halo = nullptr;   // per block: its own rows in gather order, then the
                                          // other ends of their entries (ascending, or placed
                                          // by bank: item 51)
  const uint2* stage_entries = nullptr;   // (2 springs) per adjacency entry: (spring, slot)
  uint32_t stage_slots = 0;               // the largest halo
  // > 0: each block copies its rows' entries (spring blocks and slots) to shared memory once per
  // launch, room for this many per block (one round of rows only); stagedHaloBytes in all
  uint32_t stage_entry_slots = 0;
  // item 31, with the entries staged: > 0: each block copies its springs' blocks once (room for
  // this many) and a 4-byte word per entry (its spring's place there | its slot << 16) instead of
  // a block and a slot per entry; stage_springs[stage_spring_start[b] ...] are block b's springs
  uint32_t stage_spring_slots = 0;
  const uint32_t* stage_spring_start = nullptr;  // (grid + 1)
  const uint32_t* stage_springs = nullptr;
  const uint32_t* stage_words = nullptr;  // per adjacency entry
  // item 27, with the entries staged: the fill keeps the block's own rows' s', r' and P⁻¹ r in
  // shared memory (9 floats per row of the block) and loads its first round right after the
  // barrier; the rows' mask, diagonal, p and Δv stay in registers, p and Δv written back at the
  // end of the launch
  bool stage_rows = false;
  int stage_carveout = -1;  // host side: the staged kernel's carve-out (prepareStagedKernel)
  // grid only (item 29): warp k of each block sums the grid's partials of sum k, their loads
  // issued before the fill's (blocks of at least 32 threads per sum); false: warp 0 sums all
  bool split_sums = true;
  // item 27's kernel only (item 30): each row walks its staged entries two at a time from shared
  // memory, both entries' reads issued before either product; false: one at a time
  bool paired_walk = true;
  // grid only (item 33), with reduction.arrived: the grid barrier's last block to arrive goes on
  // without reading the barrier word again (its arrival also acquires); false: cooperative
  // groups' grid sync
  bool last_arrival = true;
  // item 27's kernel on 4 or more lanes (item 35): every lane of a row finishes it and lane k forms
  // the row's sum k, the block's sums taking each from its own lanes; false: the first lane forms
  // all three
  bool lane_sums = true;
  // item 27's kernel only (item 43): the fill reads from global memory only what other blocks
  // wrote. fill_kept_rows: each block keeps its own rows' r', w' and s' in shared memory from the
  // finish to the next fill (9 floats per row of the block); fill_inverses: it copies every halo
  // slot's P⁻¹ block there once per launch (6 floats per slot). false: the fill loads them for
  // every slot in every iteration
  bool fill_kept_rows = false;
  bool fill_inverses = false;
  // item 27's kernel with its rows on one lane (item 45): thread t's own row (slot t) keeps its
  // s', r', u and its r', w', s' in registers between the fill and the finish and from one
  // iteration to the next, so the block has no own rows' area in shared memory (nor item 43's
  // kept rows), and the loads right after the barrier are the other blocks' slots. false: the own
  // rows' area (9 floats per row), the first round of slots after the barrier
  bool rows_in_registers = false;
  // item 27's kernel with item 31's words and item 30's paired walk (item 46): each thread copies
  // its share of its row's words (entries sub, sub + lanes, ...) past the kGridHeldEntries held
  // ones (staged_halo.h) to shared memory by column, its j-th at (j − kGridHeldEntries) · block +
  // thread, and the walk reads them there; stage_entry_slots is then that area's size (the most
  // entries a thread walks times the block). false: the block's entries in CSR order
  bool entry_columns = false;
  // item 14's kernel (item 44): after the grid-wide sums the stop is r'·r' <= target² and β', η
  // take 1/γ and 1/α formed after the iteration before; false: √(r'·r') <= target and three
  // divisions, as the other paths form them
  bool scalars_ahead = false;
};

// Compile-time optimisations the benchmark can take out of the whole-CG kernel (either layout).
enum WholeCgAblation {
  kAblateNone = 0,
  kAblateBounds = 4,
  kAblateLdg = 5,
  kAblateMasks = 7,
  kAblateShuffle = 8
};

// Shape of one whole-CG kernel: for one block, the largest block it can launch (shape.block) and
// the shared memory available to it; for the grid, the occupancy shape of grid_block threads
// (0: 256; at most 512). held: the grid kernel with item 17 (ignored for one block); staged: item
// 18's kernel; staged_rows: item 27's. Fails with cudaErrorInvalidValue for a combination that
// was not compiled (an unknown ablation, a static ablation without held entries, staged other
// than for item 14's kernel with held entries and no ablation, staged_rows without staged).
cudaError_t queryWholeCg(bool float4_layout, bool one_block, bool single_reduction, bool held,
                         bool staged, bool staged_rows, int ablation, bool prefer_l1,
                         int grid_block, KernelShape* out, size_t* max_shared_bytes);

// Shared memory a staged grid block (item 18) needs for a halo of `slots` particles and
// `entry_slots` staged entries (with item 31, `spring_slots` > 0: that many springs' blocks and a
// 4-byte word per entry), and with item 27 its `own_rows` rows (0 without), with item 43
// (item 27 only) their r', w', s' kept (`kept_rows`) and every slot's P⁻¹ block (`inverses`);
// with item 45 (`rows_in_registers`) no own rows' area and no kept rows.
size_t stagedHaloBytes(uint32_t slots, uint32_t entry_slots, uint32_t own_rows,
                       uint32_t spring_slots = 0, bool kept_rows = false, bool inverses = false,
                       bool rows_in_registers = false);

// Readies item 18's kernel for blocks of `block` threads staging halo_bytes each: with prefer_l1
// the smallest shared-memory carve-out that holds wanted_per_sm such blocks per multiprocessor
// (item 9 as far as the halos allow), else the default; *blocks_per_sm: how many are then
// resident, for the cooperative launch; *carveout: the carve-out set (launchWholeCg sets it, and
// the dynamic shared memory limit, again before each staged launch: kernel attributes are shared
// by every backend of the process).
// rows: item 27's kernel; registers: its item 45 form (rows on one lane); columns: item 46's.
cudaError_t prepareStagedKernel(bool float4_layout, bool rows, bool registers, bool columns,
                                int block, size_t halo_bytes, int wanted_per_sm, bool prefer_l1,
                                int* blocks_per_sm, int* carveout);

// Shared memory one block needs for `particles` (the directions and z, packed float3).
size_t wholeCgSharedBytes(uint32_t particles);

// One block: launch.grid must be 1; grid: launched cooperatively (every block resident).
cudaError_t launchWholeCg(Launch launch, cudaStream_t stream, bool float4_layout, bool one_block,
                          int ablation, const WholeCgArgs& args);

}  // namespace hooke::cuda
