// The CUDA backend: device selection, memory plan, load/update, every integrator's launch
// sequence and read-back (kernels in step_kernels.cu, newton_kernels.cu and pcg_kernels.cu). Every
// CUDA call is checked and its error returned as a Status; nothing here exits, aborts or throws.
#include "cuda/cuda_backend.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda/compact_entries.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_pcg.h"
#include "cuda/kernel_api.h"
#include "cuda/lattice_tiles.h"
#include "cuda/staged_halo.h"
#include "cuda/stencil_rows.h"
#include "cuda/whole_cg.h"
#include "sim/locality_order.h"

namespace hooke {

namespace {

using cuda::CgPlan;
using cuda::CgScalars;
using cuda::CgVectors;
using cuda::DeviceModel;
using cuda::DeviceSystem;
using cuda::KernelShape;
using cuda::Launch;
using cuda::Reduction;

static_assert(sizeof(glm::vec3) == sizeof(float3), "glm::vec3 must be three packed floats");

constexpr size_t kAlignment = 256;
constexpr size_t kMiB = size_t(1) << 20;
constexpr size_t kL2WindowGranule = size_t(128) << 10;  // 128 KiB

size_t alignUp(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

std::string versionString(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string mib(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(kMiB));
  return text;
}

// All device buffers of one loaded model, carved from one allocation. The data that CG reads but
// never writes comes first, so one L2 access-policy window covers it (item 6).
struct Buffers {
  // read-only during CG
  int2* adjacency = nullptr;      // (2 springs)
  uint32_t* row_start = nullptr;  // (particles + 1)
  float4* block = nullptr;        // (springs) packed S_s
  float* diag = nullptr;          // (particles)
  float2* inv_diag = nullptr;     // (particles) symmetric 3×3, 3 float2
  float* free_mask = nullptr;     // (particles)
  size_t constant_bytes = 0;      // size of the region above
  // model parameters
  float* mass = nullptr;
  uint2* ends = nullptr;
  float* rest = nullptr;
  float* stiffness = nullptr;
  float* damping = nullptr;
  // per-spring work
  float4* spring_force = nullptr;
  float4* spring_kv = nullptr;
  // particle vectors in the chosen layout; x and v ping-pong between steps
  void* x[2] = {nullptr, nullptr};
  void* v[2] = {nullptr, nullptr};
  void* dv = nullptr;
  void* r = nullptr;
  void* z = nullptr;
  void* p = nullptr;
  void* p2 = nullptr;  // the whole-CG paths' second direction buffer
  void* r2 = nullptr;  // single-reduction grid CG: the second residual and A u buffers
  void* w2 = nullptr;
  void* q = nullptr;
  // newton and bdf2: BDF2's base point x̂, v̂, and a third state pair for the line search's trial
  // states (the iterate and the trial alternate between it and the step's output pair)
  void* base_x = nullptr;
  void* base_v = nullptr;
  void* x_spare = nullptr;
  void* v_spare = nullptr;
  float3* external = nullptr;             // (particles) packed
  float3* visual = nullptr;               // (particles) packed
  uint32_t* slots = nullptr;              // (particles) model particle -> device slot (item 15)
  double* partials = nullptr;             // (6 × partial_stride)
  double* newton_partials = nullptr;      // (kNewtonSums × partial_stride)
  uint32_t* arrived = nullptr;            // the whole-CG grid's barrier word (item 33)
  unsigned long long* release = nullptr;  // the joined kernel's release word (item 41)
  double* newton_sums = nullptr;          // (kNewtonSums) their totals
  CgScalars* scalars = nullptr;
  size_t total_bytes = 0;
};

// Item 13's automatic rule: the gather threads per multiprocessor a small system is spread over.
constexpr size_t kGatherThreadsPerSm = 512;
// Beyond that size, lanes are the power of two nearest this share of a row: a third; a sixth
// where the launched path batches its loads (item 16: cloth 2, volume 4); a twelfth where it
// also gathers item 23's lattice tiles (cloth 1, volume 2: on the H200, in tiles, 1 lane was 4 %
// faster than 2 at 262k and 1M cloth particles, 2 lanes 2 % and 10 % faster than 4 at 265k and
// 1M volume particles, bench/results/gpu-h200-2026-12-02-tiles.json, "tiles"); with item 37's
// offset blocks as well, a whole row (a lane's loads no longer wait for a lower end's word: on the
// H200 the 1M volume's rows on 1 lane in 8 × 4 × 8 tiles took 139.1 µs per iteration against
// 149.7 on 2 in 8 × 4 × 4, the 265k volume 49.0 against 48.6, within the sweep's spread; "tiles"
// of bench/results/gpu-h200-2026-12-03-offset-blocks-final.json, runs "tiles-call3")
constexpr double kRowShare = 3.0;
constexpr double kBatchedRowShare = 6.0;
constexpr double kTiledRowShare = 12.0;
constexpr double kOffsetTiledRowShare = 32.0;

// CudaOptions::grid_block 0: the grid path runs 512-thread blocks once its threads would fill
// more than this many 256-thread blocks per multiprocessor. On the H200 512 was 6–11 % faster at
// 16384 and 65536 particles (1.94 blocks of 256 per multiprocessor) and 4–14 % slower at 4096
// and 4394 (0.97 and 1.04) (bench/results/gpu-h200-2026-11-30-final.json, "paths").
constexpr double kGrid512BlocksPerSm = 1.25;

// Item 18: the largest halo a block stages, 12 bytes a particle: 48 KiB, what a block may use
// without opting in, and twice that still leaves two blocks per multiprocessor room
constexpr uint32_t kStagedMaxSlots = 4096;
// and the most entries it copies to shared memory (20 bytes each: 160 KiB)
constexpr uint32_t kStagedMaxEntries = 8192;
// CudaOptions::stage_halo 0: staged where item 27 runs, and otherwise when the rows average at
// least kStagedMinEntries entries, or a lane's share of a row more than the entries item 14's
// kernel holds in registers (2)
constexpr double kStagedMinEntries = 16.0;
constexpr double kStagedLaneEntries = 2.0;

// CgPath::kAuto: beyond one round of rows (CudaBackend::oneRound) the grid only where the rows
// average fewer entries than this, else the launched path. On the H200, item 14's grid on one lane
// was 11–18 % faster per iteration than the launched path at cloth of 90,000 and 131,044
// particles (12 entries a row: 15.1 and 16.4 against 17.0 and 20.1 µs), and 20–31 % slower at
// volumes of 93,312 and 128,000 (25 entries: 30.8 and 37.6 against 25.6 and 28.6 µs), where the
// two-barrier grid was slower still (43.7, 64.5) (bench/results/gpu-h200-2026-12-03-rounds.json)
constexpr double kGridRoundsMaxEntries = 16.0;

// q = A p's threads per block on a flat lattice's tiles (a cloth's; CudaOptions::apply_block 0),
// in place of the occupancy query's block, which takes the most resident threads (on the H200,
// before item 40, 224 threads, 53 registers: 5 blocks, 1120 threads a multiprocessor, against
// 1024 in 4 blocks of 256; ncu, bench/results/ncu-h200-2026-12-03-apply-block.txt. With item 40
// the query gives 256 as well: 47–48 registers, and the walk's table in shared memory allows 4
// blocks under item 9's carve-out, bench/results/ncu-h200-2026-12-04-offset-walk.txt). Fixed 100
// iterations, µs per iteration, queried → 256 (3 runs each, medians;
// bench/results/gpu-h200-2026-12-03-apply-block.json): cloth 512 26.90 → 25.91, cloth 600
// 37.70 → 37.18, cloth 724 52.93 → 53.02, cloth 1024 92.21 → 91.67; on volumes 265k 44.06 →
// 46.44 (5 % slower), 524k 76.37 → 75.76, 1M 141.24 → 140.00. Blocks of 128 were 10-15 % slower
// everywhere: item 9's carve-out leaves 8 KB of shared memory, 1.3 KB a block, so 5 blocks, 640
// threads.
constexpr int kFlatApplyBlock = 256;

// Item 23's automatic tile on a volume (a lattice of several planes): at most this many rows,
// whatever q = A p's block. With item 40's walk in batches of 3 (47–48 registers) the query gives
// 256 threads; their 256-row tiles (8 × 4 × 8) measured slower than 128 rows (8 × 4 × 4) at the
// same block on the H200 (medians of two processes, fixed 100): 265k volume 44.45 against 43.52 µs
// per iteration, 1M 135.1 against 133.5, 524k 71.5 against 71.7
// (bench/results/gpu-h200-2026-12-04-offset-walk-tiles.json). 64-row tiles (8 × 4 × 2) read 2 %
// faster than 128 at the 265k volume in one process of the main run (-offset-walk-main.json):
// not measured enough to change the cap.
constexpr uint32_t kVolumeTileRows = 128;

// Item 39's automatic rule (CudaOptions::stream_offset_blocks 0): the share of L2 the rest of the
// launched iteration's data may take. On the H200 streaming the blocks helped at 0.43–0.60 of L2
// (262k–360k particles: 7–14 %) and cost 7 % at the 524k volume (0.87), where the 524k cloth
// gained 2 % (bench/results/gpu-h200-2026-12-03-streamed-blocks-sizes.json)
constexpr double kStreamedBlocksL2Share = 0.75;

// Lays the buffers out from base; with base = 0 it only measures.
Buffers layoutBuffers(uintptr_t base, size_t particles, size_t springs, bool float4_layout,
                      size_t partial_stride) {
  Buffers b;
  size_t offset = 0;
  auto take = [&](size_t bytes) {
    offset = alignUp(offset, kAlignment);
    void* at = reinterpret_cast<void*>(base + offset);
    offset += bytes;
    return at;
  };
  const size_t vec = float4_layout ? 16 : 12;
  b.adjacency = static_cast<int2*>(take(2 * springs * sizeof(int2)));
  b.row_start = static_cast<uint32_t*>(take((particles + 1) * sizeof(uint32_t)));
  b.block = static_cast<float4*>(take(springs * sizeof(float4)));
  b.diag = static_cast<float*>(take(particles * sizeof(float)));
  b.inv_diag = static_cast<float2*>(take(3 * particles * sizeof(float2)));
  b.free_mask = static_cast<float*>(take(particles * sizeof(float)));
  b.constant_bytes = offset;
  b.mass = static_cast<float*>(take(particles * sizeof(float)));
  b.ends = static_cast<uint2*>(take(springs * sizeof(uint2)));
  b.rest = static_cast<float*>(take(springs * sizeof(float)));
  b.stiffness = static_cast<float*>(take(springs * sizeof(float)));
  b.damping = static_cast<float*>(take(springs * sizeof(float)));
  b.spring_force = static_cast<float4*>(take(springs * sizeof(float4)));
  b.spring_kv = static_cast<float4*>(take(springs * sizeof(float4)));
  for (int k = 0; k < 2; ++k) {
    b.x[k] = take(particles * vec);
    b.v[k] = take(particles * vec);
  }
  b.dv = take(particles * vec);
  b.r = take(particles * vec);
  b.z = take(particles * vec);
  b.p = take(particles * vec);
  b.p2 = take(particles * vec);
  b.r2 = take(particles * vec);
  b.w2 = take(particles * vec);
  b.q = take(particles * vec);
  b.base_x = take(particles * vec);
  b.base_v = take(particles * vec);
  b.x_spare = take(particles * vec);
  b.v_spare = take(particles * vec);
  b.external = static_cast<float3*>(take(particles * sizeof(float3)));
  b.visual = static_cast<float3*>(take(particles * sizeof(float3)));
  b.slots = static_cast<uint32_t*>(take(particles * sizeof(uint32_t)));
  b.partials = static_cast<double*>(take(6 * partial_stride * sizeof(double)));
  b.newton_partials =
      static_cast<double*>(take(cuda::kNewtonSums * partial_stride * sizeof(double)));
  b.newton_sums = static_cast<double*>(take(cuda::kNewtonSums * sizeof(double)));
  b.arrived = static_cast<uint32_t*>(take(sizeof(uint32_t)));
  b.release = static_cast<unsigned long long*>(take(sizeof(unsigned long long)));
  b.scalars = static_cast<CgScalars*>(take(sizeof(CgScalars)));
  b.total_bytes = alignUp(offset, kAlignment);
  return b;
}

// Whether `device` can run CUDA at all; the reason when not.
bool deviceUsable(int device, std::string* why_not) {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  cudaGetLastError();  // none of these errors may linger into later calls
  if (error == cudaErrorNoDevice || (error == cudaSuccess && count == 0)) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    *why_not = "no CUDA device found";
    if (visible) *why_not += std::string(" (CUDA_VISIBLE_DEVICES=\"") + visible + "\")";
    return false;
  }
  if (error == cudaErrorInsufficientDriver) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cudaGetLastError();
    if (driver == 0) {
      *why_not = "no NVIDIA driver found (CUDA needs the NVIDIA driver)";
    } else {
      *why_not = "the NVIDIA driver supports CUDA " + versionString(driver) +
                 ", older than this build's CUDA runtime " + versionString(runtime) +
                 "; update the driver";
    }
    return false;
  }
  if (error != cudaSuccess) {
    *why_not = std::string("CUDA is unavailable: ") + cudaGetErrorName(error) + " (" +
               cudaGetErrorString(error) + ")";
    return false;
  }
  if (device < 0 || device >= count) {
    *why_not = "CUDA device " + std::to_string(device) + " does not exist (" +
               std::to_string(count) + " found)";
    return false;
  }
  return true;
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(const CudaOptions& options) : options_(options) {}
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  // Device, stream, events and kernel shapes; fails when this GPU has no kernel image.
  Status init();

  std::string_view name() const override { return "cuda"; }
  Status load(const Model& model, const State& state) override;
  Status updateModel(const Model& model) override;
  void setSettings(const SolverSettings& settings) override { settings_ = settings; }
  bool supports(Integrator) const override { return true; }
  Status step(float h, std::span<const glm::vec3> external, StepStats* stats) override;
  void writeVisual(float alpha, std::span<glm::vec3> out) const override;
  void readState(State* out) const override;

  // The device positions for cudaVisualSource; false when no model is loaded.
  bool visualSource(CudaVisualSource* out) const;

  // The CG path the loaded model runs; false when no model is loaded.
  bool cgPath(CgPath* out) const {
    if (!loaded_) return false;
    *out = path_;
    return true;
  }
  int gatherLanes() const {
    if (!loaded_) return 0;
    return path_ == CgPath::kLaunches ? apply_lanes_ : whole_lanes_;
  }
  bool singleReductionInUse() const { return loaded_ && single_reduction_; }
  bool stagedInUse() const { return loaded_ && whole_.staged(); }
  bool stagedEntriesInUse() const { return stagedInUse() && whole_.stagedEntries(); }
  bool stagedRowsInUse() const { return stagedEntriesInUse() && whole_.stagedRows(); }
  bool stagedSpringsInUse() const { return stagedEntriesInUse() && whole_.stagedSprings(); }
  bool scalarsAheadInUse() const { return singleReductionInUse() && whole_.scalarsAhead(); }
  bool rowsInRegistersInUse() const { return stagedRowsInUse() && whole_.rowsInRegisters(); }
  bool entryColumnsInUse() const { return stagedRowsInUse() && whole_.entryColumns(); }
  bool rowsByDirectionInUse() const { return loaded_ && rows_by_direction_; }
  bool haloColoursInUse() const { return stagedInUse() && halo_colours_; }
  int fillOnChipInUse() const {
    if (!stagedRowsInUse()) return 0;
    return (whole_.fillInverses() ? kFillInverses : 0) | (whole_.fillKeptRows() ? kFillRows : 0);
  }
  int gridBlock() const { return loaded_ && path_ == CgPath::kGrid ? whole_launch_.block : 0; }
  int gatherBatch() const { return loaded_ && path_ == CgPath::kLaunches ? apply_batch_ : 0; }
  int applyBlock() const { return loaded_ && path_ == CgPath::kLaunches ? apply_.block : 0; }
  // the resources of the q = A p variant the launched path launches, as cgPlan() has it, on this
  // backend's device and with its carve-out (item 9)
  bool applyResources(cuda::ApplyKernelResources* out) const {
    *out = cuda::ApplyKernelResources{};
    if (!loaded_ || path_ != CgPath::kLaunches) return false;
    cudaError_t e = cudaSetDevice(options_.device);
    if (e == cudaSuccess) {
      const CgPlan plan = cgPlan();
      e = cuda::applyKernelResources(plan.float4_layout, plan.applyFused(), plan.batch,
                                     plan.entries, plan.apply_mode, plan.apply.block,
                                     options_.prefer_l1, out);
    }
    if (e != cudaSuccess) cudaGetLastError();
    return e == cudaSuccess;
  }
  bool compactInUse() const { return loaded_ && entries_ == cuda::ApplyEntries::kCompact; }
  bool stencilInUse() const { return loaded_ && entries_ == cuda::ApplyEntries::kStencil; }
  bool aheadInUse() const { return stencilInUse() && (apply_mode_ & cuda::kApplyAhead) != 0; }
  bool offsetBlocksInUse() const {
    return stencilInUse() && (apply_mode_ & cuda::kApplyOffsetBlocks) != 0;
  }
  // the bytes of the stream's access-policy window as the stream has it now (0: none)
  size_t streamL2WindowBytes() const {
    cudaStreamAttrValue value{};
    if (!loaded_ || cudaStreamGetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow,
                                           &value) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return value.accessPolicyWindow.num_bytes;
  }
  bool streamedBlocksInUse() const {
    return offsetBlocksInUse() && l2_window_.bytes > 0 && !l2_window_.persisting;
  }
  bool tilesInUse(uint32_t tile[3]) const {
    const bool on = stencilInUse() && device_model_.tiles.slots != 0;
    const cuda::LatticeTiles& t = device_model_.tiles;
    tile[0] = on ? 1u << t.shift_x : 0u;
    tile[1] = on ? 1u << t.shift_y : 0u;
    tile[2] = on ? 1u << t.shift_z : 0u;
    return on;
  }
  bool dependentInUse() const { return loaded_ && path_ == CgPath::kLaunches && dependentLaunch(); }
  int directionHeld() const { return loaded_ && path_ == CgPath::kLaunches ? direction_held_ : 0; }
  bool alphaInUpdate() const { return directionHeld() > 0 && alpha_in_update_; }
  // item 41 as the launched plan has it (its release word set where the joined kernel forms α)
  bool betaOnce() const {
    if (directionHeld() == 0) return false;
    const CgPlan plan = cgPlan();
    return plan.alphaJoined() && plan.reduction.release != nullptr;
  }

 private:
  Status validate(const Model& model) const;
  Status uploadParameters(const Model& model);
  Status uploadVectors(void* device, const std::vector<glm::vec3>& host);
  Status downloadVectors(const void* device, size_t count, glm::vec3* host) const;
  Status stepExplicit(float h, bool symplectic, const float3* external, StepStats* stats);
  Status stepImplicit(float h, const float3* external, StepStats* stats);
  Status stepNewton(float beta, bool bdf2, const float3* external, StepStats* stats);
  Status solveCg(int start_count, CgResult* out);
  Status evalNewton(const void* x, const void* v, const void* base_v, const float3* external,
                    const void* delta, float beta);
  Status injectFault();
  Status choosePath(size_t particles, size_t springs);
  int lanesFor(const KernelShape& shape, bool one_block, size_t particles, size_t springs,
               double row_share) const;
  bool balancedGrid(size_t particles, int lanes, KernelShape* out) const;  // item 28
  bool batchedApply(size_t particles) const;  // item 16 for the launched q = A p
  // the rows one round of the cooperative grid's gather covers at one lane:
  // kGatherThreadsPerSm threads on every multiprocessor
  size_t oneRound() const { return kGatherThreadsPerSm * size_t(props_.multiProcessorCount); }
  int applyBatch(bool batched, size_t particles, size_t springs, int lanes,
                 bool offset_walk = false) const;
  // item 14 applies to the fused grid path only
  bool singleReduction(size_t particles) const {
    return single_ok_ && options_.fused_finish &&
           particles <= size_t(std::max(0, options_.single_reduction_max_particles));
  }
  Status setL2Window(bool on);
  bool streamBlocks(size_t particles, bool float4_layout) const;
  Status record(int event);
  Status elapsed(int from, int to, double* ms);
  Launch launchFor(const KernelShape& shape, size_t count) const;
  CgPlan cgPlan() const;
  // item 21 for the launched CG kernels of a model of `particles` (the loaded one by default):
  // sm_90 and at most dependent_launch_max_particles
  bool dependentLaunch(size_t particles) const {
    return props_.major >= 9 &&
           particles <= size_t(std::max(0, options_.dependent_launch_max_particles));
  }
  bool dependentLaunch() const { return dependentLaunch(device_model_.particles); }
  void release();

  CudaOptions options_;
  SolverSettings settings_;
  cudaDeviceProp props_{};
  cudaStream_t stream_ = nullptr;
  cudaEvent_t events_[4] = {nullptr, nullptr, nullptr, nullptr};
  CgScalars* host_scalars_ = nullptr;  // pinned
  double* host_newton_ = nullptr;      // pinned, kNewtonSums: the last evalNewton's totals
  KernelShape step_shapes_[cuda::kStepKernelCount];
  KernelShape cg_shapes_[cuda::kCgKernelCount];
  // q = A p's variants at kFlatApplyBlock threads (or CudaOptions::apply_block), and the shapes
  // the loaded model's launched q = A p takes: those on a flat lattice's tiles, else cg_shapes_
  KernelShape flat_cg_shapes_[cuda::kCgKernelCount];
  bool flat_apply_ = false;
  const KernelShape* applyShapes() const { return flat_apply_ ? flat_cg_shapes_ : cg_shapes_; }
  KernelShape newton_shapes_[cuda::kNewtonKernelCount];

  // the loaded model
  bool loaded_ = false;
  uint32_t particles_ = 0, springs_ = 0;
  std::vector<glm::uvec2> spring_ends_;  // topology, to refuse updateModel changing it
  std::vector<uint8_t> pinned_;
  // item 15: the device order. ordered_: particles are not in the model's own order (every host
  // vector is then translated); springs_ordered_: springs are not (their parameters are). Item
  // 22 moves springs only.
  LocalityOrder order_;
  bool ordered_ = false;
  bool springs_ordered_ = false;
  mutable std::vector<glm::vec3> host_order_staging_;  // a vector in device order, on the host
  void* arena_ = nullptr;
  void* stage_arena_ = nullptr;  // item 18's halos, when the grid solve stages them
  // item 20's entries or item 22's stencil rows, when the launched q = A p reads them
  void* entries_arena_ = nullptr;
  Buffers buffers_;
  DeviceModel device_model_;
  DeviceSystem system_;
  CgVectors vectors_;
  Reduction reduction_;
  Launch explicit_, spring_prepare_, particle_prepare_, commit_, visual_;
  Launch apply_, update_, direction_;
  int direction_held_ = 0;  // item 26: particles per thread of the joined update; 0: two kernels
  bool alpha_in_update_ = false;  // item 38: α formed by the joined kernel's blocks
  int apply_lanes_ = 1;           // item 13: threads per particle of the launched q = A p
  int apply_batch_ = 1;           // item 16: entries whose loads its lanes issue together
  cuda::ApplyEntries entries_ = cuda::ApplyEntries::kPairs;  // items 20 and 22: what it reads
  int apply_mode_ = 0;  // with item 22's rows: kApplyTiled (item 23) | kApplyAhead (item 24)
  Launch spring_prepare_newton_, particle_prepare_newton_, newton_eval_, newton_trial_, bdf2_base_;
  Reduction newton_reduction_;
  int current_ = 0;  // x[current_], v[current_] hold the state; the other pair the previous one
  // the stream's L2 access-policy window during CG: item 6's persisting window over the constant
  // data, or item 39's streaming one over the offset blocks; no bytes: none
  struct L2Window {
    void* base = nullptr;
    size_t bytes = 0;
    bool persisting = false;
  } l2_window_;
  cuda::CudaPcg pcg_;
  // bdf2 (as CpuBackend): the state one step back is usable when the last step succeeded with
  // the same h; otherwise bdf2 starts with a backward-Euler step
  bool history_valid_ = false;
  float history_h_ = 0.0f;
  int64_t steps_since_load_ = 0;  // counted only for CudaOptions::fault_at_step

  // whole-CG paths (items 10, 11): shapes from init, the path and launch chosen at load
  bool one_block_ok_ = false, grid_ok_ = false;
  KernelShape one_block_shape_, grid_shape_, single_shape_;  // single: item 14's grid kernel
  bool single_ok_ = false;  // item 14's grid kernel can run on this device
  // grid_block 0: both grid kernels' 512-thread shapes, when both run 512 threads
  KernelShape grid512_shape_, single512_shape_;
  bool grid512_ok_ = false;
  bool staged_ok_ = false;         // item 18's kernel runs the shapes of item 14's
  bool staged_rows_ok_ = false;    // and item 27's, with CudaOptions::stage_rows
  bool single_reduction_ = false;  // the grid path runs item 14 for the loaded model
  size_t one_block_shared_ = 0;    // dynamic shared memory one block may take
  CgPath path_ = CgPath::kLaunches;
  Launch whole_launch_;
  int whole_lanes_ = 1;             // item 13: threads per particle of the whole-CG q = A p
  bool rows_by_direction_ = false;  // item 47: the CSR rows sorted by direction at load
  bool halo_colours_ = false;       // item 51: the halos' outside slots placed by bank
  cuda::WholeCg whole_;

  // read-back failures of the const methods, returned by the next step()
  mutable std::string deferred_error_;
  mutable std::vector<float4> staging_;
};

CudaBackend::~CudaBackend() {
  release();
  for (cudaEvent_t& event : events_) {
    if (event) cudaEventDestroy(event);
  }
  if (stream_) cudaStreamDestroy(stream_);
  if (host_scalars_) cudaFreeHost(host_scalars_);
  if (host_newton_) cudaFreeHost(host_newton_);
  cudaGetLastError();
}

void CudaBackend::release() {
  pcg_.configure(CgPlan{});
  if (arena_ || stage_arena_ || entries_arena_) cudaStreamSynchronize(stream_);
  if (arena_) cudaFree(arena_);
  if (stage_arena_) cudaFree(stage_arena_);
  if (entries_arena_) cudaFree(entries_arena_);
  arena_ = nullptr;
  stage_arena_ = nullptr;
  entries_arena_ = nullptr;
  entries_ = cuda::ApplyEntries::kPairs;
  device_model_.tiles = cuda::LatticeTiles{};
  apply_mode_ = 0;
  direction_held_ = 0;
  alpha_in_update_ = false;
  order_ = LocalityOrder{};
  ordered_ = springs_ordered_ = false;
  buffers_ = Buffers{};
  loaded_ = false;
  particles_ = springs_ = 0;
}

Status CudaBackend::init() {
  HOOKE_CUDA_TRY(cudaSetDevice(options_.device));
  HOOKE_CUDA_TRY(cudaGetDeviceProperties(&props_, options_.device));
  if (options_.check_interval < 1) {
    return Status::error("CudaOptions::check_interval must be at least 1");
  }
  const int lanes = options_.gather_lanes;
  if (lanes < 0 || lanes > 32 || (lanes & (lanes - 1)) != 0) {
    return Status::error(
        "CudaOptions::gather_lanes must be 0 (automatic) or a power of two from 1 "
        "to 32, not " +
        std::to_string(lanes));
  }
  if (options_.grid_block != 0 &&
      (options_.grid_block < 32 || options_.grid_block > 512 || options_.grid_block % 32 != 0)) {
    return Status::error(
        "CudaOptions::grid_block must be 0 (automatic) or a multiple of 32 from 32 to 512, not " +
        std::to_string(options_.grid_block));
  }
  if (options_.apply_block != 0 &&
      (options_.apply_block < 32 || options_.apply_block > 256 || options_.apply_block % 32 != 0)) {
    return Status::error(
        "CudaOptions::apply_block must be 0 (automatic) or a multiple of 32 from 32 to 256, not " +
        std::to_string(options_.apply_block));
  }
  if (options_.stage_springs < -1 || options_.stage_springs > 1) {
    return Status::error(
        "CudaOptions::stage_springs must be 0 (automatic), 1 (on) or -1 (off), not " +
        std::to_string(options_.stage_springs));
  }
  if (options_.fill_on_chip < -1 || options_.fill_on_chip > (kFillInverses | kFillRows)) {
    return Status::error(
        "CudaOptions::fill_on_chip must be -1 (automatic), 0 (off), 1 (P⁻¹ blocks), 2 (own rows) "
        "or 3 (both), not " +
        std::to_string(options_.fill_on_chip));
  }
  if (options_.stage_halo < -1 || options_.stage_halo > 1) {
    return Status::error("CudaOptions::stage_halo must be 0 (automatic), 1 (on) or -1 (off), not " +
                         std::to_string(options_.stage_halo));
  }
  if (!cuda::acceptableLatticeTile(options_.lattice_tile)) {
    return Status::error(
        "CudaOptions::lattice_tile must be 0, 0, 0 (automatic) or three powers "
        "of two from 1 to 1024 with a product of at most 65536, not " +
        std::to_string(options_.lattice_tile[0]) + ", " + std::to_string(options_.lattice_tile[1]) +
        ", " + std::to_string(options_.lattice_tile[2]));
  }
  if (options_.gather_batch != 0 && options_.gather_batch != 1 && options_.gather_batch != 3 &&
      options_.gather_batch != 4) {
    return Status::error("CudaOptions::gather_batch must be 0 (automatic), 1, 3 or 4, not " +
                         std::to_string(options_.gather_batch));
  }
  if (options_.fault_at_step < 0) {
    return Status::error("CudaOptions::fault_at_step must be 0 (off) or a step number");
  }
  cudaError_t step =
      cuda::queryStepKernels(options_.float4_layout, options_.prefer_l1, step_shapes_);
  cudaError_t newton =
      step == cudaSuccess
          ? cuda::queryNewtonKernels(options_.float4_layout, options_.prefer_l1, newton_shapes_)
          : step;
  cudaError_t cg = newton == cudaSuccess
                       ? cuda::queryCgKernels(options_.float4_layout, options_.prefer_l1,
                                              options_.apply_block, cg_shapes_)
                       : newton;
  // the shapes of q = A p's variants at kFlatApplyBlock threads, for flat lattices (load()); a
  // given block is the same everywhere
  if (cg == cudaSuccess && options_.apply_block == 0) {
    cg = cuda::queryCgKernels(options_.float4_layout, options_.prefer_l1, kFlatApplyBlock,
                              flat_cg_shapes_);
  } else {
    std::copy(std::begin(cg_shapes_), std::end(cg_shapes_), std::begin(flat_cg_shapes_));
  }
  if (cg != cudaSuccess) {
    cudaGetLastError();
    if (cg == cudaErrorNoKernelImageForDevice || cg == cudaErrorInvalidDeviceFunction ||
        cg == cudaErrorUnsupportedPtxVersion) {
      return Status::error(std::string("this build has no CUDA kernels for ") + props_.name +
                           " (compute capability " + std::to_string(props_.major) + "." +
                           std::to_string(props_.minor) +
                           "); rebuild with CMAKE_CUDA_ARCHITECTURES including " +
                           std::to_string(props_.major * 10 + props_.minor));
    }
    return cuda::cudaStatus(cg, "querying the kernels", __FILE__, __LINE__);
  }
  // the whole-CG kernels: both variants of this layout (and ablation, for the benchmark)
  size_t unused_shared = 0;
  if (!options_.hold_entries && options_.ablate_static != 0) {
    return Status::error(
        "CudaOptions::hold_entries off is compiled without ablate_static only (got " +
        std::to_string(options_.ablate_static) + ")");
  }
  const bool held = options_.hold_entries;
  cudaError_t one = cuda::queryWholeCg(options_.float4_layout, true, false, held, false, false,
                                       options_.ablate_static, options_.prefer_l1, 0,
                                       &one_block_shape_, &one_block_shared_);
  cudaError_t grid = cuda::queryWholeCg(options_.float4_layout, false, false, held, false, false,
                                        options_.ablate_static, options_.prefer_l1,
                                        options_.grid_block, &grid_shape_, &unused_shared);
  cudaError_t single = cuda::queryWholeCg(options_.float4_layout, false, true, held, false, false,
                                          options_.ablate_static, options_.prefer_l1,
                                          options_.grid_block, &single_shape_, &unused_shared);
  cudaGetLastError();
  if (one == cudaErrorInvalidValue || grid == cudaErrorInvalidValue ||
      single == cudaErrorInvalidValue) {
    return Status::error("CudaOptions::ablate_static " + std::to_string(options_.ablate_static) +
                         " is not one of 0, 4, 5, 7, 8");
  }
  one_block_ok_ = one == cudaSuccess;
  grid_ok_ = grid == cudaSuccess && props_.cooperativeLaunch != 0 && grid_shape_.blocks_per_sm > 0;
  if (options_.grid_block > 0 && grid == cudaSuccess &&
      (grid_shape_.block != options_.grid_block ||
       (single == cudaSuccess && single_shape_.block != options_.grid_block))) {
    return Status::error("CudaOptions::grid_block " + std::to_string(options_.grid_block) +
                         " is more than this build of the grid kernel runs (" +
                         std::to_string(std::min(grid_shape_.block, single_shape_.block)) +
                         " threads per block)");
  }
  single_ok_ = grid_ok_ && single == cudaSuccess && single_shape_.blocks_per_sm > 0;
  // grid_block 0: the 512-thread shapes too, for the sizes where choosePath takes them
  grid512_ok_ = false;
  if (options_.grid_block == 0 && grid_ok_) {
    const cudaError_t grid512 = cuda::queryWholeCg(
        options_.float4_layout, false, false, held, false, false, options_.ablate_static,
        options_.prefer_l1, 512, &grid512_shape_, &unused_shared);
    const cudaError_t single512 = cuda::queryWholeCg(
        options_.float4_layout, false, true, held, false, false, options_.ablate_static,
        options_.prefer_l1, 512, &single512_shape_, &unused_shared);
    cudaGetLastError();
    grid512_ok_ = grid512 == cudaSuccess && grid512_shape_.block == 512 &&
                  grid512_shape_.blocks_per_sm > 0 &&
                  (!single_ok_ || (single512 == cudaSuccess && single512_shape_.block == 512 &&
                                   single512_shape_.blocks_per_sm > 0));
  }
  // item 18: compiled for item 14's kernel with held entries and no ablation; it must run the
  // blocks choosePath takes for that kernel (this also sets its carve-out, item 9). Whether it
  // holds as many of them per multiprocessor as the grid needs is checked at load, with its
  // shared memory
  staged_ok_ = false;
  staged_rows_ok_ = false;
  if (single_ok_ && held && options_.ablate_static == 0) {
    auto same = [&](bool rows, int grid_block, const KernelShape& single_shape) {
      KernelShape staged_shape;
      const cudaError_t staged =
          cuda::queryWholeCg(options_.float4_layout, false, true, true, true, rows, 0,
                             options_.prefer_l1, grid_block, &staged_shape, &unused_shared);
      cudaGetLastError();
      return staged == cudaSuccess && staged_shape.block == single_shape.block &&
             staged_shape.blocks_per_sm >= 1;
    };
    auto both = [&](bool rows) {
      return same(rows, options_.grid_block, single_shape_) &&
             (!grid512_ok_ || same(rows, 512, single512_shape_));
    };
    staged_ok_ = both(false);
    // item 27: its own kernel, the same shapes
    staged_rows_ok_ = staged_ok_ && options_.stage_rows && both(true);
  }
  HOOKE_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  for (cudaEvent_t& event : events_)
    HOOKE_CUDA_TRY(cudaEventCreate(&event));
  HOOKE_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&host_scalars_), sizeof(CgScalars)));
  *host_scalars_ = CgScalars{};
  HOOKE_CUDA_TRY(
      cudaMallocHost(reinterpret_cast<void**>(&host_newton_), cuda::kNewtonSums * sizeof(double)));
  std::fill(host_newton_, host_newton_ + cuda::kNewtonSums, 0.0);
  return Status::ok();
}

// Item 13: threads per particle for a gather over `particles` rows of `springs` × 2 entries
// (one_block: in a single block of shape.block threads); never more lanes than a row has entries
// on average (rounded up to a power of two), nor than 16. Items 13 and 16, from the H200 sweeps
// (bench/results, "lanes"): in one block, lanes double while twice as many threads fit the block;
// elsewhere they double while twice as many gather threads stay within kGatherThreadsPerSm per
// multiprocessor (65536 particles keep one lane: two, a second round of gathers on the cooperative
// grid, cost 1.4–1.5× per iteration); beyond that size the power of two nearest a third of the row,
// or with batched loads (item 16, the launched path) a sixth, so each lane has about six entries to
// batch.
int CudaBackend::lanesFor(const KernelShape& shape, bool one_block, size_t particles,
                          size_t springs, double row_share) const {
  if (options_.gather_lanes > 0) return options_.gather_lanes;
  if (particles == 0) return 1;
  const double per_particle = 2.0 * double(springs) / double(particles);
  int cap = 1;
  while (cap < 16 && double(cap) < per_particle)
    cap *= 2;
  int lanes = 1;
  if (one_block) {
    while (lanes < cap && particles * size_t(2 * lanes) <= size_t(shape.block))
      lanes *= 2;
    return lanes;
  }
  const size_t target = oneRound();
  if (particles <= target) {
    // Lanes past the largest power of two a row fills idle (16 on a 12-entry cloth row). That is
    // free while the grid stays small, but once the cap's threads pass half the target they are
    // a second block per multiprocessor at the barrier: the filled power of two then (cloth
    // 3136 and 4096 particles: 8 lanes, 13–14 % faster than 16 on the H200)
    int filled = 1;
    while (filled * 2 <= cap && double(filled * 2) <= per_particle)
      filled *= 2;
    const int most = particles * size_t(2 * cap) > target ? filled : cap;
    while (lanes < most && particles * size_t(2 * lanes) <= target)
      lanes *= 2;
  } else {
    // the power of two nearest row_share of the row, by ratio
    const double part = per_particle / row_share;
    while (lanes < cap && double(lanes) * 1.41421356 < part)
      lanes *= 2;
  }
  return std::min(lanes, cap);
}

bool CudaBackend::batchedApply(size_t particles) const {
  if (options_.gather_batch > 0) return options_.gather_batch > 1;
  return particles > oneRound();
}

// Item 16's batch when batched: two full batches of a lane's share of a row. 3 where a lane has
// at most 6 entries on average (cloth's 12 on 2 lanes), else 4 (the volume's 25 on 4 lanes: 6.3);
// 3 for rows on one lane through item 37's offset blocks (offset_walk: item 40's walk, where 4
// measured 1–2 % slower on the cloths and 4–8 % on the volumes at 262k–1M,
// bench/results/gpu-h200-2026-12-04-offset-walk.json).
// On the H200 3 was 5 % faster at 1M cloth particles and 4 3 % faster at 265k volume particles
// (bench/results/gpu-h200-2026-11-30-rejected-batch-sizes.json against -shape.json).
int CudaBackend::applyBatch(bool batched, size_t particles, size_t springs, int lanes,
                            bool offset_walk) const {
  if (!batched) return 1;
  if (options_.gather_batch > 1) return options_.gather_batch;
  if (offset_walk && lanes == 1) return cuda::kGatherBatchShort;
  const double per_lane =
      particles > 0 ? 2.0 * double(springs) / double(particles) / double(std::max(1, lanes)) : 0.0;
  return per_lane <= 2.0 * cuda::kGatherBatchShort ? cuda::kGatherBatchShort : cuda::kGatherBatch;
}

Launch CudaBackend::launchFor(const KernelShape& shape, size_t count) const {
  // grid-stride kernels: enough blocks to fill every multiprocessor once, no more than needed
  const size_t wanted = (count + size_t(shape.block) - 1) / size_t(shape.block);
  const size_t resident = size_t(shape.blocks_per_sm) * size_t(props_.multiProcessorCount);
  Launch launch;
  launch.block = shape.block;
  launch.grid = static_cast<int>(std::max<size_t>(1, std::min(wanted, resident)));
  return launch;
}

Status CudaBackend::validate(const Model& model) const {
  const size_t n = model.particleCount(), springs = model.springCount();
  if (model.pinned.size() != n) {
    return Status::error("model: " + std::to_string(model.pinned.size()) + " pinned flags for " +
                         std::to_string(n) + " particles");
  }
  if (model.rest_length.size() != springs || model.stiffness.size() != springs ||
      model.damping.size() != springs) {
    return Status::error("model: rest length, stiffness and damping need one value per spring");
  }
  if (n >= size_t(std::numeric_limits<int32_t>::max()) ||
      2 * springs >= size_t(std::numeric_limits<uint32_t>::max())) {
    return Status::error("model too large for the CUDA backend (" + std::to_string(n) +
                         " particles, " + std::to_string(springs) + " springs)");
  }
  for (size_t s = 0; s < springs; ++s) {
    // the scene files' rules (Model's comments); the packed system block (kernel_api.h) needs
    // a = h c + h² k min(1, L/l) >= 0
    const float k = model.stiffness[s], c = model.damping[s], rest = model.rest_length[s];
    if (!(std::isfinite(k) && k >= 0.0f) || !(std::isfinite(c) && c >= 0.0f) ||
        !(std::isfinite(rest) && rest > 0.0f)) {
      return Status::error("model: spring " + std::to_string(s) +
                           " needs finite k >= 0, c >= 0 and L > 0 (got k = " + std::to_string(k) +
                           ", c = " + std::to_string(c) + ", L = " + std::to_string(rest) + ")");
    }
    const glm::uvec2 e = model.spring_ends[s];
    if (e.x >= n || e.y >= n || e.x == e.y) {
      return Status::error("model: spring " + std::to_string(s) + " joins particles " +
                           std::to_string(e.x) + " and " + std::to_string(e.y) + " of " +
                           std::to_string(n));
    }
  }
  return Status::ok();
}

// host vectors are in model order, device vectors in the device order (item 15) and layout
Status CudaBackend::uploadVectors(void* device, const std::vector<glm::vec3>& host) {
  const size_t n = host.size();
  if (n == 0) return Status::ok();
  if (ordered_ && n != order_.particle.size()) {
    return Status::error("uploadVectors: expected one vector per particle");
  }
  auto source = [&](size_t d) -> const glm::vec3& {
    return host[ordered_ ? order_.particle[d] : d];
  };
  const void* from = host.data();
  size_t bytes = n * sizeof(float3);
  if (options_.float4_layout) {
    staging_.resize(n);
    for (size_t d = 0; d < n; ++d) {
      const glm::vec3& p = source(d);
      staging_[d] = float4{p.x, p.y, p.z, 0.0f};
    }
    from = staging_.data();
    bytes = n * sizeof(float4);
  } else if (ordered_) {
    host_order_staging_.resize(n);
    for (size_t d = 0; d < n; ++d)
      host_order_staging_[d] = source(d);
    from = host_order_staging_.data();
  }
  HOOKE_CUDA_TRY(cudaMemcpyAsync(device, from, bytes, cudaMemcpyHostToDevice, stream_));
  HOOKE_CUDA_TRY(cudaStreamSynchronize(stream_));  // the staging vectors are reused
  return Status::ok();
}

Status CudaBackend::downloadVectors(const void* device, size_t count, glm::vec3* host) const {
  if (count == 0) return Status::ok();
  if (ordered_ && count != order_.particle.size()) {
    return Status::error("downloadVectors: expected one vector per particle");
  }
  auto target = [&](size_t d) -> glm::vec3& { return host[ordered_ ? order_.particle[d] : d]; };
  if (!options_.float4_layout) {
    glm::vec3* to = host;
    if (ordered_) {
      host_order_staging_.resize(count);
      to = host_order_staging_.data();
    }
    HOOKE_CUDA_TRY(
        cudaMemcpyAsync(to, device, count * sizeof(float3), cudaMemcpyDeviceToHost, stream_));
    HOOKE_CUDA_TRY(cudaStreamSynchronize(stream_));
    if (ordered_) {
      for (size_t d = 0; d < count; ++d)
        target(d) = host_order_staging_[d];
    }
    return Status::ok();
  }
  staging_.resize(count);
  HOOKE_CUDA_TRY(cudaMemcpyAsync(staging_.data(), device, count * sizeof(float4),
                                 cudaMemcpyDeviceToHost, stream_));
  HOOKE_CUDA_TRY(cudaStreamSynchronize(stream_));
  for (size_t d = 0; d < count; ++d)
    target(d) = glm::vec3(staging_[d].x, staging_[d].y, staging_[d].z);
  return Status::ok();
}

// the model's per-particle and per-spring parameters, in the device order (item 15)
Status CudaBackend::uploadParameters(const Model& model) {
  const size_t n = model.particleCount(), springs = model.springCount();
  auto inOrder = [&](const std::vector<float>& values, bool moved,
                     const std::vector<uint32_t>& order) {
    if (!moved) return values;
    std::vector<float> out(values.size());
    for (size_t k = 0; k < out.size(); ++k)
      out[k] = values[order[k]];
    return out;
  };
  const std::vector<float> mass = inOrder(model.mass, ordered_, order_.particle);
  const std::vector<float> rest = inOrder(model.rest_length, springs_ordered_, order_.spring);
  const std::vector<float> stiffness = inOrder(model.stiffness, springs_ordered_, order_.spring);
  const std::vector<float> damping = inOrder(model.damping, springs_ordered_, order_.spring);
  HOOKE_CUDA_TRY(cudaMemcpyAsync(buffers_.mass, mass.data(), n * sizeof(float),
                                 cudaMemcpyHostToDevice, stream_));
  HOOKE_CUDA_TRY(cudaMemcpyAsync(buffers_.rest, rest.data(), springs * sizeof(float),
                                 cudaMemcpyHostToDevice, stream_));
  HOOKE_CUDA_TRY(cudaMemcpyAsync(buffers_.stiffness, stiffness.data(), springs * sizeof(float),
                                 cudaMemcpyHostToDevice, stream_));
  HOOKE_CUDA_TRY(cudaMemcpyAsync(buffers_.damping, damping.data(), springs * sizeof(float),
                                 cudaMemcpyHostToDevice, stream_));
  HOOKE_CUDA_TRY(cudaStreamSynchronize(stream_));
  device_model_.gravity = model.gravity;
  device_model_.drag = model.drag;
  return Status::ok();
}

CgPlan CudaBackend::cgPlan() const {
  CgPlan plan;
  plan.stream = stream_;
  plan.float4_layout = options_.float4_layout;
  plan.model = device_model_;
  plan.system = system_;
  plan.vectors = vectors_;
  plan.reduction = reduction_;
  plan.scalars = buffers_.scalars;
  plan.host_scalars = host_scalars_;
  plan.apply = apply_;
  plan.update = update_;
  plan.direction = direction_;
  plan.finish_threads = cg_shapes_[cuda::kFinishKernel].block;
  plan.check_interval = options_.check_interval;
  plan.use_graph = options_.cg_graph;
  plan.fused_finish = options_.fused_finish;
  plan.lanes = apply_lanes_;
  plan.batch = apply_batch_;
  plan.entries = entries_;
  plan.apply_mode = apply_mode_;
  plan.dv_in_direction = options_.dv_in_direction;
  plan.dependent = dependentLaunch();
  plan.direction_held = direction_held_;
  plan.alpha_in_update = alpha_in_update_;
  // item 33's barrier for item 26's joined kernel; off: cooperative groups' grid sync
  if (!options_.last_arrival) plan.reduction.arrived = nullptr;
  // item 41: the joined kernel's β formed once and released (where it forms α, item 38); off: by
  // every block after a barrier
  if (!options_.beta_once || !alpha_in_update_) plan.reduction.release = nullptr;
  return plan;
}

Status CudaBackend::load(const Model& model, const State& state) {
  const size_t n = model.particleCount(), springs = model.springCount();
  if (state.x.size() != n || state.v.size() != n) {
    return Status::error("state does not match the model's particle count");
  }
  HOOKE_TRY(validate(model));
  deferred_error_.clear();
  HOOKE_CUDA_TRY(cudaSetDevice(options_.device));
  release();

  // the CG path and the launched q = A p's lanes and batches, from the sizes alone
  HOOKE_TRY(choosePath(n, springs));
  flat_apply_ = false;
  const bool batched = batchedApply(n);
  auto chooseLanes = [&](double row_share, bool offset_walk = false) {
    apply_lanes_ = lanesFor(cg_shapes_[cuda::kApplyKernel], false, n, springs, row_share);
    apply_batch_ = applyBatch(batched, n, springs, apply_lanes_, offset_walk);
  };
  chooseLanes(batched ? kBatchedRowShare : kRowShare);
  const bool launched_batches = path_ == CgPath::kLaunches && apply_batch_ > 1;

  // item 15: the device order of particles and springs; every spring keeps its orientation.
  // Item 22 first: a model whose springs join particles at a few index offsets keeps its particle
  // order (a Morton order would scatter the offsets), springs by their ends. release() has left
  // the model's own order.
  std::vector<glm::uvec2> ends = model.spring_ends;  // in device springs and particle slots
  auto reorder = [&](LocalityOrder order) {
    order_ = std::move(order);
    ordered_ = order_.particlesMove();
    springs_ordered_ = order_.springsMove();
    for (size_t s = 0; s < springs; ++s) {
      const glm::uvec2 e = model.spring_ends[order_.spring[s]];
      ends[s] = glm::uvec2(order_.slot[e.x], order_.slot[e.y]);
    }
  };
  cuda::StencilRows stencil;
  if (options_.stencil_rows && launched_batches && n > 0) {
    reorder(springsByEnds(model));
    if (!cuda::buildStencilRows(ends, n, &stencil)) {
      order_ = LocalityOrder{};
      ordered_ = springs_ordered_ = false;
      ends = model.spring_ends;
    }
  }
  if (stencil.meta.empty() && options_.locality_order && n > 0)
    reorder(localityOrder(model, state.x));
  // item 23: stencil rows of a lattice in tiles of one block's rows per round (in the shape of
  // the tiled kernel), with fewer lanes per row: a tile's rows share what L1 holds, and a lane's
  // longer share of a row keeps more loads in flight
  // item 37: the spring blocks again in offset blocks, where every spring's place fits 32 bits
  // (and where they take at most a quarter of the device's free memory: a model that fits without
  // them is not refused for them)
  std::vector<uint32_t> spring_slot;
  if (!stencil.meta.empty() && options_.offset_blocks &&
      cuda::offsetBlockSlots(ends, n, stencil.offsets, &spring_slot)) {
    size_t free_bytes = 0, total_bytes = 0;
    const size_t wanted = stencil.offsets.size() * n * sizeof(float4) + springs * sizeof(uint32_t);
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess || wanted > free_bytes / 4) {
      cudaGetLastError();
      spring_slot.clear();
    }
  }
  // item 24 only without item 37: with the offset blocks a row's addresses follow from the row
  // alone, and the word ahead only holds registers (on the H200, tiled on one lane, 5 % slower at
  // the 265k volume and within 1 % at 262k cloth and 1M: 48.97 against 46.55, 28.95 / 29.16,
  // 92.14 / 91.98, 140.50 / 141.03 µs per iteration: "launches-behind" against "launches-graph"
  // in bench/results/gpu-h200-2026-12-03-offset-blocks-final.json, the runs before this rule)
  const int walk = spring_slot.empty() ? (options_.stencil_ahead ? cuda::kApplyAhead : 0)
                                       : cuda::kApplyOffsetBlocks;
  cuda::LatticeTiles tiles;
  uint32_t dims[3];
  if (!stencil.meta.empty() && options_.lattice_tiles &&
      cuda::latticeOfOffsets(stencil.offsets, n, dims)) {
    chooseLanes(spring_slot.empty() ? kTiledRowShare : kOffsetTiledRowShare, !spring_slot.empty());
    flat_apply_ = dims[2] <= 1;  // kFlatApplyBlock
    uint32_t tile[3];
    if (options_.lattice_tile[0] > 0) {  // acceptableLatticeTile at init()
      for (int a = 0; a < 3; ++a)
        tile[a] = uint32_t(options_.lattice_tile[a]);
    } else {
      // a tile of the largest power of two of rows within the kernel's block: the occupancy query
      // may give a block that is not a power of two (224 threads on the H200 before item 40),
      // whose rounds then cover a tile and part of the next instead of running untiled
      const KernelShape& shape =
          applyShapes()[cuda::stencilKernelId(cuda::kApplyTiled | walk, apply_batch_)];
      const uint32_t most = dims[2] <= 1
                                ? uint32_t(shape.block / apply_lanes_)
                                : std::min(uint32_t(shape.block / apply_lanes_), kVolumeTileRows);
      uint32_t rows = 1;
      while (rows * 2 <= most)
        rows *= 2;
      cuda::automaticTile(dims, rows, uint32_t(apply_lanes_), tile);
    }
    if (!cuda::makeLatticeTiles(dims, tile, &tiles)) {
      tiles = cuda::LatticeTiles{};
      chooseLanes(kBatchedRowShare, !spring_slot.empty());
      flat_apply_ = false;
    }
  } else if (!spring_slot.empty()) {
    chooseLanes(kBatchedRowShare, true);  // untiled: item 40's batch where the lanes are one
  }

  // CSR adjacency, particle -> its springs in increasing (device) spring order (item 47: by
  // direction, below), the order of every gather's sum, each with the other end and which end
  // this particle is
  static_assert(sizeof(int2) == 2 * sizeof(int32_t));  // the adjacency as int32_t pairs
  std::vector<uint32_t> row_start;
  std::vector<int2> adjacency(2 * springs);
  cuda::buildAdjacency(n, ends, &row_start, reinterpret_cast<int32_t*>(adjacency.data()));
  // item 47: on item 14's grid with its rows on one lane in one round, each row's entries by the
  // direction of their other end at load, so that a warp's rows mostly read the same neighbour
  // direction at the same entry (item 27's staged neighbours then meet fewer bank conflicts)
  rows_by_direction_ = options_.rows_by_direction && path_ == CgPath::kGrid && single_reduction_ &&
                       whole_lanes_ == 1 &&
                       n <= size_t(whole_launch_.grid) * size_t(whole_launch_.block) &&
                       cuda::sortRowsByDirection(
                           [&] {
                             std::vector<glm::vec3> x(n);
                             for (size_t d = 0; d < n; ++d)
                               x[d] = state.x[ordered_ ? order_.particle[d] : d];
                             return x;
                           }(),
                           row_start, reinterpret_cast<int32_t*>(adjacency.data()));
  std::vector<float> free_mask(n);
  std::vector<uint32_t> slots(n);  // model particle -> device slot, for the interop writer
  for (size_t k = 0; k < n; ++k) {
    free_mask[k] = model.pinned[ordered_ ? order_.particle[k] : k] ? 0.0f : 1.0f;
    slots[k] = ordered_ ? order_.slot[k] : static_cast<uint32_t>(k);
  }

  // launch shapes from this device's occupancy, then the memory plan
  explicit_ = launchFor(step_shapes_[cuda::kExplicitKernel], n);
  spring_prepare_ = launchFor(step_shapes_[cuda::kSpringPrepareKernel], springs);
  particle_prepare_ = launchFor(step_shapes_[cuda::kParticlePrepareKernel], n);
  commit_ = launchFor(step_shapes_[cuda::kCommitKernel], n);
  visual_ = launchFor(step_shapes_[cuda::kVisualKernel], n);
  update_ = launchFor(cg_shapes_[cuda::kUpdateKernel], n);
  direction_ = launchFor(cg_shapes_[cuda::kDirectionKernel], n);
  spring_prepare_newton_ = launchFor(step_shapes_[cuda::kSpringPrepareNewtonKernel], springs);
  particle_prepare_newton_ = launchFor(step_shapes_[cuda::kParticlePrepareNewtonKernel], n);
  newton_eval_ = launchFor(newton_shapes_[cuda::kNewtonEvalKernel], std::max(n, springs));
  newton_trial_ = launchFor(newton_shapes_[cuda::kNewtonTrialKernel], n);
  bdf2_base_ = launchFor(newton_shapes_[cuda::kBdf2BaseKernel], n);
  // items 22 and 20: the launched q = A p's stencil rows, else its 4-byte entries; the launch
  // shape of the variant it runs
  cuda::CompactEntries compact;
  entries_ =
      !stencil.meta.empty() ? cuda::ApplyEntries::kStencil
      : options_.compact_entries && launched_batches &&
              cuda::buildCompactEntries(
                  ends, row_start, reinterpret_cast<const int32_t*>(adjacency.data()), &compact)
          ? cuda::ApplyEntries::kCompact
          : cuda::ApplyEntries::kPairs;
  const bool short_batch = apply_batch_ == cuda::kGatherBatchShort;
  cuda::CgKernelId apply_kernel = cuda::kApplyKernel;
  apply_mode_ = 0;
  if (entries_ == cuda::ApplyEntries::kStencil) {
    // item 24's words a round ahead, item 23's tiles where found above
    apply_mode_ = walk | (tiles.slots != 0 ? cuda::kApplyTiled : 0);
    apply_kernel = cuda::stencilKernelId(apply_mode_, apply_batch_);
  } else if (entries_ == cuda::ApplyEntries::kCompact) {
    apply_kernel = short_batch ? cuda::kApplyCompact3Kernel : cuda::kApplyCompactKernel;
  } else if (apply_batch_ > 1) {
    apply_kernel = short_batch ? cuda::kApplyBatched3Kernel : cuda::kApplyBatchedKernel;
  }
  apply_ = launchFor(applyShapes()[apply_kernel],
                     size_t(tiles.slots != 0 ? tiles.slots : n) * size_t(apply_lanes_));
  // item 26: the update and the direction as one cooperative launch of the update's shape, where
  // every block of it stays resident with its threads' z and p in shared memory, and where item
  // 21 is off: two dependent launches overlap each one's start with the last one's tail, which a
  // cooperative launch cannot (on the H200 the joined kernel was 1–18 % slower per iteration than
  // the two dependent kernels up to 16k particles, 3–9 % faster than the two plain ones from 65k:
  // bench/results/gpu-h200-2026-12-02-joined.json, paths). Item 38 in it where the joined block
  // holds q = A p's finishing block and its variant stays resident; else the joined kernel
  // without it, if that one does.
  direction_held_ = 0;
  alpha_in_update_ = false;
  if (options_.direction_in_update && options_.fused_finish && props_.cooperativeLaunch != 0 &&
      !dependentLaunch(n) && n > 0) {
    const size_t threads = size_t(update_.grid) * size_t(update_.block);
    const int held = static_cast<int>((n + threads - 1) / threads);
    auto resident = [&](bool alpha) {
      int per_sm = 0;
      const cudaError_t e = cuda::updateDirectionResidency(options_.float4_layout, update_.block,
                                                           held, alpha, &per_sm);
      cudaGetLastError();  // refused: not this variant
      return e == cudaSuccess &&
             size_t(per_sm) * size_t(props_.multiProcessorCount) >= size_t(update_.grid);
    };
    alpha_in_update_ = options_.alpha_in_update && apply_.block <= update_.block && resident(true);
    if (alpha_in_update_ || resident(false)) direction_held_ = held;
  }
  // one allocation: own_start then the entries (item 20), or the stencil rows (item 22) and with
  // them item 37's places and offset blocks
  const size_t compact_start_bytes = compact.own_start.size() * sizeof(uint32_t);
  const size_t stencil_bytes = stencil.meta.size() * sizeof(uint32_t);
  const size_t slot_bytes = spring_slot.size() * sizeof(uint32_t);
  // with one zero block past the last offset's (item 40)
  const size_t offset_block_bytes =
      spring_slot.empty() ? 0 : (stencil.offsets.size() * n + 1) * sizeof(float4);
  const size_t entries_bytes =
      entries_ == cuda::ApplyEntries::kStencil
          ? (spring_slot.empty() ? stencil_bytes
                                 : alignUp(stencil_bytes, kAlignment) +
                                       alignUp(slot_bytes, kAlignment) + offset_block_bytes)
          : alignUp(compact_start_bytes, kAlignment) + compact.entries.size() * sizeof(uint32_t);
  const int whole_grid = path_ == CgPath::kGrid ? whole_launch_.grid : 1;
  // item 18: the halos of item 14's grid, when every one fits its block's shared memory
  static_assert(sizeof(int2) == 2 * sizeof(int32_t) && sizeof(uint2) == 2 * sizeof(uint32_t));
  cuda::StagedHalo halo;
  bool stage_rows = false;                             // item 27
  bool fill_kept_rows = false, fill_inverses = false;  // item 43
  bool rows_in_registers = false;                      // item 45
  bool entry_columns = false;                          // item 46
  uint32_t column_words = 0;                           // item 46: its area, in words
  uint32_t spring_slots = 0;  // item 31: > 0 where the block's springs are staged once each
  int stage_carveout = -1;  // what the last prepareStagedKernel below set: the launch sets it again
  const double row_entries = n > 0 ? 2.0 * double(springs) / double(n) : 0.0;
  const bool stage_by_rule =
      options_.stage_halo > 0 ||
      (options_.stage_halo == 0 && (row_entries >= kStagedMinEntries ||
                                    row_entries > kStagedLaneEntries * double(whole_lanes_)));
  // automatic: also wherever item 27 runs (its entries staged, one round of rows), which on the
  // H200 beat the unstaged kernel on every such grid, short rows on many lanes too
  const bool stage_for_rows = options_.stage_halo == 0 && options_.stage_entries && staged_rows_ok_;
  const bool stage_wanted = stage_by_rule || stage_for_rows;
  bool staged = path_ == CgPath::kGrid && single_reduction_ && stage_wanted && staged_ok_ &&
                cuda::buildStagedHalo(static_cast<uint32_t>(whole_launch_.grid),
                                      static_cast<uint32_t>(whole_launch_.block),
                                      static_cast<uint32_t>(whole_lanes_), row_start,
                                      reinterpret_cast<const int32_t*>(adjacency.data()),
                                      kStagedMaxSlots, &halo);
  // item 51: the outside slots placed against the u' loads' bank conflicts (one round of rows);
  // the fill's warps start at the outside slots where item 45 would keep the own rows (one lane),
  // which only steers where a sector's two particles go
  bool halo_coloured =
      staged && options_.halo_colours && halo.entry_slots > 0 &&
      cuda::colourStagedHalo(static_cast<uint32_t>(whole_launch_.block),
                             static_cast<uint32_t>(whole_lanes_), row_start,
                             options_.rows_in_registers && whole_lanes_ == 1, &halo);
  if (staged) {
    // every block resident with its halo, as the cooperative launch needs, or not staged: a
    // smaller grid would gather other rows than the halos were built for
    // (with the entries too when they fit, else the halos only)
    const int grid = whole_launch_.grid, sms = props_.multiProcessorCount;
    const uint32_t own_rows = static_cast<uint32_t>(whole_launch_.block / whole_lanes_);
    // item 45: item 27's rows on one lane keep their values in registers (no own rows' area)
    const bool registers_wanted = options_.rows_in_registers && whole_lanes_ == 1;
    // item 46: item 27's walk of item 31's words by thread column, the springs coloured for it;
    // the columns take the most entries a thread walks (past its held ones) times the block. Only
    // where a thread walks kColumnsMinWalked entries or more: on the H200 fewer measured 1–2.5 %
    // slower (cloth 128 on 4 lanes walks 1, volume 26 on 8 lanes 2)
    const uint32_t lanes = static_cast<uint32_t>(whole_lanes_);
    const uint32_t walked_from = uint32_t(cuda::kGridHeldEntries);
    uint32_t longest = 0;  // a thread's entries: its share of the longest row
    for (size_t i = 0; i < n; ++i)
      longest = std::max(longest, (row_start[i + 1] - row_start[i] + lanes - 1) / lanes);
    const bool columns_wanted = options_.entry_columns && options_.paired_walk &&
                                options_.stage_springs >= 0 && halo.spring_slots > 0 &&
                                halo.entry_slots > 0 &&
                                longest >= walked_from + uint32_t(kColumnsMinWalked) &&
                                cuda::colourStagedSprings(uint32_t(whole_launch_.block), lanes,
                                                          row_start, walked_from, &halo);
    if (columns_wanted) column_words = (longest - walked_from) * uint32_t(whole_launch_.block);
    bool columns_on = columns_wanted;  // cleared where the columns do not fit but the words do
    auto fitsAs = [&](uint32_t entry_slots, bool rows, uint32_t springs_once, bool kept_rows,
                      bool inverses) {
      const bool columns = rows && columns_on && springs_once > 0;
      if (columns) entry_slots = column_words;
      int per_sm = 0;
      const cudaError_t prepared = cuda::prepareStagedKernel(
          options_.float4_layout, rows, rows && registers_wanted, columns, whole_launch_.block,
          cuda::stagedHaloBytes(halo.slots, entry_slots, rows ? own_rows : 0u, springs_once,
                                kept_rows, inverses, rows && registers_wanted),
          (grid + sms - 1) / sms, options_.prefer_l1, &per_sm, &stage_carveout);
      cudaGetLastError();
      return prepared == cudaSuccess && size_t(per_sm) * size_t(sms) >= size_t(grid);
    };
    // item 27 with as much of item 43 as its shared memory holds: the bits asked for, else the
    // P⁻¹ blocks alone, else the kept rows alone, else neither
    auto fits = [&](uint32_t entry_slots, bool rows, uint32_t springs_once = 0) {
      const int automatic =
          kFillInverses | (own_rows >= uint32_t(kFillRowsMinRows) ? kFillRows : 0);
      // (with item 45 the own rows are kept in registers: bit kFillRows has nothing to keep)
      const int wanted = (!rows                       ? 0
                          : options_.fill_on_chip < 0 ? automatic
                                                      : options_.fill_on_chip) &
                         (registers_wanted ? ~kFillRows : ~0);
      const int tries[3] = {wanted, wanted & kFillInverses, wanted & kFillRows};
      for (int k = 0; k < 3; ++k) {
        const int bits = tries[k];
        if (bits == 0 || (k > 0 && bits == wanted)) continue;  // nothing, or tried already
        fill_inverses = (bits & kFillInverses) != 0;
        fill_kept_rows = (bits & kFillRows) != 0;
        if (fitsAs(entry_slots, rows, springs_once, fill_kept_rows, fill_inverses)) return true;
      }
      fill_kept_rows = fill_inverses = false;
      return fitsAs(entry_slots, rows, springs_once, false, false);
    };
    const bool entries_wanted = options_.stage_entries && halo.entry_slots > 0;
    // (item 31) each spring of the block once and a 4-byte word per entry wherever that fits,
    // else (automatic) the entries at 20 bytes each: with each form's walk in a kernel of its own,
    // item 31 measured 0–1 % either way up to 16k particles and 7 % faster at cloth 256
    // (bench/results/gpu-h200-2026-12-03-barrier.json, "paths": grid-springs-once)
    const bool springs_ok = options_.stage_springs >= 0 && halo.spring_slots > 0;
    const bool wide_ok = options_.stage_springs <= 0 && halo.entry_slots <= kStagedMaxEntries;
    auto entriesFit = [&](bool rows) {
      if (springs_ok && fits(halo.entry_slots, rows, halo.spring_slots)) {
        spring_slots = halo.spring_slots;
        return true;
      }
      // item 46's columns take the longest thread's share times the block: where one long row
      // makes them too large, item 31's words in CSR order (the coloured places serve them too)
      if (springs_ok && rows && columns_on) {
        columns_on = false;
        if (fits(halo.entry_slots, rows, halo.spring_slots)) {
          spring_slots = halo.spring_slots;
          return true;
        }
      }
      spring_slots = 0;
      return wide_ok && fits(halo.entry_slots, rows);
    };
    // item 27 needs the entries staged (one round of rows); without it, the entries alone
    stage_rows = entries_wanted && staged_rows_ok_ && entriesFit(true);
    if (!stage_rows && (!entries_wanted || !entriesFit(false))) {
      halo.entry_slots = 0;
      spring_slots = 0;
    }
    staged = (stage_rows || stage_by_rule) && (halo.entry_slots > 0 || fits(0, false));
    if (!staged) {
      halo = cuda::StagedHalo{};
      stage_rows = false;
      spring_slots = 0;
      halo_coloured = false;
    }
    fill_kept_rows = fill_kept_rows && stage_rows;
    fill_inverses = fill_inverses && stage_rows;
    rows_in_registers = registers_wanted && stage_rows;
    entry_columns = columns_on && stage_rows && spring_slots > 0;
  }
  halo_colours_ = halo_coloured;
  if (spring_slots == 0) {  // item 31's lists only where they are used
    halo.spring_start.clear();
    halo.springs.clear();
    halo.words.clear();
  }
  const size_t stage_start_bytes = halo.start.size() * sizeof(uint32_t);
  const size_t stage_halo_bytes = halo.halo.size() * sizeof(uint32_t);
  const size_t stage_entries_bytes = halo.entries.size() * sizeof(uint32_t);
  const size_t spring_start_bytes = halo.spring_start.size() * sizeof(uint32_t);
  const size_t springs_bytes = halo.springs.size() * sizeof(uint32_t);
  const size_t words_bytes = halo.words.size() * sizeof(uint32_t);
  const size_t stage_bytes =
      alignUp(stage_start_bytes, kAlignment) + alignUp(stage_halo_bytes, kAlignment) +
      alignUp(stage_entries_bytes, kAlignment) + alignUp(spring_start_bytes, kAlignment) +
      alignUp(springs_bytes, kAlignment) + words_bytes;
  const size_t stride =
      size_t(std::max({particle_prepare_.grid, apply_.grid, update_.grid, whole_grid,
                       particle_prepare_newton_.grid, newton_eval_.grid}));

  // the whole plan against the free memory before anything is allocated, with a headroom for the
  // context, graphs and other users of the device
  const size_t needed =
      cudaModelBytes(n, springs, options_.float4_layout, stride) + stage_bytes + entries_bytes;
  size_t free_bytes = 0, total_bytes = 0;
  HOOKE_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t reserve = std::max(32 * kMiB, total_bytes / 100);
  if (needed + reserve > free_bytes) {
    return Status::error("the scene needs " + mib(needed + reserve) + " of device memory, " +
                         mib(free_bytes) + " free on " + props_.name + " (" + mib(needed) +
                         " of buffers for " + std::to_string(n) + " particles and " +
                         std::to_string(springs) + " springs)");
  }
  const Buffers plan = layoutBuffers(0, n, springs, options_.float4_layout, stride);
  cudaError_t allocated = cudaMalloc(&arena_, plan.total_bytes);
  if (allocated != cudaSuccess) {
    cudaGetLastError();
    arena_ = nullptr;
    return Status::error("could not allocate " + mib(plan.total_bytes) + " on " + props_.name +
                         ": " + cudaGetErrorString(allocated));
  }
  buffers_ = layoutBuffers(reinterpret_cast<uintptr_t>(arena_), n, springs, options_.float4_layout,
                           stride);
  const Buffers& b = buffers_;
  uint32_t* stage_start = nullptr;
  uint32_t* stage_halo = nullptr;
  uint2* stage_entries = nullptr;
  uint32_t *stage_spring_start = nullptr, *stage_springs = nullptr, *stage_words = nullptr;
  if (staged) {
    allocated = cudaMalloc(&stage_arena_, stage_bytes);
    if (allocated != cudaSuccess) {
      cudaGetLastError();
      stage_arena_ = nullptr;
      return Status::error("could not allocate " + mib(stage_bytes) + " on " + props_.name + ": " +
                           cudaGetErrorString(allocated));
    }
    const uintptr_t base = reinterpret_cast<uintptr_t>(stage_arena_);
    stage_start = reinterpret_cast<uint32_t*>(base);
    stage_halo = reinterpret_cast<uint32_t*>(base + alignUp(stage_start_bytes, kAlignment));
    stage_entries = reinterpret_cast<uint2*>(base + alignUp(stage_start_bytes, kAlignment) +
                                             alignUp(stage_halo_bytes, kAlignment));
    HOOKE_CUDA_TRY(cudaMemcpyAsync(stage_start, halo.start.data(), stage_start_bytes,
                                   cudaMemcpyHostToDevice, stream_));
    HOOKE_CUDA_TRY(cudaMemcpyAsync(stage_halo, halo.halo.data(), stage_halo_bytes,
                                   cudaMemcpyHostToDevice, stream_));
    HOOKE_CUDA_TRY(cudaMemcpyAsync(stage_entries, halo.entries.data(), stage_entries_bytes,
                                   cudaMemcpyHostToDevice, stream_));
    if (spring_slots > 0) {
      uintptr_t at =
          reinterpret_cast<uintptr_t>(stage_entries) + alignUp(stage_entries_bytes, kAlignment);
      stage_spring_start = reinterpret_cast<uint32_t*>(at);
      at += alignUp(spring_start_bytes, kAlignment);
      stage_springs = reinterpret_cast<uint32_t*>(at);
      at += alignUp(springs_bytes, kAlignment);
      stage_words = reinterpret_cast<uint32_t*>(at);
      HOOKE_CUDA_TRY(cudaMemcpyAsync(stage_spring_start, halo.spring_start.data(),
                                     spring_start_bytes, cudaMemcpyHostToDevice, stream_));
      HOOKE_CUDA_TRY(cudaMemcpyAsync(stage_springs, halo.springs.data(), springs_bytes,
                                     cudaMemcpyHostToDevice, stream_));
      HOOKE_CUDA_TRY(cudaMemcpyAsync(stage_words, halo.words.data(), words_bytes,
                                     cudaMemcpyHostToDevice, stream_));
    }
  }

  device_model_.own_start = nullptr;
  device_model_.compact = nullptr;
  device_model_.stencil = nullptr;
  device_model_.stencil_count = 0;
  device_model_.spring_slot = nullptr;
  float4* offset_block = nullptr;
  device_model_.tiles = cuda::LatticeTiles{};
  if (entries_ != cuda::ApplyEntries::kPairs) {
    allocated = cudaMalloc(&entries_arena_, entries_bytes);
    if (allocated != cudaSuccess) {
      cudaGetLastError();
      entries_arena_ = nullptr;
      entries_ = cuda::ApplyEntries::kPairs;
      return Status::error("could not allocate " + mib(entries_bytes) + " on " + props_.name +
                           ": " + cudaGetErrorString(allocated));
    }
    const uintptr_t base = reinterpret_cast<uintptr_t>(entries_arena_);
    if (entries_ == cuda::ApplyEntries::kStencil) {
      device_model_.stencil = reinterpret_cast<const uint2*>(base);
      device_model_.stencil_count = static_cast<uint32_t>(stencil.offsets.size());
      std::copy(stencil.offsets.begin(), stencil.offsets.end(), device_model_.stencil_offsets);
      device_model_.tiles = tiles;
      HOOKE_CUDA_TRY(cudaMemcpyAsync(entries_arena_, stencil.meta.data(), stencil_bytes,
                                     cudaMemcpyHostToDevice, stream_));
      if (!spring_slot.empty()) {
        const uintptr_t slots_at = base + alignUp(stencil_bytes, kAlignment);
        device_model_.spring_slot = reinterpret_cast<const uint32_t*>(slots_at);
        offset_block = reinterpret_cast<float4*>(slots_at + alignUp(slot_bytes, kAlignment));
        HOOKE_CUDA_TRY(cudaMemcpyAsync(reinterpret_cast<void*>(slots_at), spring_slot.data(),
                                       slot_bytes, cudaMemcpyHostToDevice, stream_));
        // places of absent springs (and the zero place past them) read as zero blocks (item 40)
        HOOKE_CUDA_TRY(cudaMemsetAsync(offset_block, 0, offset_block_bytes, stream_));
      }
    } else {
      device_model_.own_start = reinterpret_cast<const uint32_t*>(base);
      device_model_.compact =
          reinterpret_cast<const uint32_t*>(base + alignUp(compact_start_bytes, kAlignment));
      HOOKE_CUDA_TRY(cudaMemcpyAsync(entries_arena_, compact.own_start.data(), compact_start_bytes,
                                     cudaMemcpyHostToDevice, stream_));
      HOOKE_CUDA_TRY(cudaMemcpyAsync(
          const_cast<uint32_t*>(device_model_.compact), compact.entries.data(),
          compact.entries.size() * sizeof(uint32_t), cudaMemcpyHostToDevice, stream_));
    }
  }

  HOOKE_CUDA_TRY(cudaMemsetAsync(arena_, 0, b.total_bytes, stream_));
  HOOKE_CUDA_TRY(cudaMemcpyAsync(b.adjacency, adjacency.data(), adjacency.size() * sizeof(int2),
                                 cudaMemcpyHostToDevice, stream_));
  HOOKE_CUDA_TRY(cudaMemcpyAsync(b.row_start, row_start.data(), row_start.size() * sizeof(uint32_t),
                                 cudaMemcpyHostToDevice, stream_));
  HOOKE_CUDA_TRY(cudaMemcpyAsync(b.free_mask, free_mask.data(), n * sizeof(float),
                                 cudaMemcpyHostToDevice, stream_));
  static_assert(sizeof(glm::uvec2) == sizeof(uint2));
  HOOKE_CUDA_TRY(cudaMemcpyAsync(b.ends, ends.data(), springs * sizeof(uint2),
                                 cudaMemcpyHostToDevice, stream_));
  HOOKE_CUDA_TRY(cudaMemcpyAsync(b.slots, slots.data(), n * sizeof(uint32_t),
                                 cudaMemcpyHostToDevice, stream_));
  HOOKE_TRY(uploadParameters(model));

  // the state, with pinned velocities zeroed as the CPU backend does; previous = current
  std::vector<glm::vec3> v = state.v;
  for (size_t i = 0; i < n; ++i) {
    if (model.pinned[i]) v[i] = glm::vec3(0.0f);
  }
  for (int k = 0; k < 2; ++k) {
    HOOKE_TRY(uploadVectors(b.x[k], state.x));
    HOOKE_TRY(uploadVectors(b.v[k], v));
  }
  HOOKE_CUDA_TRY(cudaStreamSynchronize(stream_));

  device_model_.particles = static_cast<uint32_t>(n);
  device_model_.springs = static_cast<uint32_t>(springs);
  device_model_.mass = b.mass;
  device_model_.free_mask = b.free_mask;
  device_model_.row_start = b.row_start;
  device_model_.adjacency = b.adjacency;
  device_model_.ends = b.ends;
  device_model_.rest = b.rest;
  device_model_.stiffness = b.stiffness;
  device_model_.damping = b.damping;
  system_ = DeviceSystem{b.spring_force, b.spring_kv, b.block, b.diag, b.inv_diag, offset_block};
  vectors_ = CgVectors{b.dv, b.r, b.z, b.p, b.q};
  reduction_ = Reduction{b.partials, static_cast<int>(stride), b.arrived, b.release};
  newton_reduction_ = Reduction{b.newton_partials, static_cast<int>(stride)};

  // L2 persisting window over CG's read-only data (item 6): rounded up to 128 KiB, capped at the
  // device's persisting maximum, its largest window and a quarter of L2. Unsupported: go without.
  l2_window_ = L2Window{};
  if (options_.l2_persist) {  // item 6 has the stream's window (where unsupported: no window)
    if (props_.persistingL2CacheMaxSize > 0 && props_.accessPolicyMaxWindowSize > 0) {
      size_t window = alignUp(b.constant_bytes, kL2WindowGranule);
      window = std::min({window, size_t(props_.persistingL2CacheMaxSize),
                         size_t(props_.accessPolicyMaxWindowSize), size_t(props_.l2CacheSize) / 4});
      if (window > 0 && cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, window) == cudaSuccess) {
        l2_window_ = L2Window{arena_, window, true};
      }
      cudaGetLastError();
    }
  } else if (offset_block != nullptr && props_.accessPolicyMaxWindowSize > 0 &&
             streamBlocks(n, options_.float4_layout)) {
    // item 39: as much of the offset blocks as one window holds (on the H200's 128 MiB all of a
    // cloth's up to 1.4M particles, a volume's up to 645k: the 1M volume's first 60 % when forced)
    l2_window_ =
        L2Window{offset_block,
                 std::min(offset_block_bytes, size_t(props_.accessPolicyMaxWindowSize)), false};
    // a cache hint: where the stream refuses it, go without rather than fail every step
    if (!setL2Window(true) || !setL2Window(false)) {
      cudaGetLastError();
      l2_window_ = L2Window{};
      const cudaStreamAttrValue none{};  // no window
      (void)cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &none);
      cudaGetLastError();
    }
  }

  pcg_.configure(cgPlan());
  cuda::WholeCgPlan whole;
  whole.stream = stream_;
  whole.float4_layout = options_.float4_layout;
  whole.one_block = path_ == CgPath::kOneBlock;
  whole.ablation = options_.ablate_static;
  whole.args.model = device_model_;
  whole.args.system = system_;
  whole.args.cg = vectors_;
  whole.args.p_other = b.p2;
  whole.args.reduction = reduction_;
  whole.args.scalars = b.scalars;
  whole.args.fused = options_.fused_finish;
  whole.args.lanes = whole_lanes_;
  whole.args.single_reduction = single_reduction_;
  whole.args.r_other = b.r2;
  whole.args.w_other = b.w2;
  whole.args.held_entries = options_.hold_entries;
  whole.args.stage_start = stage_start;
  whole.args.stage_halo = stage_halo;
  whole.args.stage_entries = stage_entries;
  whole.args.stage_slots = staged ? halo.slots : 0;
  whole.args.stage_entry_slots = !staged ? 0 : entry_columns ? column_words : halo.entry_slots;
  whole.args.stage_rows = staged && stage_rows;
  whole.args.stage_spring_slots = staged && halo.entry_slots > 0 ? spring_slots : 0u;
  whole.args.stage_spring_start = stage_spring_start;
  whole.args.stage_springs = stage_springs;
  whole.args.stage_words = stage_words;
  whole.args.stage_carveout = stage_carveout;
  whole.args.split_sums = options_.split_sums;
  whole.args.paired_walk = options_.paired_walk;
  whole.args.last_arrival = options_.last_arrival;
  whole.args.lane_sums = options_.lane_sums;
  whole.args.scalars_ahead = options_.scalars_ahead;
  whole.args.fill_kept_rows = fill_kept_rows;
  whole.args.rows_in_registers = rows_in_registers;
  whole.args.entry_columns = entry_columns;
  whole.args.fill_inverses = fill_inverses;
  whole.host_scalars = host_scalars_;
  whole.launch = whole_launch_;
  whole.finish_threads = cg_shapes_[cuda::kFinishKernel].block;
  whole.interval = std::max(0, options_.whole_cg_interval);
  whole_.configure(whole);
  particles_ = static_cast<uint32_t>(n);
  springs_ = static_cast<uint32_t>(springs);
  spring_ends_ = model.spring_ends;
  pinned_ = model.pinned;
  current_ = 0;
  history_valid_ = false;
  steps_since_load_ = 0;
  loaded_ = true;
  return Status::ok();
}

// kAuto: one block up to the measured crossover while the directions fit in its shared memory;
// then the cooperative grid up to grid_max_particles (0: no limit), beyond one round of rows only
// where they are short (kGridRoundsMaxEntries); kLaunches beyond that and where neither can run.
Status CudaBackend::choosePath(size_t particles, size_t springs) {
  const size_t shared = cuda::wholeCgSharedBytes(static_cast<uint32_t>(particles));
  const bool fits = one_block_ok_ && shared <= one_block_shared_;
  const double row_entries = particles > 0 ? 2.0 * double(springs) / double(particles) : 0.0;
  const bool one_round = particles <= oneRound();
  CgPath path = options_.cg_path;
  if (path == CgPath::kAuto) {
    if (fits && particles <= size_t(std::max(0, options_.one_block_max_particles))) {
      path = CgPath::kOneBlock;
    } else if (grid_ok_ &&
               (options_.grid_max_particles <= 0 ||
                particles <= size_t(options_.grid_max_particles)) &&
               (one_round || row_entries < kGridRoundsMaxEntries)) {
      path = CgPath::kGrid;
    } else {
      path = CgPath::kLaunches;
    }
  }
  if (path == CgPath::kOneBlock && !fits) {
    return Status::error("the one-block CG path needs " + mib(shared) + " of shared memory for " +
                         std::to_string(particles) + " particles; one block of " + props_.name +
                         " gets " + mib(one_block_shared_));
  }
  if (path == CgPath::kGrid && !grid_ok_) {
    return Status::error(std::string("the grid CG path needs cooperative launches, which ") +
                         props_.name + " does not offer");
  }
  path_ = path;
  whole_launch_ = Launch{};
  whole_lanes_ = 1;
  single_reduction_ = false;
  if (path == CgPath::kOneBlock) {
    whole_lanes_ = lanesFor(one_block_shape_, true, particles, springs, kRowShare);
    const size_t threads = particles * size_t(whole_lanes_);
    const int wanted = static_cast<int>(std::min<size_t>(
        size_t(one_block_shape_.block), std::max<size_t>(32, (threads + 31) / 32 * 32)));
    whole_launch_ = Launch{1, wanted};
  } else if (path == CgPath::kGrid) {
    single_reduction_ = singleReduction(particles);
    const KernelShape* shape = single_reduction_ ? &single_shape_ : &grid_shape_;
    whole_lanes_ = lanesFor(*shape, false, particles, springs, kRowShare);
    // item 14's kernel beyond one round of rows: one lane, each thread its rows of every round
    if (single_reduction_ && !one_round && options_.gather_lanes <= 0) whole_lanes_ = 1;
    // grid_block 0: 512-thread blocks once 256-thread ones would put more than
    // kGrid512BlocksPerSm on a multiprocessor on average (half as many barrier participants and
    // block partials, the same resident threads)
    const size_t threads = particles * size_t(whole_lanes_);
    if (grid512_ok_ &&
        double(threads) > kGrid512BlocksPerSm * 256.0 * double(props_.multiProcessorCount)) {
      shape = single_reduction_ ? &single512_shape_ : &grid512_shape_;
    }
    // item 28: one block per multiprocessor of the rows it then needs, where that is one round
    KernelShape balanced;
    if (balancedGrid(particles, whole_lanes_, &balanced)) shape = &balanced;
    // never more blocks than are resident
    whole_launch_ = launchFor(*shape, threads);
  }
  return Status::ok();
}

// Item 28 (CudaOptions::balance_grid): item 14's grid of `particles` rows on `lanes` lanes as
// blocks of ceil(particles / multiprocessors) rows, rounded up to whole warps, at most 512 threads:
// every multiprocessor then gathers one block (or none), where 256- and 512-thread blocks leave
// some with two and others idle. False where it does not apply or the kernel cannot run that shape
// once per multiprocessor.
bool CudaBackend::balancedGrid(size_t particles, int lanes, KernelShape* out) const {
  if (!options_.balance_grid || options_.grid_block != 0 || !single_reduction_ || particles == 0 ||
      lanes <= 0 || lanes > 32) {
    return false;
  }
  const size_t sms = size_t(props_.multiProcessorCount), per_warp = size_t(32 / lanes);
  const size_t rows = ((particles + sms - 1) / sms + per_warp - 1) / per_warp * per_warp;
  const size_t threads = rows * size_t(lanes);
  if (threads > 512) return false;
  size_t unused_shared = 0;
  KernelShape shape;
  const cudaError_t queried = cuda::queryWholeCg(
      options_.float4_layout, false, true, options_.hold_entries, false, false,
      options_.ablate_static, options_.prefer_l1, int(threads), &shape, &unused_shared);
  cudaGetLastError();
  if (queried != cudaSuccess || shape.block != int(threads) || shape.blocks_per_sm < 1)
    return false;
  *out = shape;
  return true;
}

Status CudaBackend::updateModel(const Model& model) {
  if (!loaded_) return Status::error("updateModel: no model loaded");
  if (model.particleCount() != particles_ || model.springCount() != springs_ ||
      model.spring_ends != spring_ends_ || model.pinned != pinned_) {
    return Status::error("updateModel: the topology changed; load the model instead");
  }
  HOOKE_TRY(validate(model));
  HOOKE_CUDA_TRY(cudaSetDevice(options_.device));
  // the buffers stay where they are, so CG's plan (and a captured graph) stays valid
  return uploadParameters(model);
}

Status CudaBackend::record(int event) {
  if (options_.timing) HOOKE_CUDA_TRY(cudaEventRecord(events_[event], stream_));
  return Status::ok();
}

Status CudaBackend::elapsed(int from, int to, double* ms) {
  float value = 0.0f;
  HOOKE_CUDA_TRY(cudaEventElapsedTime(&value, events_[from], events_[to]));
  *ms = value;
  return Status::ok();
}

Status CudaBackend::step(float h, std::span<const glm::vec3> external, StepStats* stats) {
  StepStats local;
  StepStats& s = stats ? *stats : local;
  s = StepStats{};
  if (!deferred_error_.empty()) {
    Status failed = Status::error(deferred_error_);
    deferred_error_.clear();
    return failed;
  }
  if (!loaded_) return Status::error("cuda backend: no model loaded");
  if (!supports(settings_.integrator)) {
    return Status::error("the cuda backend does not implement the " +
                         std::string(integratorName(settings_.integrator)) + " integrator");
  }
  if (!external.empty() && external.size() != particles_) {
    return Status::error("external forces: expected one per particle");
  }
  if (!(std::isfinite(h) && h > 0.0f)) {
    return Status::error("cuda backend: the step h must be a finite number > 0, not " +
                         std::to_string(h));
  }
  HOOKE_CUDA_TRY(cudaSetDevice(options_.device));
  if (options_.fault_at_step > 0 && ++steps_since_load_ == options_.fault_at_step) {
    return injectFault();
  }
  if (particles_ == 0) return Status::ok();

  // BDF2 needs the state one equal step back; otherwise (first step, or h changed) it starts with
  // a backward-Euler step (CpuBackend::step)
  const bool bdf2 = settings_.integrator == Integrator::kBdf2 && history_valid_ && history_h_ == h;
  history_valid_ = false;  // until this step has succeeded

  const float3* device_external = nullptr;
  if (!external.empty()) {
    const glm::vec3* from = external.data();
    if (ordered_) {  // into the device order (item 15)
      host_order_staging_.resize(external.size());
      for (size_t d = 0; d < external.size(); ++d)
        host_order_staging_[d] = external[order_.particle[d]];
      from = host_order_staging_.data();
    }
    // from pageable memory: the copy has read `from` when the call returns
    HOOKE_CUDA_TRY(cudaMemcpyAsync(buffers_.external, from, external.size() * sizeof(float3),
                                   cudaMemcpyHostToDevice, stream_));
    device_external = buffers_.external;
  }
  current_ ^= 1;  // previous <- current, without a copy: the new state goes to the other buffers
  Status done = Status::error("unknown integrator");
  switch (settings_.integrator) {
    case Integrator::kExplicit:
      done = stepExplicit(h, false, device_external, &s);
      break;
    case Integrator::kSymplectic:
      done = stepExplicit(h, true, device_external, &s);
      break;
    case Integrator::kImplicit:
      done = stepImplicit(h, device_external, &s);
      s.newton_iterations = 1;  // one linear solve, as the CPU backend reports it
      break;
    case Integrator::kNewton:
      done = stepNewton(h, false, device_external, &s);
      break;
    case Integrator::kBdf2:
      // x1 = x̂ + (2h/3) v1,  M (v1 − v̂) = (2h/3) f(x1, v1)
      done = bdf2 ? stepNewton(2.0f * h / 3.0f, true, device_external, &s)
                  : stepNewton(h, false, device_external, &s);
      break;
  }
  if (done) {
    history_valid_ = true;
    history_h_ = h;
  }
  return done;
}

// CudaOptions::fault_at_step: a launch the runtime refuses (invalid configuration), reported
// through the same path as any failed CUDA call. Nothing ran, so the state is untouched.
Status CudaBackend::injectFault() {
  const std::string call = "a kernel launch injected at step " + std::to_string(steps_since_load_) +
                           " by CudaOptions::fault_at_step";
  const cudaError_t error = cuda::launchInvalidConfiguration(stream_);
  if (error != cudaSuccess) return cuda::cudaStatus(error, call.c_str(), __FILE__, __LINE__);
  return Status::error(call + " was expected to fail and did not");
}

Status CudaBackend::stepExplicit(float h, bool symplectic, const float3* external,
                                 StepStats* stats) {
  const int prev = current_ ^ 1, cur = current_;
  HOOKE_TRY(record(0));
  HOOKE_CUDA_TRY(cuda::launchExplicit(explicit_, stream_, options_.float4_layout, device_model_,
                                      buffers_.x[prev], buffers_.v[prev], buffers_.x[cur],
                                      buffers_.v[cur], external, h, symplectic));
  HOOKE_TRY(record(1));
  if (options_.timing) {
    // forces and the update are one kernel; its time is reported as force time
    HOOKE_CUDA_TRY(cudaEventSynchronize(events_[1]));
    HOOKE_TRY(elapsed(0, 1, &stats->force_ms));
  }
  return Status::ok();
}

Status CudaBackend::setL2Window(bool on) {
  if (l2_window_.bytes == 0) return Status::ok();
  const bool persisting = l2_window_.persisting;
  cudaStreamAttrValue value{};
  value.accessPolicyWindow.base_ptr = l2_window_.base;
  value.accessPolicyWindow.num_bytes = on ? l2_window_.bytes : 0;
  // item 6's window never exceeds the persisting limit; item 39's persists nothing
  value.accessPolicyWindow.hitRatio = persisting ? 1.0f : 0.0f;
  value.accessPolicyWindow.hitProp =
      persisting ? cudaAccessPropertyPersisting : cudaAccessPropertyStreaming;
  value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  HOOKE_CUDA_TRY(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &value));
  if (!on && persisting) HOOKE_CUDA_TRY(cudaCtxResetPersistingL2Cache());
  return Status::ok();
}

// Item 39's rule: stream the offset blocks where the rest of what the launched iteration touches
// per particle takes at most kStreamedBlocksL2Share of L2 (CudaOptions::stream_offset_blocks)
bool CudaBackend::streamBlocks(size_t particles, bool float4_layout) const {
  if (options_.stream_offset_blocks != 0) return options_.stream_offset_blocks > 0;
  const size_t vec = float4_layout ? 16 : 12;
  // Δv, r, p, q; the diagonal, P⁻¹ (3 float2), the mask; the stencil row's word
  const size_t per_particle =
      4 * vec + sizeof(float) + 3 * sizeof(float2) + sizeof(float) + sizeof(uint2);
  return double(particles * per_particle) <= kStreamedBlocksL2Share * double(props_.l2CacheSize);
}

// (M − h ∂f/∂v − h² ∂f/∂x) Δv = h (f0 + h ∂f/∂x v0),  v1 = v0 + Δv,  x1 = x0 + h v1
Status CudaBackend::stepImplicit(float h, const float3* external, StepStats* stats) {
  const int prev = current_ ^ 1, cur = current_;
  const bool f4 = options_.float4_layout;
  HOOKE_TRY(record(0));
  if (springs_ > 0) {
    HOOKE_CUDA_TRY(cuda::launchSpringPrepare(spring_prepare_, stream_, f4, device_model_,
                                             buffers_.x[prev], buffers_.v[prev], system_, h));
  }
  HOOKE_CUDA_TRY(cuda::launchParticlePrepare(
      particle_prepare_, stream_, f4, device_model_, buffers_.v[prev], external, system_, vectors_,
      reduction_, h, options_.block_jacobi, options_.warm_start));
  HOOKE_TRY(record(1));

  HOOKE_TRY(setL2Window(true));
  CgResult cg;
  if (path_ != CgPath::kLaunches) {
    // one launch for all iterations; the host waits once, at the end of the step
    Status solved =
        whole_.solve(particle_prepare_.grid, settings_.tolerance, settings_.max_iterations);
    if (!solved) {
      (void)setL2Window(false);
      return solved;
    }
    HOOKE_TRY(record(2));
    HOOKE_CUDA_TRY(cuda::launchCommit(commit_, stream_, f4, particles_, buffers_.x[prev],
                                      buffers_.v[prev], vectors_.dv, buffers_.x[cur],
                                      buffers_.v[cur], h));
    HOOKE_TRY(record(3));
    if (options_.timing) {
      HOOKE_CUDA_TRY(cudaEventSynchronize(events_[3]));
    } else {
      HOOKE_CUDA_TRY(cudaStreamSynchronize(stream_));
    }
    HOOKE_TRY(setL2Window(false));
    whole_.result(&cg);
    stats->cg_iterations = cg.iterations;
    stats->cg_residual = cg.residual;
    stats->cg_converged = cg.converged;
    if (options_.timing) {
      HOOKE_TRY(elapsed(0, 1, &stats->force_ms));
      HOOKE_TRY(elapsed(1, 2, &stats->solve_ms));
      HOOKE_TRY(elapsed(2, 3, &stats->commit_ms));
    }
    return Status::ok();
  }
  Status solved =
      pcg_.solve(particle_prepare_.grid, settings_.tolerance, settings_.max_iterations, &cg);
  Status reset = setL2Window(false);
  HOOKE_TRY(solved);
  HOOKE_TRY(reset);
  stats->cg_iterations = cg.iterations;
  stats->cg_residual = cg.residual;
  stats->cg_converged = cg.converged;
  HOOKE_TRY(record(2));

  HOOKE_CUDA_TRY(cuda::launchCommit(commit_, stream_, f4, particles_, buffers_.x[prev],
                                    buffers_.v[prev], vectors_.dv, buffers_.x[cur], buffers_.v[cur],
                                    h));
  HOOKE_TRY(record(3));
  if (options_.timing) {
    HOOKE_CUDA_TRY(cudaEventSynchronize(events_[3]));
    HOOKE_TRY(elapsed(0, 1, &stats->force_ms));
    HOOKE_TRY(elapsed(1, 2, &stats->solve_ms));
    HOOKE_TRY(elapsed(2, 3, &stats->commit_ms));
  }
  return Status::ok();
}

// The CG solve of a system the prepare kernels have just set up (start_count partial sums), on the
// loaded path, with the L2 window around it; returns once the result is on the host.
Status CudaBackend::solveCg(int start_count, CgResult* out) {
  HOOKE_TRY(setL2Window(true));
  Status solved = Status::ok();
  if (path_ != CgPath::kLaunches) {
    solved = whole_.solve(start_count, settings_.tolerance, settings_.max_iterations);
    const cudaError_t synced = solved ? cudaStreamSynchronize(stream_) : cudaSuccess;
    if (synced != cudaSuccess) {
      solved = cuda::cudaStatus(synced, "cudaStreamSynchronize(stream_)", __FILE__, __LINE__);
    }
    if (solved) whole_.result(out);
  } else {
    solved = pcg_.solve(start_count, settings_.tolerance, settings_.max_iterations, out);
  }
  Status reset = setL2Window(false);
  HOOKE_TRY(solved);
  return reset;
}

// The NewtonSum totals at (x, v) into host_newton_: one reduction, one wait.
Status CudaBackend::evalNewton(const void* x, const void* v, const void* base_v,
                               const float3* external, const void* delta, float beta) {
  HOOKE_CUDA_TRY(cuda::launchNewtonEval(newton_eval_, stream_, options_.float4_layout,
                                        device_model_, x, v, base_v, external, delta, beta,
                                        newton_reduction_));
  HOOKE_CUDA_TRY(cuda::launchNewtonFinish(newton_shapes_[cuda::kNewtonFinishKernel].block, stream_,
                                          newton_reduction_, newton_eval_.grid,
                                          buffers_.newton_sums));
  HOOKE_CUDA_TRY(cudaMemcpyAsync(host_newton_, buffers_.newton_sums,
                                 cuda::kNewtonSums * sizeof(double), cudaMemcpyDeviceToHost,
                                 stream_));
  HOOKE_CUDA_TRY(cudaStreamSynchronize(stream_));
  return Status::ok();
}

// Solves M (v1 − v̂) = β f(x̂ + β v1, v1) for v1 by Newton's method and sets x1 = x̂ + β v1, the
// algorithm of CpuBackend::stepNewton step by step (see there for the equations). The base point
// is the state before the step (newton, bdf2's first step) or BDF2's x̂ = (4 x_n − x_{n−1}) / 3.
// Each iterate k: the prepare kernels build (M − β D_k − β² K_k) δ = β (f_k + K_k d_k) − M (v_k −
// v̂) at (x_k, v_k) with d_k = x̂ + β v_k − x_k; CG solves it on the loaded path; one reduction gives
// g(v_k)·δ and Φ(x_k, v_k) (at k = 1, the convergence scale β |M g + f0|); the Armijo line search
// tries v_k + α δ, one reduction of Φ and |g| per trial; the host reads those few doubles and
// branches exactly as the CPU does. Trial states alternate between the output pair x[cur] and the
// spare pair, so the iterate is never overwritten while it is still needed.
Status CudaBackend::stepNewton(float beta, bool bdf2, const float3* external, StepStats* stats) {
  const int prev = current_ ^ 1, cur = current_;
  const bool f4 = options_.float4_layout;
  const size_t vector_bytes = size_t(particles_) * (f4 ? sizeof(float4) : sizeof(float3));
  if (bdf2) {
    // x[cur] still holds x_{n−1}: the pair this step is about to overwrite
    HOOKE_CUDA_TRY(cuda::launchBdf2Base(bdf2_base_, stream_, f4, particles_, buffers_.x[prev],
                                        buffers_.v[prev], buffers_.x[cur], buffers_.v[cur],
                                        buffers_.base_x, buffers_.base_v));
  }
  const void* base_x = bdf2 ? buffers_.base_x : buffers_.x[prev];
  const void* base_v = bdf2 ? buffers_.base_v : buffers_.v[prev];
  void* trial_x[2] = {buffers_.x[cur], buffers_.x_spare};
  void* trial_v[2] = {buffers_.v[cur], buffers_.v_spare};
  const void* xk = buffers_.x[prev];  // the iterate starts at the current state
  const void* vk = buffers_.v[prev];
  int next = 0;  // the trial pair the next line search writes

  double scale = 0.0;
  double residual = std::numeric_limits<double>::infinity();
  double previous_residual = residual;
  bool cg_converged = true;
  int iteration = 0;
  while (iteration < settings_.newton_max_iterations) {
    // the linear system at (x_k, v_k)
    HOOKE_TRY(record(0));
    if (springs_ > 0) {
      HOOKE_CUDA_TRY(cuda::launchSpringPrepare(spring_prepare_newton_, stream_, f4, device_model_,
                                               xk, vk, system_, beta, base_x));
    }
    HOOKE_CUDA_TRY(cuda::launchParticlePrepare(
        particle_prepare_newton_, stream_, f4, device_model_, vk, external, system_, vectors_,
        reduction_, beta, options_.block_jacobi, /*warm_start=*/false, base_v));
    HOOKE_TRY(record(1));
    CgResult cg;
    HOOKE_TRY(solveCg(particle_prepare_newton_.grid, &cg));
    HOOKE_TRY(record(2));
    stats->cg_iterations += cg.iterations;
    stats->cg_residual = std::max(stats->cg_residual, cg.residual);
    cg_converged = cg_converged && cg.converged;
    ++iteration;

    // g(v_k)·δ and Φ(x_k, v_k) for the line search; at the first iterate (x_k, v_k) is the state
    // at the start of the step, where the convergence scale is taken
    HOOKE_TRY(evalNewton(xk, vk, base_v, external, vectors_.dv, beta));
    if (iteration == 1) scale = double(beta) * std::sqrt(host_newton_[cuda::kLoadSquared]);
    const double slope = iteration > 1 ? host_newton_[cuda::kGradientDelta] : 0.0;
    const double merit_now = iteration > 1 ? host_newton_[cuda::kMerit] : 0.0;

    // backtracking (Armijo) line search on Φ, as the CPU: the first iterate is taken whole;
    // Φ(v + α δ) <= Φ(v) + 10⁻⁴ α g·δ, halving α at most 6 times; a predicted decrease below Φ's
    // rounding takes the step
    float alpha = 1.0f;
    bool evaluated = false;  // host_newton_ holds the sums at the accepted trial
    for (int halving = 0;; ++halving) {
      HOOKE_CUDA_TRY(cuda::launchNewtonTrial(newton_trial_, stream_, f4, particles_, vk,
                                             vectors_.dv, base_x, trial_x[next], trial_v[next],
                                             alpha, beta));
      if (iteration == 1 || halving == 6 || !(slope < -1e-6 * std::abs(merit_now))) break;
      HOOKE_TRY(evalNewton(trial_x[next], trial_v[next], base_v, external, nullptr, beta));
      evaluated = true;
      if (host_newton_[cuda::kMerit] <= merit_now + 1e-4 * alpha * slope) break;
      evaluated = false;
      alpha *= 0.5f;
    }
    // the residual at the accepted state
    if (!evaluated) {
      HOOKE_TRY(evalNewton(trial_x[next], trial_v[next], base_v, external, nullptr, beta));
    }
    residual = std::sqrt(host_newton_[cuda::kGradientSquared]);
    xk = trial_x[next];
    vk = trial_v[next];
    next ^= 1;
    HOOKE_TRY(record(3));
    if (options_.timing) {
      HOOKE_CUDA_TRY(cudaEventSynchronize(events_[3]));
      double ms = 0.0;
      HOOKE_TRY(elapsed(0, 1, &ms));
      stats->force_ms += ms;
      HOOKE_TRY(elapsed(1, 2, &ms));
      stats->solve_ms += ms;
      HOOKE_TRY(elapsed(2, 3, &ms));
      stats->commit_ms += ms;
    }
    if (newtonDone(iteration, residual, previous_residual, settings_.newton_tolerance * scale)) {
      break;
    }
    previous_residual = residual;
  }
  if (iteration == 0) {
    // no iteration allowed: the state stays; the scale is still reported as the CPU does
    HOOKE_TRY(evalNewton(xk, vk, base_v, external, nullptr, beta));
    scale = double(beta) * std::sqrt(host_newton_[cuda::kLoadSquared]);
    HOOKE_CUDA_TRY(cudaMemcpyAsync(buffers_.x[cur], buffers_.x[prev], vector_bytes,
                                   cudaMemcpyDeviceToDevice, stream_));
    HOOKE_CUDA_TRY(cudaMemcpyAsync(buffers_.v[cur], buffers_.v[prev], vector_bytes,
                                   cudaMemcpyDeviceToDevice, stream_));
    HOOKE_CUDA_TRY(cudaStreamSynchronize(stream_));
  } else if (xk == buffers_.x_spare) {
    // the last iterate is in the spare pair: it becomes the output pair, without a copy
    std::swap(buffers_.x[cur], buffers_.x_spare);
    std::swap(buffers_.v[cur], buffers_.v_spare);
  }
  stats->newton_iterations = iteration;
  stats->newton_residual = scale > 0.0 ? static_cast<float>(residual / scale) : 0.0f;
  stats->cg_converged = cg_converged;
  return Status::ok();
}

void CudaBackend::writeVisual(float alpha, std::span<glm::vec3> out) const {
  const size_t count = std::min(out.size(), size_t(particles_));
  if (!loaded_ || count == 0) return;
  auto run = [&]() -> Status {
    HOOKE_CUDA_TRY(cudaSetDevice(options_.device));
    // in the device order (item 15) every slot is needed to fill the first `count` particles
    const size_t slots = ordered_ ? size_t(particles_) : count;
    HOOKE_CUDA_TRY(cuda::launchVisual(visual_, stream_, options_.float4_layout,
                                      static_cast<uint32_t>(slots), buffers_.x[current_ ^ 1],
                                      buffers_.x[current_], buffers_.visual, alpha));
    glm::vec3* to = out.data();
    if (ordered_) {
      host_order_staging_.resize(slots);
      to = host_order_staging_.data();
    }
    HOOKE_CUDA_TRY(cudaMemcpyAsync(to, buffers_.visual, slots * sizeof(float3),
                                   cudaMemcpyDeviceToHost, stream_));
    HOOKE_CUDA_TRY(cudaStreamSynchronize(stream_));
    if (ordered_) {
      for (size_t i = 0; i < count; ++i)
        out[i] = host_order_staging_[order_.slot[i]];
    }
    return Status::ok();
  };
  Status done = run();
  if (!done) deferred_error_ = done.message();
}

bool CudaBackend::visualSource(CudaVisualSource* out) const {
  if (!loaded_) return false;
  out->previous = buffers_.x[current_ ^ 1];
  out->current = buffers_.x[current_];
  out->float4_layout = options_.float4_layout;
  out->slots = ordered_ ? buffers_.slots : nullptr;
  out->particles = particles_;
  out->device = options_.device;
  out->stream = stream_;
  return true;
}

void CudaBackend::readState(State* out) const {
  if (!loaded_) {
    out->x.clear();
    out->v.clear();
    return;
  }
  out->x.resize(particles_);
  out->v.resize(particles_);
  Status done = cudaSetDevice(options_.device) == cudaSuccess
                    ? downloadVectors(buffers_.x[current_], particles_, out->x.data())
                    : Status::error("cudaSetDevice failed in readState");
  if (done) done = downloadVectors(buffers_.v[current_], particles_, out->v.data());
  if (!done) deferred_error_ = done.message();
}

}  // namespace

bool queryCudaDevice(int device, CudaDeviceInfo* out, std::string* why_not) {
  if (!deviceUsable(device, why_not)) return false;
  cudaDeviceProp props{};
  cudaError_t error = cudaGetDeviceProperties(&props, device);
  if (error != cudaSuccess) {
    cudaGetLastError();
    *why_not = std::string("cudaGetDeviceProperties failed: ") + cudaGetErrorString(error);
    return false;
  }
  out->name = props.name;
  out->compute_major = props.major;
  out->compute_minor = props.minor;
  out->multiprocessors = props.multiProcessorCount;
  out->l2_bytes = size_t(props.l2CacheSize);
  out->global_bytes = props.totalGlobalMem;
  cudaDriverGetVersion(&out->driver_version);
  cudaRuntimeGetVersion(&out->runtime_version);
  cudaGetLastError();
  return true;
}

bool cudaCgPath(const Backend& backend, CgPath* out) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->cgPath(out);
}

bool cudaSingleReduction(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->singleReductionInUse();
}

bool cudaStagedHalo(const Backend& backend, bool* entries, bool* rows) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  if (entries) *entries = cuda != nullptr && cuda->stagedEntriesInUse();
  if (rows) *rows = cuda != nullptr && cuda->stagedRowsInUse();
  return cuda != nullptr && cuda->stagedInUse();
}

bool cudaStagedSprings(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->stagedSpringsInUse();
}

bool cudaScalarsAhead(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->scalarsAheadInUse();
}

int cudaFillOnChip(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr ? cuda->fillOnChipInUse() : 0;
}

bool cudaRowsInRegisters(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->rowsInRegistersInUse();
}

bool cudaEntryColumns(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->entryColumnsInUse();
}

bool cudaRowsByDirection(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->rowsByDirectionInUse();
}

bool cudaHaloColours(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->haloColoursInUse();
}

int cudaGridBlock(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr ? cuda->gridBlock() : 0;
}

bool cudaCompactEntries(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->compactInUse();
}

bool cudaStencilRows(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->stencilInUse();
}

bool cudaStencilAhead(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->aheadInUse();
}

bool cudaAlphaInUpdate(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->alphaInUpdate();
}

bool cudaBetaOnce(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->betaOnce();
}

bool cudaOffsetBlocks(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->offsetBlocksInUse();
}

size_t cudaStreamL2WindowBytes(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr ? cuda->streamL2WindowBytes() : 0;
}

bool cudaStreamedBlocks(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->streamedBlocksInUse();
}

bool cudaLatticeTiles(const Backend& backend, int tile[3]) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  uint32_t t[3] = {0, 0, 0};
  const bool on = cuda != nullptr && cuda->tilesInUse(t);
  if (tile != nullptr) {
    for (int a = 0; a < 3; ++a)
      tile[a] = int(t[a]);
  }
  return on;
}

bool cudaDependentLaunch(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->dependentInUse();
}

int cudaGatherBatch(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr ? cuda->gatherBatch() : 0;
}

bool cudaApplyKernel(const Backend& backend, CudaApplyKernel* out) {
  *out = CudaApplyKernel{};
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  cuda::ApplyKernelResources r;
  if (cuda == nullptr || !cuda->applyResources(&r)) return false;
  out->registers = r.registers;
  out->static_shared_bytes = r.static_shared_bytes;
  out->blocks_per_sm = r.blocks_per_sm;
  return true;
}

int cudaApplyBlock(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr ? cuda->applyBlock() : 0;
}

int cudaDirectionInUpdate(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr ? cuda->directionHeld() : 0;
}

int cudaGatherLanes(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr ? cuda->gatherLanes() : 0;
}

const char* cgPathName(CgPath path) {
  switch (path) {
    case CgPath::kAuto:
      return "auto";
    case CgPath::kLaunches:
      return "launches";
    case CgPath::kOneBlock:
      return "one-block";
    case CgPath::kGrid:
      return "grid";
  }
  return "unknown";
}

bool cudaVisualSource(const Backend& backend, CudaVisualSource* out) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr && cuda->visualSource(out);
}

size_t cudaModelBytes(size_t particles, size_t springs, bool float4_layout,
                      size_t reduction_blocks) {
  return layoutBuffers(0, particles, springs, float4_layout, std::max<size_t>(1, reduction_blocks))
      .total_bytes;
}

std::unique_ptr<Backend> createCudaBackend(const CudaOptions& options, std::string* why_not) {
  std::string reason;
  if (!deviceUsable(options.device, &reason)) {
    if (why_not) *why_not = reason;
    return nullptr;
  }
  CudaOptions resolved = options;
  const char* fault = std::getenv("HOOKE_CUDA_FAULT_AT_STEP");
  if (resolved.fault_at_step == 0 && fault && *fault) {
    // the test hook's environment form: a whole number, 0 = off
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(fault, &end, 10);
    if (*end != '\0' || errno != 0 || value < 0 || value > std::numeric_limits<int>::max()) {
      if (why_not) {
        *why_not = std::string("HOOKE_CUDA_FAULT_AT_STEP must be a step number (0 = off), got '") +
                   fault + "'";
      }
      return nullptr;
    }
    resolved.fault_at_step = static_cast<int>(value);
  }
  auto backend = std::make_unique<CudaBackend>(resolved);
  Status ready = backend->init();
  if (!ready) {
    if (why_not) *why_not = ready.message();
    return nullptr;
  }
  return backend;
}

}  // namespace hooke
