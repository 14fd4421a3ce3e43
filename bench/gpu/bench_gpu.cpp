// hooke-bench-gpu: times the CUDA implicit step (issue 3) against a cuSPARSE/cuBLAS textbook CG,
// the original design and the floors, runs the ablation and the one-block crossover, and writes
// JSON plus a short table. Never asserts on time; a failed variant is recorded, not fatal.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/gpu/floors.h"
#include "bench/gpu/hooke_runs.h"
#include "bench/gpu/json_writer.h"
#include "bench/gpu/textbook.h"
#include "bench/whole_number.h"
#include "cuda/cuda_backend.h"
#include "sim/scenes.h"

#ifndef HOOKE_GPU_BENCH_COMMIT
#define HOOKE_GPU_BENCH_COMMIT "unknown"
#endif

namespace hooke::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Fields = std::vector<std::pair<std::string, Json>>;

constexpr float kDt = 1.0f / 60.0f;  // h = dt: one solve per tick
constexpr float kTolerance = 1e-4f;
constexpr int kCap = 500;  // the app's default CG cap
constexpr int kFixedIterations = 100;

// [SECTION] command line

struct Args {
  std::string json_path;
  std::string commit = HOOKE_GPU_BENCH_COMMIT;
  double budget_s = 420.0;  // stop starting new measurements past this much wall time
  int max_res = 1024;
  int min_res = 0;  // the main table from this cloth res on (volumes by their cloth res)
  // --scene NAME:RES: the main table of that one system alone (no ablation)
  std::string scene_name;
  int scene_res = 0;
  bool ablation = true;
  bool ablation_only = false;  // only the floors and the ablation
  bool crossover = true;
  bool lanes = true;        // the item-13 sweep of lanes per particle
  bool lanes_only = false;  // only the floors and that sweep
  bool grid_lanes = true;   // item 13 on the staged grid, by block size
  bool grid_lanes_only = false;
  bool tiles = true;        // the item-23 sweep of lattice tiles
  bool tiles_only = false;  // only the floors and that sweep
  bool quick = false;       // fewer steps per measurement
  // --paths A,B,...: with --scene, only the fixed-count "fastest" row and these paths (by name):
  // a targeted comparison without the textbook, the original design or the tolerance rows
  std::vector<std::string> paths;
};

constexpr const char* kUsage =
    "usage: hooke-bench-gpu [--json FILE] [--commit ID] [--budget SECONDS] [--max-res N]\n"
    "                       [--min-res N] [--scene cloth:RES|volume:RES]\n"
    "                       [--no-ablation] [--ablation-only] [--no-crossover]\n"
    "                       [--no-lanes] [--lanes-only]\n"
    "                       [--no-grid-lanes] [--grid-lanes-only]\n"
    "                       [--no-tiles] [--tiles-only] [--quick] [--paths A,B,...]";

int parseArgs(int argc, char** argv, Args* out) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--help" || arg == "-h") {
      std::printf("%s\n", kUsage);
      return 0;
    } else if (arg == "--json" || arg == "--commit" || arg == "--budget" || arg == "--max-res" ||
               arg == "--min-res" || arg == "--scene" || arg == "--paths") {
      const char* v = value();
      if (!v) {
        std::fprintf(stderr, "hooke-bench-gpu: %s needs a value\n", arg.c_str());
        return 2;
      }
      if (arg == "--json") out->json_path = v;
      if (arg == "--paths") {
        out->paths.clear();
        const std::string_view list = v;
        for (size_t at = 0; at <= list.size();) {
          const size_t comma = std::min(list.find(',', at), list.size());
          if (comma == at) {
            std::fprintf(stderr,
                         "hooke-bench-gpu: --paths takes names separated by commas, not '%s'\n", v);
            return 2;
          }
          out->paths.emplace_back(list.substr(at, comma - at));
          at = comma + 1;
        }
      }
      if (arg == "--commit") out->commit = v;
      if (arg == "--budget") {
        char* end = nullptr;
        const double seconds = std::strtod(v, &end);
        if (end == v || *end != '\0' || !std::isfinite(seconds) || seconds <= 0.0) {
          std::fprintf(stderr, "hooke-bench-gpu: --budget takes seconds above 0, not '%s'\n", v);
          return 2;
        }
        out->budget_s = seconds;
      }
      if (arg == "--max-res" && !parseWholeNumber(v, 2, 2048, &out->max_res)) {
        std::fprintf(stderr,
                     "hooke-bench-gpu: --max-res takes a resolution from 2 to 2048, not '%s'\n", v);
        return 2;
      }
      if (arg == "--min-res" && !parseWholeNumber(v, 0, 2048, &out->min_res)) {
        std::fprintf(stderr,
                     "hooke-bench-gpu: --min-res takes a resolution from 0 to 2048, not '%s'\n", v);
        return 2;
      }
      if (arg == "--scene") {
        const std::string text = v;
        const size_t colon = text.find(':');
        out->scene_name = text.substr(0, colon);
        const bool res_ok = colon != std::string::npos &&
                            parseWholeNumber(text.c_str() + colon + 1, 2, 2048, &out->scene_res);
        if ((out->scene_name != "cloth" && out->scene_name != "volume") || !res_ok) {
          std::fprintf(stderr,
                       "hooke-bench-gpu: --scene takes cloth:RES or volume:RES (RES 2 to 2048), "
                       "not '%s'\n",
                       v);
          return 2;
        }
      }
    } else if (arg == "--no-ablation") {
      out->ablation = false;
    } else if (arg == "--ablation-only") {
      out->ablation_only = true;
    } else if (arg == "--no-crossover") {
      out->crossover = false;
    } else if (arg == "--no-lanes") {
      out->lanes = false;
    } else if (arg == "--lanes-only") {
      out->lanes_only = true;
    } else if (arg == "--no-grid-lanes") {
      out->grid_lanes = false;
    } else if (arg == "--grid-lanes-only") {
      out->grid_lanes_only = true;
    } else if (arg == "--no-tiles") {
      out->tiles = false;
    } else if (arg == "--tiles-only") {
      out->tiles_only = true;
    } else if (arg == "--quick") {
      out->quick = true;
    } else {
      std::fprintf(stderr, "hooke-bench-gpu: unknown argument '%s'\n%s\n", arg.c_str(), kUsage);
      return 2;
    }
  }
  if (!out->paths.empty()) {
    if (out->scene_name.empty() || out->lanes_only || out->tiles_only || out->grid_lanes_only) {
      std::fprintf(stderr, "hooke-bench-gpu: --paths needs --scene and no --*-only sweep\n");
      return 2;
    }
    // the named paths alone: no sweeps
    out->lanes = out->grid_lanes = out->tiles = out->crossover = false;
  }
  const int sweeps_only = int(out->lanes_only) + int(out->tiles_only) + int(out->grid_lanes_only);
  if (out->ablation_only && (!out->ablation || sweeps_only > 0 || !out->scene_name.empty())) {
    std::fprintf(stderr,
                 "hooke-bench-gpu: --ablation-only takes no --no-ablation, --scene or --*-only\n");
    return 2;
  }
  if (out->min_res > out->max_res) {
    std::fprintf(stderr, "hooke-bench-gpu: --min-res %d is above --max-res %d\n", out->min_res,
                 out->max_res);
    return 2;
  }
  return -1;
}

// [SECTION] provenance

std::string utcDate() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// "580.159.04" from the kernel module's version line ("... Kernel Module for x86_64  580.159.04
// Release Build ..."): the first word after "Module" made of digits and dots, with a dot; else
// the CUDA driver API version
std::string driverVersion(int cuda_driver_version) {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(in, line)) {
    const size_t module = line.find("Module");
    std::istringstream words(module == std::string::npos ? line : line.substr(module));
    std::string word;
    while (words >> word) {
      if (word.find('.') != std::string::npos &&
          word.find_first_not_of("0123456789.") == std::string::npos) {
        return word;
      }
    }
  }
  return "CUDA " + std::to_string(cuda_driver_version / 1000) + "." +
         std::to_string((cuda_driver_version % 1000) / 10);
}

// [SECTION] scenes

// The volume whose particle count res · max(2, res/2)² is nearest `particles`.
int volumeResFor(size_t particles) {
  int best = 4;
  double best_gap = 1e300;
  for (int res = 4; res <= 400; ++res) {
    const double side = std::max(2, res / 2);
    const double gap = std::fabs(double(res) * side * side - double(particles));
    if (gap < best_gap) {
      best_gap = gap;
      best = res;
    }
  }
  return best;
}

struct Sized {
  int warmup;
  int steps;
};

// Enough steps for a stable median without spending the lease on the largest systems.
Sized stepsFor(size_t particles, bool quick) {
  Sized s = particles <= 20000    ? Sized{5, 30}
            : particles <= 70000  ? Sized{3, 12}
            : particles <= 300000 ? Sized{2, 6}
                                  : Sized{2, 4};
  if (quick) s.steps = std::max(3, s.steps / 3);
  return s;
}

SolverSettings settingsFor(bool fixed) {
  SolverSettings s;
  s.integrator = Integrator::kImplicit;
  s.tolerance = fixed ? 0.0f : kTolerance;  // 0: never converged, so exactly the cap
  s.max_iterations = fixed ? kFixedIterations : kCap;
  return s;
}

// The design this project started from: items 1–9 on, five launches per iteration, no graph, no
// whole-CG kernel, one thread per particle (no item 13), the model's own particle order (no item
// 15), one entry at a time (no item 16).
CudaOptions originalOptions() {
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  o.cg_graph = false;
  o.fused_finish = false;
  o.gather_lanes = 1;
  o.locality_order = false;
  o.gather_batch = 1;
  o.compact_entries = false;             // item 20 (it needs batched loads anyway)
  o.stencil_rows = false;                // item 22 (likewise)
  o.lattice_tiles = false;               // item 23 (likewise)
  o.stencil_ahead = false;               // item 24 (likewise)
  o.offset_blocks = false;               // item 37 (likewise)
  o.dv_in_direction = false;             // item 25 (likewise)
  o.direction_in_update = false;         // item 26 (likewise)
  o.dependent_launch_max_particles = 0;  // item 21
  o.l2_persist = true;  // item 6 (off by default since this benchmark's first H200 run)
  return o;
}

// Bytes one CG iteration must move through device memory, packed float32, each input read once
// and each output written once, in the two passes that CG's two global reductions force:
//   pass 1 (p = z + β p, q = A p, Σ p·q): read z, p (24 B), write p, q (24 B), diagonal (4 B),
//     per spring S = (n, a, b) (20 B) and its two ends (8 B)
//   pass 2 (Δv, r, z, Σ r·r, Σ r·z): read p, q (24 B), Δv and r (24 B) and write them (24 B),
//     P⁻¹ symmetric 3×3 (24 B), write z (12 B)
double minimumIterationBytes(size_t particles, size_t springs) {
  return 160.0 * double(particles) + 28.0 * double(springs);
}

// [SECTION] records

struct Row {
  std::string scene;
  int res = 0;
  size_t particles = 0, springs = 0;
  std::string variant;  // textbook | original | fastest | floor_latency | floor_bandwidth
  std::string mode;     // tolerance | fixed
  RunSummary run;
};

// item 23's tile as [x, y, z] (zeros: untiled)
Json tileJson(const RunSummary& run) {
  return Json::array(
      {Json::integer(run.tile[0]), Json::integer(run.tile[1]), Json::integer(run.tile[2])});
}

// the launched q = A p's kernel as it ran: its registers and static shared memory decide how many
// blocks a multiprocessor holds, and a change of either moved the iteration by up to 14 % (docs/
// PERFORMANCE.md, "Item 40 again"); null off the launched path
Json applyKernelJson(const RunSummary& run) {
  if (run.apply_registers == 0) return Json::null();
  return Json::object({{"registers", Json::integer(run.apply_registers)},
                       {"static_shared_bytes", Json::integer(run.apply_shared_bytes)},
                       {"blocks_per_sm", Json::integer(run.apply_blocks_per_sm)}});
}

Json rowJson(const Row& r) {
  Fields f = {{"scene", Json::string(r.scene)},
              {"res", Json::integer(r.res)},
              {"particles", Json::integer((long long)r.particles)},
              {"springs", Json::integer((long long)r.springs)},
              {"variant", Json::string(r.variant)},
              {"mode", Json::string(r.mode)},
              {"cg_max_iterations", Json::integer(r.mode == "fixed" ? kFixedIterations : kCap)},
              {"step_ms", Json::number(r.run.step_ms)},
              {"cg_iterations", Json::number(r.run.iterations)},
              {"iteration_us", Json::number(r.run.iteration_us)}};
  if (r.variant != "floor_latency" && r.variant != "floor_bandwidth") {
    f.push_back({"path", Json::string(r.run.path)});
    f.push_back({"lanes", Json::integer(r.run.lanes)});
    f.push_back({"tile", tileJson(r.run)});
    f.push_back({"ahead", Json::boolean(r.run.ahead)});
    f.push_back({"offset_blocks", Json::boolean(r.run.offset_blocks)});
    f.push_back({"streamed_blocks", Json::boolean(r.run.streamed_blocks)});
    f.push_back({"alpha_in_update", Json::boolean(r.run.alpha_in_update)});
    f.push_back({"direction_held", Json::integer(r.run.direction_held)});
    f.push_back({"apply_kernel", applyKernelJson(r.run)});
    f.push_back({"force_ms", Json::number(r.run.force_ms)});
    f.push_back({"cg_ms", Json::number(r.run.cg_ms)});
    f.push_back({"commit_ms", Json::number(r.run.commit_ms)});
    f.push_back({"step_ms_p10", Json::number(r.run.step_ms_p10)});
    f.push_back({"step_ms_p90", Json::number(r.run.step_ms_p90)});
    f.push_back({"cg_iterations_mean", Json::number(r.run.iterations_mean)});
    f.push_back({"converged_fraction", Json::number(r.run.converged_fraction)});
    f.push_back({"steps", Json::integer(r.run.steps)});
    if (!r.run.ok) f.push_back({"error", Json::string(r.run.error)});
  }
  return Json::object(f);
}

struct Bench {
  Args args;
  Clock::time_point started = Clock::now();
  Floors floors;
  int multiprocessors = 0;
  std::vector<Row> rows;
  std::vector<Json> paths, ablation, crossover, lanes, grid_lanes, tiles, grid_block;
  int skipped = 0;
  std::string bad_path;  // --paths named a path this system does not have: exit 2, no JSON

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - started).count(); }
  bool outOfTime() {
    if (elapsed() < args.budget_s) return false;
    ++skipped;
    return true;
  }
};

void progress(const char* what, const std::string& scene, int res, const RunSummary& r,
              double elapsed) {
  if (r.ok) {
    std::printf(
        "  [%6.1fs] %-9s %-6s %4d %-10s step %9.3f ms  cg %9.3f ms  %6.1f it  %7.2f us/it\n",
        elapsed, what, scene.c_str(), res, r.path.c_str(), r.step_ms, r.cg_ms, r.iterations,
        r.iteration_us);
  } else {
    std::printf("  [%6.1fs] %-9s %-6s %4d FAILED: %s\n", elapsed, what, scene.c_str(), res,
                r.error.c_str());
  }
  std::fflush(stdout);
}

// [SECTION] the main table

void measureScene(Bench& b, const std::string& name, int res, const Scene& scene) {
  const size_t n = scene.model.particleCount(), springs = scene.model.springCount();
  const Sized sized = stepsFor(n, b.args.quick);
  auto add = [&](const std::string& variant, const std::string& mode, const RunSummary& run) {
    b.rows.push_back(Row{name, res, n, springs, variant, mode, run});
  };
  RunSummary fastest_tol;
  TextbookCg textbook_solver;
  const bool targeted = !b.args.paths.empty();
  // with --paths the textbook is neither loaded nor measured
  const Status textbook_loaded =
      targeted ? Status::ok() : textbook_solver.load(scene.model, scene.state);
  std::printf("  [%6.1fs] %-6s %4d: %zu particles, %zu springs, textbook CSR %zu nonzeros%s\n",
              b.elapsed(), name.c_str(), res, n, springs, textbook_solver.nonzeros(),
              targeted          ? " (not measured: --paths)"
              : textbook_loaded ? ""
                                : " (load FAILED)");
  for (bool fixed : {false, true}) {
    if (targeted && !fixed) continue;
    const SolverSettings settings = settingsFor(fixed);
    const std::string mode = fixed ? "fixed" : "tolerance";
    if (b.outOfTime()) return;
    if (!targeted) {
      RunSummary textbook;
      if (textbook_loaded) {
        textbook = runTextbook(textbook_solver, scene, settings, kDt, sized.warmup, sized.steps);
      } else {
        textbook.error = textbook_loaded.message();
      }
      progress("textbook", name, res, textbook, b.elapsed());
      add("textbook", mode, textbook);
      if (b.outOfTime()) return;
      RunSummary original =
          runHooke(originalOptions(), scene, settings, kDt, sized.warmup, sized.steps);
      progress("original", name, res, original, b.elapsed());
      add("original", mode, original);
    }
    if (b.outOfTime()) return;
    RunSummary fastest = runHooke(CudaOptions{}, scene, settings, kDt, sized.warmup, sized.steps);
    progress("fastest", name, res, fastest, b.elapsed());
    add("fastest", mode, fastest);
    if (!fixed) fastest_tol = fastest;

    // the other paths, so "fastest" (the automatic choice) can be checked against them
    struct Alternative {
      const char* name;
      CudaOptions options;
    };
    std::vector<Alternative> alternatives;
    CudaOptions o;
    o.cg_path = CgPath::kLaunches;  // graph + fused finishing
    alternatives.push_back({"launches-graph", o});
    // item 21 each way, at every size
    o.dependent_launch_max_particles = 0;
    alternatives.push_back({"launches-plain-order", o});
    o.dependent_launch_max_particles = std::numeric_limits<int>::max();
    alternatives.push_back({"launches-dependent", o});
    o.dependent_launch_max_particles = CudaOptions{}.dependent_launch_max_particles;
    o.alpha_in_update = false;  // item 38 off: α by q = A p's last block (and item 41 off)
    alternatives.push_back({"launches-alpha-in-apply", o});
    o.alpha_in_update = true;
    o.beta_once = false;  // item 41 off: a grid barrier, then β in every block
    alternatives.push_back({"launches-beta-in-every-block", o});
    o.last_arrival = false;  // and item 33 off: the barrier by cooperative groups
    alternatives.push_back({"launches-barrier-polled", o});
    o.last_arrival = true;
    o.beta_once = true;
    o.direction_in_update = false;  // item 26 off: the update and direction kernels
    alternatives.push_back({"launches-two-kernels", o});
    o.dv_in_direction = false;  // and item 25 off
    alternatives.push_back({"launches-dv-in-update", o});
    o.dv_in_direction = true;
    o.direction_in_update = true;
    if (n > 131072) {  // items 22 and 20 each way where the launched path runs; item 3 there
      o.float4_layout = false;
      alternatives.push_back({"launches-float3", o});
      o.float4_layout = true;
      o.lattice_tiles = false;
      alternatives.push_back({"launches-untiled", o});
      o.lattice_tiles = true;
      // item 23's tile against fixed ones: 256 and 64 rows (the automatic one is the largest power
      // of two of rows within the kernel's block, on a volume at most 128: on the H200 256 rows on
      // a cloth and 128 on a volume, at 256 threads, since item 40)
      const bool cloth = name == "cloth";
      const int twice[3] = {cloth ? 32 : 8, cloth ? 8 : 4, cloth ? 1 : 8};
      const int half[3] = {cloth ? 32 : 8, cloth ? 2 : 4, cloth ? 1 : 2};
      std::copy(twice, twice + 3, o.lattice_tile);
      alternatives.push_back({"launches-tile-256-rows", o});
      std::copy(half, half + 3, o.lattice_tile);
      alternatives.push_back({"launches-tile-64-rows", o});
      std::fill(o.lattice_tile, o.lattice_tile + 3, 0);
      // q = A p's block forced, the automatic tile following it: 128 threads (one 128-row tile)
      // and 256 (256 rows on a cloth). The default is 256 on a cloth (the flat-lattice rule) and,
      // since item 40, the query's 256 on a volume on the H200, so the 256 path repeats it
      o.apply_block = 128;
      alternatives.push_back({"launches-apply-block-128", o});
      o.apply_block = 256;
      alternatives.push_back({"launches-apply-block-256", o});
      const int tile128[3] = {cloth ? 32 : 8, 4, cloth ? 1 : 4};  // a volume's automatic tile
      std::copy(tile128, tile128 + 3, o.lattice_tile);
      alternatives.push_back({"launches-apply-block-256-tile-128-rows", o});
      std::fill(o.lattice_tile, o.lattice_tile + 3, 0);
      o.apply_block = 224;  // the query's block before item 40 (53 registers)
      alternatives.push_back({"launches-apply-block-224", o});
      o.apply_block = 0;
      // item 16's batches forced each way (the rule takes 3 for rows on one lane, item 40)
      o.gather_batch = 3;
      alternatives.push_back({"launches-batch-3", o});
      o.gather_batch = 4;
      alternatives.push_back({"launches-batch-4", o});
      o.gather_batch = 0;
      // item 39 each way: the offset blocks cached in L2 as the rest, and streamed at any size
      o.stream_offset_blocks = -1;
      alternatives.push_back({"launches-blocks-cached", o});
      o.stream_offset_blocks = 1;
      alternatives.push_back({"launches-blocks-streamed", o});
      o.stream_offset_blocks = 0;
      // item 37 off: the springs through their lower ends' runs, with item 24's words ahead and
      // without (item 24 applies to the runs only)
      o.offset_blocks = false;
      alternatives.push_back({"launches-spring-runs", o});
      o.stencil_ahead = false;
      alternatives.push_back({"launches-spring-runs-behind", o});
      o.lattice_tiles = false;
      alternatives.push_back({"launches-untiled-runs-behind", o});
      o.lattice_tiles = true;
      o.stencil_ahead = true;
      o.offset_blocks = true;
      // item 9 off (every kernel at the default carve-out): on the H200 ~2 % less per iteration
      // at the 265k volume, but by moving ~60 us a step from the CG phase to the force phase,
      // not by saving it (PERFORMANCE.md, "Item 40 again")
      o.prefer_l1 = false;
      alternatives.push_back({"launches-carveout-default", o});
      o.prefer_l1 = true;
      o.stencil_rows = false;
      alternatives.push_back({"launches-entries", o});
      o.compact_entries = false;
      alternatives.push_back({"launches-pairs", o});
    }
    o = {};
    o.cg_path = CgPath::kGrid;
    alternatives.push_back({"grid", o});
    if (n <= 262144) {  // the grid's block sizes: fewer barrier participants and partials at 512
      o.grid_block = 256;
      alternatives.push_back({"grid-256", o});
      o.grid_block = 512;
      alternatives.push_back({"grid-512", o});
    }
    if (n <= size_t(CudaOptions{}.single_reduction_max_particles)) {  // item 18 forced each way
      o = {};
      o.cg_path = CgPath::kGrid;
      o.stage_halo = 1;
      alternatives.push_back({"grid-staged", o});
      o.stage_rows = false;
      alternatives.push_back({"grid-staged-entries", o});
      o.stage_rows = true;
      o.stage_entries = false;
      alternatives.push_back({"grid-staged-halo", o});
      o.stage_entries = true;
      o.stage_halo = -1;
      alternatives.push_back({"grid-unstaged", o});
    }
    if (n <= 262144) {  // item 29 off
      o = {};
      o.cg_path = CgPath::kGrid;
      o.split_sums = false;
      alternatives.push_back({"grid-sums-in-warp-0", o});
      o.split_sums = true;
      o.paired_walk = false;
      alternatives.push_back({"grid-single-walk", o});
      o.paired_walk = true;
      o.stage_springs = -1;  // item 31 off
      alternatives.push_back({"grid-entries-wide", o});
      o.stage_springs = 1;  // and forced wherever it fits
      alternatives.push_back({"grid-springs-once", o});
      o.stage_springs = 0;
      o.last_arrival = false;  // item 33 off
      alternatives.push_back({"grid-barrier-polled", o});
      o.last_arrival = true;
      o.lane_sums = false;  // item 35 off
      alternatives.push_back({"grid-sums-in-first-lane", o});
      o.lane_sums = true;
      if (n <= size_t(o.single_reduction_max_particles)) {  // where item 14's kernel runs
        o.fill_on_chip = 0;                                 // item 43 off
        alternatives.push_back({"grid-fill-from-global", o});
        o.fill_on_chip = kFillInverses;  // each part of it alone, and both
        alternatives.push_back({"grid-fill-inverses", o});
        o.fill_on_chip = kFillRows;
        alternatives.push_back({"grid-fill-rows", o});
        o.fill_on_chip = kFillInverses | kFillRows;
        alternatives.push_back({"grid-fill-both", o});
        o.fill_on_chip = -1;
        o.scalars_ahead = false;  // item 44 off
        alternatives.push_back({"grid-scalars-divided", o});
        o.scalars_ahead = true;
        o.rows_in_registers = false;  // item 45 off: the own rows' area, and item 43's default
        alternatives.push_back({"grid-rows-in-shared", o});
        o.rows_in_registers = true;
        o.entry_columns = false;  // item 46 off: the words in CSR order, springs first-named
        alternatives.push_back({"grid-entries-by-row", o});
        o.entry_columns = true;
        o.rows_by_direction = false;  // item 47 off: each row's entries by spring
        alternatives.push_back({"grid-rows-by-spring", o});
        o.rows_by_direction = true;
        o.halo_colours = !o.halo_colours;  // item 51 toggled: the outside slots by bank or not
        alternatives.push_back({o.halo_colours ? "grid-halo-coloured" : "grid-halo-ascending", o});
        o.halo_colours = !o.halo_colours;
      }
      o.float4_layout = false;  // item 3 off on the grid
      alternatives.push_back({"grid-float3", o});
    }
    if (n > 32768 && n <= 262144) {
      // the grid beyond item 14's old limit (32768): its two-barrier kernel (item 14 off), and
      // item 14 on one lane (its rule past one round of rows), on two, and where its default
      // stops (262k: cloth 512) forced on
      o = {};
      o.cg_path = CgPath::kGrid;
      o.single_reduction_max_particles = 0;
      alternatives.push_back({"grid-two-barrier", o});
      o.single_reduction_max_particles = std::numeric_limits<int>::max();
      o.stage_halo = -1;
      alternatives.push_back({"grid-single-unstaged", o});
      o.stage_halo = 0;
      if (n > 512 * size_t(b.multiprocessors)) {  // past one round of rows (512 threads per SM)
        o.gather_lanes = 1;
        alternatives.push_back({"grid-single-lanes-1", o});
        o.gather_lanes = 2;
        alternatives.push_back({"grid-single-lanes-2", o});
      }
    }
    if (n <= 6000) {
      o = {};
      o.cg_path = CgPath::kOneBlock;
      alternatives.push_back({"one-block", o});
    }
    for (const std::string& wanted : b.args.paths) {
      if (std::none_of(alternatives.begin(), alternatives.end(),
                       [&](const Alternative& alt) { return wanted == alt.name; })) {
        b.bad_path = "no path '" + wanted + "' at " + name + " " + std::to_string(res);
        return;
      }
    }
    for (const Alternative& alt : alternatives) {
      if (targeted &&
          std::find(b.args.paths.begin(), b.args.paths.end(), alt.name) == b.args.paths.end()) {
        continue;
      }
      if (b.outOfTime()) return;
      RunSummary run = runHooke(alt.options, scene, settings, kDt, sized.warmup, sized.steps);
      progress(alt.name, name, res, run, b.elapsed());
      b.paths.push_back(Json::object({{"scene", Json::string(name)},
                                      {"res", Json::integer(res)},
                                      {"particles", Json::integer((long long)n)},
                                      {"springs", Json::integer((long long)springs)},
                                      {"path", Json::string(alt.name)},
                                      {"mode", Json::string(mode)},
                                      {"ok", Json::boolean(run.ok)},
                                      {"step_ms", Json::number(run.step_ms)},
                                      {"cg_ms", Json::number(run.cg_ms)},
                                      {"cg_iterations", Json::number(run.iterations)},
                                      {"iteration_us", Json::number(run.iteration_us)},
                                      {"lanes", Json::integer(run.lanes)},
                                      {"grid_block", Json::integer(run.grid_block)},
                                      {"staged", Json::boolean(run.staged)},
                                      {"staged_entries", Json::boolean(run.staged_entries)},
                                      {"staged_rows", Json::boolean(run.staged_rows)},
                                      {"staged_springs", Json::boolean(run.staged_springs)},
                                      {"fill_on_chip", Json::integer(run.fill_on_chip)},
                                      {"rows_in_registers", Json::boolean(run.rows_in_registers)},
                                      {"entry_columns", Json::boolean(run.entry_columns)},
                                      {"rows_by_direction", Json::boolean(run.rows_by_direction)},
                                      {"halo_colours", Json::boolean(run.halo_colours)},
                                      {"compact", Json::boolean(run.compact)},
                                      {"stencil", Json::boolean(run.stencil)},
                                      {"tile", tileJson(run)},
                                      {"ahead", Json::boolean(run.ahead)},
                                      {"offset_blocks", Json::boolean(run.offset_blocks)},
                                      {"streamed_blocks", Json::boolean(run.streamed_blocks)},
                                      {"alpha_in_update", Json::boolean(run.alpha_in_update)},
                                      {"direction_held", Json::integer(run.direction_held)},
                                      {"apply_kernel", applyKernelJson(run)},
                                      {"error", Json::string(run.error)}}));
    }
  }
  // the floors for this system, per iteration and scaled to the fastest path's iterations (not in
  // a targeted run: it has no tolerance row)
  if (targeted) return;
  const double iterations = fastest_tol.ok ? fastest_tol.iterations : 0.0;
  RunSummary latency;
  latency.ok = true;
  latency.path = "floor";
  latency.iteration_us = b.floors.latency_graph_us;
  latency.iterations = iterations;
  latency.step_ms = iterations * latency.iteration_us / 1000.0;
  add("floor_latency", "tolerance", latency);
  RunSummary bandwidth = latency;
  bandwidth.iteration_us = b.floors.copy_gb_per_s > 0.0 ? minimumIterationBytes(n, springs) /
                                                              (b.floors.copy_gb_per_s * 1e9) * 1e6
                                                        : 0.0;
  bandwidth.step_ms = iterations * bandwidth.iteration_us / 1000.0;
  add("floor_bandwidth", "tolerance", bandwidth);
}

// [SECTION] ablation

struct Item {
  int id;           // 13: item 12's warm start, toggled from the default
  const char* key;  // "disabled" in the JSON
  const char* name;
};

constexpr Item kItems[] = {
    {1, "1", "device-held CG scalars, host reads every K (off: every iteration)"},
    {2, "2", "fused kernels / phases (off: separate alpha, beta and direction stages)"},
    {3, "3", "float4 vectors (off: packed float3)"},
    {4, "4",
     "__launch_bounds__ (one block: taken off, 256 threads; grid: (256) instead of none / (512, "
     "1))"},
    {5, "5", "__ldg on read-only data (off: plain loads)"},
    {6, "6", "L2 persisting window (toggled from the default)"},
    {7, "7", "branchless pinned masks (off: branches)"},
    {8, "8", "warp-shuffle reductions (off: shared-memory tree)"},
    {9, "9", "L1-preferred carve-out (off: default)"},
    {10, "10", "no per-iteration launches: graphs / whole-CG kernel (off: plain launches)"},
    {11, "11", "one-block small-system path (off: next path by size)"},
    {12, "12", "block-Jacobi preconditioner (off: point Jacobi)"},
    {13, "12-warm", "warm start from the previous step's dv (toggled from the default)"},
    {14, "13", "gather lanes: a particle's springs over several threads (off: one thread)"},
    {15, "14", "single-reduction CG: one grid barrier per iteration (off: two, standard PCG)"},
    {16, "15", "locality order: particles along a Morton curve (off: the model's own order)"},
    {17, "16", "batched gather loads in the launched A p (off: one entry at a time)"},
    {18, "17", "grid lanes hold their row's adjacency entries in registers (off: walked)"},
    {19, "18", "halos staged in shared memory for item 14's gather (off: recomputed by gatherers)"},
    {20, "20", "4-byte adjacency entries in the launched A p (off: 8-byte spring, other pairs)"},
    {21, "21", "programmatic dependent launch of the launched path's kernels (off: plain order)"},
    {22, "22",
     "offset-stencil rows in the launched A p (off: item 15's Morton order, item 20's entries)"},
    {23, "23", "lattice tiles of the stencil rows in the launched A p (off: rows in order)"},
    {24, "24", "stencil rows' words loaded a round ahead in the launched A p (off: at the row)"},
    {25, "25", "dv += alpha p in the launched direction kernel (off: in the update kernel)"},
    {26, "26",
     "update and direction in one cooperative launch, z kept in shared memory (off: two kernels)"},
    {27, "27",
     "staged rows through the halo, the fill's loads with the partials (off: loaded at the row)"},
    {28, "28", "the grid's blocks sized to one per multiprocessor (off: 256 or 512 threads)"},
    {29, "29", "each grid-wide sum by a warp of its own, loaded before the fill (off: warp 0)"},
    {30, "30", "item 27's rows walk shared entries two at a time (off: one, through a branch)"},
    {31, "31", "each block's springs staged once (off: entries staged only at 20 bytes each)"},
    {33, "33", "the grid barrier's last block goes on without polling (off: cooperative groups)"},
    {35, "35", "lane k of a row forms its sum k for the block's sums (off: the first lane)"},
    {37, "37", "offset blocks: the launched A p's springs at computed places (off: spring runs)"},
    {38, "38",
     "alpha formed by the joined update's blocks (off: by the launched A p's last block)"},
    {39, "39", "offset blocks streamed through L2, evict-first (off: cached as the rest)"},
    {41, "41",
     "the joined update's beta formed once by its last block, released (off: a grid barrier, "
     "then every block)"},
    {43, "43",
     "item 27's fill: P^-1 blocks and own rows in shared memory (off: loads every slot's)"},
    {44, "44",
     "item 14's scalars: stop on r.r vs target^2, 1/gamma and 1/alpha ahead (off: 3 divisions)"},
    {45, "45", "item 27's rows on one lane keep their values in registers (off: in shared memory)"},
    {46, "46",
     "item 27's walk: words by column, springs coloured against bank conflicts (off: by row)"},
    {47, "47", "one-lane grid rows: each row's entries by direction (off: by spring)"},
    {51, "51", "staged halos' outside slots placed by bank (toggled from the default)"},
};

void measureAblation(Bench& b, const std::string& name, int res, const Scene& scene) {
  const size_t n = scene.model.particleCount();
  const Sized sized = stepsFor(n, b.args.quick);
  const SolverSettings settings = settingsFor(false);
  if (b.outOfTime()) return;
  const RunSummary base = runHooke(CudaOptions{}, scene, settings, kDt, sized.warmup, sized.steps);
  progress("abl-base", name, res, base, b.elapsed());
  if (!base.ok) return;
  const bool launched = base.path == "launches", one_block = base.path == "one-block";
  for (const Item& item : kItems) {
    CudaOptions o;
    bool applies = true;
    std::string note;
    switch (item.id) {
      case 1:
        if (launched) {
          o.check_interval = 1;
        } else {
          o.whole_cg_interval = 1;
        }
        break;
      case 2:
        o.fused_finish = false;
        break;
      case 3:
        o.float4_layout = false;
        break;
      case 4:
      case 5:
      case 7:
      case 8:
        applies = !launched;
        if (!applies) note = "compile-time; switchable in the whole-CG kernels only";
        o.ablate_static = item.id;
        break;
      case 6:
        o.l2_persist = !o.l2_persist;
        note = o.l2_persist ? "turned on (off by default)" : "turned off";
        break;
      case 9:
        o.prefer_l1 = false;
        break;
      case 10:
        o.cg_path = CgPath::kLaunches;
        o.cg_graph = false;
        if (one_block) note = "also leaves the one-block path (11)";
        break;
      case 11:
        applies = one_block;
        if (!applies) note = "the one-block path is not used at this size";
        o.one_block_max_particles = 0;
        break;
      case 12:
        o.block_jacobi = false;
        break;
      case 13:
        o.warm_start = !o.warm_start;
        note = o.warm_start ? "turned on (off by default)" : "turned off";
        break;
      case 15:
        applies = base.path == "grid" && n <= size_t(o.single_reduction_max_particles);
        if (!applies) note = "the grid path up to single_reduction_max_particles only";
        o.single_reduction_max_particles = 0;
        break;
      case 16:
        applies = !(launched && base.stencil);
        if (!applies) note = "item 22 keeps the model's order at this size";
        o.locality_order = false;
        break;
      case 17:
        applies = launched && n > 512 * size_t(b.multiprocessors);
        if (!applies) note = "the launched path beyond 512 particles per multiprocessor only";
        o.gather_batch = 1;
        break;
      case 18:
        applies = base.path == "grid";
        if (!applies) note = "the cooperative grid path only";
        o.hold_entries = false;
        break;
      case 19:
        applies = base.path == "grid" && n <= size_t(o.single_reduction_max_particles);
        if (!applies) note = "the grid path up to single_reduction_max_particles only";
        if (applies && !base.staged) {
          applies = false;
          note = "not staged at this size (the rule)";
        }
        o.stage_halo = -1;
        break;
      case 20:
        applies = launched && base.compact;
        if (!applies) {
          note = launched && base.stencil ? "item 22's stencil rows are read instead (paths: "
                                            "launches-entries against launches-pairs)"
                                          : "the launched path with batched loads only";
        }
        o.compact_entries = false;
        break;
      case 22:
        applies = launched && base.stencil;
        if (!applies) note = "the launched path with batched loads on a lattice's springs only";
        o.stencil_rows = false;
        break;
      case 23:
        applies = launched && base.tile[0] > 0;
        if (!applies) note = "the launched path's stencil rows on a lattice only";
        o.lattice_tiles = false;
        break;
      case 25:
        applies = launched && base.direction_held == 0;
        if (!applies) {
          note = launched ? "item 26's joined kernel adds dv itself (paths: launches-dv-in-update "
                            "against launches-two-kernels)"
                          : "the launched path only";
        }
        o.dv_in_direction = false;
        break;
      case 26:
        applies = launched && base.direction_held > 0;
        if (!applies) note = "the launched path where its grid stays resident only";
        o.direction_in_update = false;
        break;
      case 27:
        applies = base.path == "grid" && base.staged_rows;
        if (!applies) note = "the staged grid with its entries staged (one round of rows) only";
        o.stage_rows = false;
        break;
      case 28:
        applies = base.path == "grid" && n <= size_t(o.single_reduction_max_particles);
        if (!applies) note = "the grid path up to single_reduction_max_particles only";
        o.balance_grid = false;
        break;
      case 29:
        applies = base.path == "grid";
        if (!applies) note = "the grid path only";
        o.split_sums = false;
        break;
      case 30:
        applies = base.path == "grid" && base.staged_rows;
        if (!applies) note = "the staged grid with its entries staged (one round of rows) only";
        o.paired_walk = false;
        break;
      case 31:
        applies = base.path == "grid" && base.staged_springs;
        if (!applies)
          note = "where the 20-byte entries do not fit a block (one round of rows) only";
        o.stage_springs = -1;
        break;
      case 33:
        // the joined kernel's barrier only where it runs without item 38, and so without item 41
        applies =
            base.path == "grid" || (launched && base.direction_held > 0 && !base.alpha_in_update);
        if (!applies) note = "the grid path and item 26's joined kernel without item 38 only";
        o.last_arrival = false;
        break;
      case 35:
        applies = base.path == "grid" && base.staged_rows && base.lanes >= 4;
        if (!applies) note = "item 27's rows on 4 or more lanes only";
        o.lane_sums = false;
        break;
      case 43:
        applies = base.path == "grid" && base.fill_on_chip != 0;
        if (!applies) note = "item 27's rows where item 43's shared memory fits only";
        o.fill_on_chip = 0;
        break;
      case 44:
        applies = base.path == "grid" && n <= size_t(o.single_reduction_max_particles);
        if (!applies)
          note = "item 14's kernel (the grid up to single_reduction_max_particles) only";
        o.scalars_ahead = false;
        break;
      case 45:
        applies = base.path == "grid" && base.rows_in_registers;
        if (!applies) note = "item 27's rows on one lane only";
        o.rows_in_registers = false;
        break;
      case 46:
        applies = base.path == "grid" && base.entry_columns;
        if (!applies) note = "item 27's rows with item 31's springs only";
        o.entry_columns = false;
        break;
      case 47:
        applies = base.path == "grid" && base.rows_by_direction;
        if (!applies) note = "item 14's grid on one lane in one round of rows only";
        o.rows_by_direction = false;
        break;
      case 51:
        applies = base.path == "grid" && base.staged_entries;
        if (!applies) note = "item 14's staged grid in one round of rows only";
        o.halo_colours = !o.halo_colours;
        if (applies) note = o.halo_colours ? "turned on (off by default)" : "turned off";
        break;
      case 41:
        applies = launched && base.alpha_in_update;
        if (!applies) note = "item 26's joined kernel with item 38 only";
        o.beta_once = false;
        break;
      case 38:
        applies = launched && base.alpha_in_update;
        note = applies ? "also turns off item 41, which runs with it only"
                       : "item 26's joined kernel only";
        o.alpha_in_update = false;
        break;
      case 39:
        applies = launched && base.streamed_blocks;
        if (!applies) note = "the launched path's offset blocks where the rest fits 3/4 of L2 only";
        o.stream_offset_blocks = -1;
        break;
      case 37:
        applies = launched && base.offset_blocks;
        if (!applies) note = "the launched path's stencil rows only";
        o.offset_blocks = false;
        break;
      case 24:
        applies = launched && base.ahead;
        if (!applies) note = "the launched path's stencil rows without item 37 only";
        o.stencil_ahead = false;
        break;
      case 21:
        applies = launched && n <= size_t(o.dependent_launch_max_particles);
        if (!applies) note = "the launched path up to dependent_launch_max_particles only";
        o.dependent_launch_max_particles = 0;
        break;
      case 14:
        applies = base.lanes > 1;
        if (!applies) note = "one lane per particle is the automatic choice at this size";
        o.gather_lanes = 1;
        break;
    }
    RunSummary run = base;
    if (applies) {
      if (b.outOfTime()) return;
      run = runHooke(o, scene, settings, kDt, sized.warmup, sized.steps);
      char label[16];
      std::snprintf(label, sizeof label, "abl-%s", item.key);
      progress(label, name, res, run, b.elapsed());
    }
    const double slowdown = run.ok && base.step_ms > 0.0 ? run.step_ms / base.step_ms : 0.0;
    b.ablation.push_back(Json::object({{"scene", Json::string(name)},
                                       {"res", Json::integer(res)},
                                       {"disabled", Json::string(item.key)},
                                       {"name", Json::string(item.name)},
                                       {"fastest_path", Json::string(base.path)},
                                       {"path", Json::string(run.path)},
                                       {"applies", Json::boolean(applies)},
                                       {"step_ms", Json::number(run.step_ms)},
                                       {"fastest_step_ms", Json::number(base.step_ms)},
                                       {"fastest_cg_iterations", Json::number(base.iterations)},
                                       {"slowdown", Json::number(slowdown)},
                                       {"cg_iterations", Json::number(run.iterations)},
                                       {"iteration_us", Json::number(run.iteration_us)},
                                       {"lanes", Json::integer(run.lanes)},
                                       {"note", Json::string(run.ok ? note : run.error)}}));
  }
}

// [SECTION] crossover of the one-block path

void measureCrossover(Bench& b) {
  const SolverSettings settings = settingsFor(true);
  struct Point {
    const char* scene;
    int res;
  };
  const Point points[] = {{"cloth", 8},   {"cloth", 12},  {"cloth", 16},  {"cloth", 24},
                          {"cloth", 32},  {"cloth", 40},  {"cloth", 48},  {"cloth", 56},
                          {"cloth", 64},  {"cloth", 72},  {"volume", 6},  {"volume", 8},
                          {"volume", 10}, {"volume", 12}, {"volume", 14}, {"volume", 16},
                          {"volume", 18}, {"volume", 20}, {"volume", 22}};
  for (const Point& p : points) {
    const Scene scene =
        std::string(p.scene) == "cloth" ? makeCloth(p.res, {}) : makeVolume(p.res, {});
    const size_t n = scene.model.particleCount(), springs = scene.model.springCount();
    Fields f = {{"scene", Json::string(p.scene)},
                {"res", Json::integer(p.res)},
                {"particles", Json::integer((long long)n)},
                {"springs", Json::integer((long long)springs)},
                {"entries", Json::integer((long long)(n + 2 * springs))}};
    for (CgPath path : {CgPath::kOneBlock, CgPath::kGrid, CgPath::kLaunches}) {
      if (b.outOfTime()) return;
      CudaOptions o;
      o.cg_path = path;
      const RunSummary run = runHooke(o, scene, settings, kDt, 2, b.args.quick ? 4 : 10);
      const std::string key = cgPathName(path);
      f.push_back({key + "_iteration_us", Json::number(run.ok ? run.iteration_us : NAN)});
      f.push_back({key + "_step_ms", Json::number(run.ok ? run.step_ms : NAN)});
      progress(cgPathName(path), p.scene, p.res, run, b.elapsed());
    }
    b.crossover.push_back(Json::object(f));
  }
}

// [SECTION] the grid's block size (CudaOptions::grid_block's automatic rule), fixed count

void measureGridBlock(Bench& b) {
  const SolverSettings settings = settingsFor(true);
  struct Point {
    const char* scene;
    int res;
  };
  const Point points[] = {{"cloth", 64},  {"cloth", 72},  {"cloth", 80},  {"cloth", 88},
                          {"cloth", 96},  {"cloth", 104}, {"cloth", 112}, {"cloth", 128},
                          {"cloth", 192}, {"volume", 26}, {"volume", 30}, {"volume", 33},
                          {"volume", 36}, {"volume", 41}, {"volume", 52}, {"volume", 64}};
  for (const Point& p : points) {
    const Scene scene =
        std::string(p.scene) == "cloth" ? makeCloth(p.res, {}) : makeVolume(p.res, {});
    const size_t n = scene.model.particleCount(), springs = scene.model.springCount();
    const Sized sized = stepsFor(n, true);
    Fields f = {{"scene", Json::string(p.scene)},
                {"res", Json::integer(p.res)},
                {"particles", Json::integer((long long)n)},
                {"springs", Json::integer((long long)springs)}};
    for (int block : {0, 256, 512}) {
      if (b.outOfTime()) return;
      CudaOptions o;
      o.cg_path = CgPath::kGrid;
      o.grid_block = block;
      const RunSummary run = runHooke(o, scene, settings, kDt, sized.warmup, sized.steps);
      const std::string key = block == 0 ? std::string("automatic") : std::to_string(block);
      if (block == 0) {
        f.push_back({"lanes", Json::integer(run.lanes)});
        f.push_back({"automatic_block", Json::integer(run.grid_block)});
      }
      f.push_back({key + "_iteration_us", Json::number(run.ok ? run.iteration_us : NAN)});
      char label[24];
      std::snprintf(label, sizeof label, "block-%s", key.c_str());
      progress(label, p.scene, p.res, run, b.elapsed());
    }
    b.grid_block.push_back(Json::object(f));
  }
}

// [SECTION] item 13: lanes per particle, per path and size (fixed iteration count)

void measureLanes(Bench& b) {
  const SolverSettings settings = settingsFor(true);
  struct Point {
    const char* scene;
    int res;
  };
  const Point points[] = {{"cloth", 32},   {"cloth", 128}, {"cloth", 256}, {"cloth", 512},
                          {"cloth", 1024}, {"volume", 16}, {"volume", 41}, {"volume", 64},
                          {"volume", 102}, {"volume", 162}};
  for (const Point& p : points) {
    const bool cloth = std::string(p.scene) == "cloth";
    const size_t estimate = cloth ? size_t(p.res) * size_t(p.res)
                                  : size_t(p.res) * size_t(p.res / 2) * size_t(p.res / 2);
    if (estimate > size_t(b.args.max_res) * size_t(b.args.max_res) * 11 / 10) continue;
    const Scene scene = cloth ? makeCloth(p.res, {}) : makeVolume(p.res, {});
    const size_t n = scene.model.particleCount(), springs = scene.model.springCount();
    const Sized sized = stepsFor(n, true);
    for (CgPath path : {CgPath::kGrid, CgPath::kLaunches}) {
      if (path == CgPath::kGrid && n > 300000) continue;  // the grid loses there at any count
      for (int lanes : {0, 1, 2, 4, 8, 16}) {
        if (b.outOfTime()) return;
        CudaOptions o;
        o.cg_path = path;
        o.gather_lanes = lanes;
        const RunSummary run = runHooke(o, scene, settings, kDt, sized.warmup, sized.steps);
        char label[24];
        std::snprintf(label, sizeof label, "lanes-%d%s", run.lanes, lanes == 0 ? "a" : "");
        progress(label, p.scene, p.res, run, b.elapsed());
        b.lanes.push_back(Json::object({{"scene", Json::string(p.scene)},
                                        {"res", Json::integer(p.res)},
                                        {"particles", Json::integer((long long)n)},
                                        {"springs", Json::integer((long long)springs)},
                                        {"path", Json::string(cgPathName(path))},
                                        {"automatic", Json::boolean(lanes == 0)},
                                        {"lanes", Json::integer(run.lanes)},
                                        {"ok", Json::boolean(run.ok)},
                                        {"step_ms", Json::number(run.step_ms)},
                                        {"iteration_us", Json::number(run.iteration_us)},
                                        {"error", Json::string(run.error)}}));
      }
    }
  }
}

// [SECTION] item 13 on the staged grid (items 18 and 27): lanes per particle by block size, fixed
// iteration count. The sizes the grid runs with item 27, finer than measureLanes's.

void measureGridLanes(Bench& b) {
  const SolverSettings settings = settingsFor(true);
  struct Point {
    const char* scene;
    int res;
  };
  const Point points[] = {{"cloth", 24},  {"cloth", 32},  {"cloth", 40},  {"cloth", 48},
                          {"cloth", 64},  {"cloth", 80},  {"cloth", 96},  {"cloth", 112},
                          {"cloth", 128}, {"volume", 12}, {"volume", 16}, {"volume", 20},
                          {"volume", 26}, {"volume", 30}, {"volume", 33}, {"volume", 36},
                          {"volume", 41}};
  for (const Point& p : points) {
    const bool cloth = std::string(p.scene) == "cloth";
    const Scene scene = cloth ? makeCloth(p.res, {}) : makeVolume(p.res, {});
    const size_t n = scene.model.particleCount(), springs = scene.model.springCount();
    const Sized sized = stepsFor(n, true);
    // -1: item 28's balanced blocks (CudaOptions::balance_grid), one per multiprocessor where
    // they are at most 512 threads (else the automatic block)
    for (int block : {0, 256, 512, -1}) {
      for (int lanes : {0, 1, 2, 4, 8, 16}) {
        if (lanes == 0 && block > 0) continue;  // the automatic lanes with the automatic blocks
        if (b.outOfTime()) return;
        CudaOptions o;
        o.cg_path = CgPath::kGrid;
        o.grid_block = std::max(block, 0);
        o.balance_grid = block < 0;
        o.gather_lanes = lanes;
        const RunSummary run = runHooke(o, scene, settings, kDt, sized.warmup, sized.steps);
        char label[32];
        std::snprintf(label, sizeof label, "grid-lanes-%d-%d%s", run.lanes, run.grid_block,
                      lanes == 0  ? "a"
                      : block < 0 ? "b"
                                  : "");
        progress(label, p.scene, p.res, run, b.elapsed());
        b.grid_lanes.push_back(Json::object({{"scene", Json::string(p.scene)},
                                             {"res", Json::integer(p.res)},
                                             {"particles", Json::integer((long long)n)},
                                             {"springs", Json::integer((long long)springs)},
                                             {"automatic", Json::boolean(lanes == 0)},
                                             {"lanes", Json::integer(run.lanes)},
                                             {"block", Json::integer(run.grid_block)},
                                             {"balanced", Json::boolean(block < 0)},
                                             {"staged_rows", Json::boolean(run.staged_rows)},
                                             {"ok", Json::boolean(run.ok)},
                                             {"iteration_us", Json::number(run.iteration_us)},
                                             {"error", Json::string(run.error)}}));
      }
    }
  }
}

// [SECTION] item 23: lattice tiles of the launched q = A p, per size (fixed iteration count)

void measureTiles(Bench& b) {
  const SolverSettings settings = settingsFor(true);
  struct Point {
    const char* scene;
    int res;
  };
  const Point points[] = {{"cloth", 512}, {"cloth", 1024}, {"volume", 102}, {"volume", 162}};
  struct Variant {
    int lanes;    // 0: automatic
    int tile[3];  // zeros: automatic; -1 in x: untiled
    bool ahead;   // item 24
    bool float4 = true;
    int batch = 0;             // item 16's batch: 0 automatic
    bool dependent = false;    // item 21 at this size
    bool two_kernels = false;  // item 26 off
  };
  // per scene: item 22 alone and items 23 and 24 each way, then other lanes and boxes
  const std::vector<Variant> cloth_shapes = {
      {0, {-1, 0, 0}, false}, {0, {-1, 0, 0}, true},  {0, {0, 0, 0}, false}, {0, {0, 0, 0}, true},
      {2, {0, 0, 0}, true},   {1, {32, 16, 1}, true}, {1, {16, 16, 1}, true}};
  const std::vector<Variant> volume_shapes = {
      {0, {-1, 0, 0}, false}, {0, {-1, 0, 0}, true}, {0, {0, 0, 0}, false}, {0, {0, 0, 0}, true},
      {4, {0, 0, 0}, true},   {0, {16, 2, 4}, true}, {1, {0, 0, 0}, true}};
  // for both: the automatic box with one thing changed (packed float3, batches of 3 or 4, item
  // 21 at this size, item 26 off)
  const Variant changes[] = {{0, {0, 0, 0}, true, false},
                             {0, {0, 0, 0}, true, true, 3},
                             {0, {0, 0, 0}, true, true, 4},
                             {0, {0, 0, 0}, true, true, 0, true},
                             {0, {0, 0, 0}, true, true, 0, false, true}};
  for (const Point& p : points) {
    if (p.res > b.args.max_res && std::string(p.scene) == "cloth") continue;
    if (p.res > b.args.max_res / 6 && std::string(p.scene) == "volume") continue;
    const bool cloth = std::string(p.scene) == "cloth";
    const Scene scene = cloth ? makeCloth(p.res, {}) : makeVolume(p.res, {});
    const size_t n = scene.model.particleCount(), springs = scene.model.springCount();
    const Sized sized = stepsFor(n, true);
    std::vector<Variant> variants = cloth ? cloth_shapes : volume_shapes;
    variants.insert(variants.end(), std::begin(changes), std::end(changes));
    for (const Variant& v : variants) {
      if (b.outOfTime()) return;
      CudaOptions o;
      o.cg_path = CgPath::kLaunches;
      o.gather_lanes = v.lanes;
      o.lattice_tiles = v.tile[0] >= 0;
      o.stencil_ahead = v.ahead;
      o.float4_layout = v.float4;
      o.gather_batch = v.batch;
      if (v.dependent) o.dependent_launch_max_particles = std::numeric_limits<int>::max();
      o.direction_in_update = !v.two_kernels;
      for (int a = 0; a < 3; ++a)
        o.lattice_tile[a] = std::max(0, v.tile[a]);
      const RunSummary run = runHooke(o, scene, settings, kDt, sized.warmup, sized.steps);
      char label[80];
      std::snprintf(label, sizeof label, "tile-%dx%dx%d-l%d-b%d%s%s%s-h%d", run.tile[0],
                    run.tile[1], run.tile[2], run.lanes, run.batch, run.ahead ? "-ahead" : "",
                    v.float4 ? "" : "-f3", v.dependent ? "-dependent" : "", run.direction_held);
      progress(label, p.scene, p.res, run, b.elapsed());
      b.tiles.push_back(Json::object({{"scene", Json::string(p.scene)},
                                      {"res", Json::integer(p.res)},
                                      {"particles", Json::integer((long long)n)},
                                      {"springs", Json::integer((long long)springs)},
                                      {"automatic_lanes", Json::boolean(v.lanes == 0)},
                                      {"automatic_tile", Json::boolean(v.tile[0] == 0)},
                                      {"lanes", Json::integer(run.lanes)},
                                      {"tile", tileJson(run)},
                                      {"ahead", Json::boolean(run.ahead)},
                                      {"offset_blocks", Json::boolean(run.offset_blocks)},
                                      {"streamed_blocks", Json::boolean(run.streamed_blocks)},
                                      {"float4", Json::boolean(v.float4)},
                                      {"batch", Json::integer(run.batch)},
                                      {"automatic_batch", Json::boolean(v.batch == 0)},
                                      {"dependent", Json::boolean(v.dependent)},
                                      {"direction_held", Json::integer(run.direction_held)},
                                      {"ok", Json::boolean(run.ok)},
                                      {"step_ms", Json::number(run.step_ms)},
                                      {"iteration_us", Json::number(run.iteration_us)},
                                      {"error", Json::string(run.error)}}));
    }
  }
}

// [SECTION] report

const Row* findRow(const Bench& b, const std::string& scene, int res, const std::string& variant,
                   const std::string& mode) {
  for (const Row& r : b.rows) {
    if (r.scene == scene && r.res == res && r.variant == variant && r.mode == mode) return &r;
  }
  return nullptr;
}

int run(int argc, char** argv) {
  Bench b;
  const int parsed = parseArgs(argc, argv, &b.args);
  if (parsed >= 0) return parsed;

  CudaDeviceInfo info;
  std::string why_not;
  if (!queryCudaDevice(0, &info, &why_not)) {
    std::fprintf(stderr, "hooke-bench-gpu: %s\n", why_not.c_str());
    return 2;
  }
  b.multiprocessors = info.multiprocessors;
  const std::string date = utcDate();
  const std::string driver = driverVersion(info.driver_version);
  const std::string cuda = std::to_string(info.runtime_version / 1000) + "." +
                           std::to_string((info.runtime_version % 1000) / 10);
  std::printf("hooke-bench-gpu: %s (cc %d.%d, %d SMs, L2 %zu MiB), driver %s, CUDA %s, commit %s\n",
              info.name.c_str(), info.compute_major, info.compute_minor, info.multiprocessors,
              info.l2_bytes >> 20, driver.c_str(), cuda.c_str(), b.args.commit.c_str());

  Status measured = measureFloors(&b.floors);
  if (!measured) std::printf("floors: FAILED: %s\n", measured.message().c_str());
  std::printf(
      "floors: copy %.0f GB/s; 3-phase chain %.2f us/iteration (graph), %.2f (stream), "
      "%.2f (cooperative, 3 grid barriers)\n",
      b.floors.copy_gb_per_s, b.floors.latency_graph_us, b.floors.latency_stream_us,
      b.floors.latency_cooperative_us);
  std::fflush(stdout);

  const bool only =
      b.args.lanes_only || b.args.tiles_only || b.args.grid_lanes_only || b.args.ablation_only;
  if ((b.args.lanes && !only) || b.args.lanes_only) measureLanes(b);
  if ((b.args.grid_lanes && !only) || b.args.grid_lanes_only) measureGridLanes(b);
  if ((b.args.tiles && !only) || b.args.tiles_only) measureTiles(b);
  if (b.args.crossover && !only) measureCrossover(b);
  if (b.args.crossover && !only) measureGridBlock(b);

  // cloth, the ablation, then the volumes (the order in which a short budget cuts them off)
  const int cloth_res[] = {32, 64, 128, 256, 512, 1024};
  if (!b.args.scene_name.empty() && !only) {
    const int res = b.args.scene_res;
    const bool cloth = b.args.scene_name == "cloth";
    measureScene(b, b.args.scene_name, res, cloth ? makeCloth(res, {}) : makeVolume(res, {}));
  }
  for (const char* scene_name : {"cloth", "volume"}) {
    if ((only && !b.args.ablation_only) || !b.args.scene_name.empty()) break;
    for (int res : cloth_res) {
      if (b.args.ablation_only) break;
      if (res > b.args.max_res || res < b.args.min_res) continue;
      const bool cloth = std::string(scene_name) == "cloth";
      const int scene_res = cloth ? res : volumeResFor(size_t(res) * size_t(res));
      const Scene scene = cloth ? makeCloth(scene_res, {}) : makeVolume(scene_res, {});
      measureScene(b, scene_name, scene_res, scene);
    }
    if (b.args.ablation && std::string(scene_name) == "cloth") {
      for (int res : {32, 128, 256, 1024}) {
        if (res > b.args.max_res || res < b.args.min_res) continue;
        measureAblation(b, "cloth", res, makeCloth(res, {}));
      }
      if (b.args.min_res <= 32) measureAblation(b, "volume", 16, makeVolume(16, {}));
      if (b.args.max_res >= 256 && b.args.min_res <= 256)
        measureAblation(b, "volume", 64, makeVolume(64, {}));
    }
  }

  if (!b.bad_path.empty()) {
    std::fprintf(stderr, "hooke-bench-gpu: --paths: %s\n", b.bad_path.c_str());
    return 2;
  }
  // JSON
  std::vector<Json> paths_asked;
  for (const std::string& name : b.args.paths)
    paths_asked.push_back(Json::string(name));
  std::vector<Json> rows;
  for (const Row& r : b.rows)
    rows.push_back(rowJson(r));
  const Fields top = {
      {"gpu", Json::string(info.name)},
      {"driver", Json::string(driver)},
      {"cuda", Json::string(cuda)},
      {"commit", Json::string(b.args.commit)},
      {"date", Json::string(date)},
      {"benchmark", Json::string("hooke-bench-gpu")},
      {"settings",
       Json::object({{"h", Json::number(kDt)},
                     {"tolerance", Json::number(kTolerance)},
                     {"cg_cap", Json::integer(kCap)},
                     {"fixed_iterations", Json::integer(kFixedIterations)},
                     {"step_ms", Json::string("median host wall time of one whole step, synced")},
                     {"textbook", Json::string("scalar CSR assembled on the GPU every step, "
                                               "cusparseSpMV + cuBLAS, Jacobi, scalars on host")},
                     {"original", Json::string("items 1-9: 5 launches/iteration, K=8, no graph")},
                     {"fastest", Json::string("CudaOptions{} defaults (automatic path)")},
                     {"floor_bandwidth_bytes", Json::string("160 B/particle + 28 B/spring")},
                     // --paths: only the fixed-count fastest row and these paths were measured
                     {"paths_only", Json::array(paths_asked)}})},
      {"device", Json::object({{"multiprocessors", Json::integer(info.multiprocessors)},
                               {"l2_bytes", Json::integer((long long)info.l2_bytes)},
                               {"compute", Json::string(std::to_string(info.compute_major) + "." +
                                                        std::to_string(info.compute_minor))}})},
      {"floors",
       Json::object({{"copy_gb_per_s", Json::number(b.floors.copy_gb_per_s)},
                     {"latency_graph_us", Json::number(b.floors.latency_graph_us)},
                     {"latency_stream_us", Json::number(b.floors.latency_stream_us)},
                     {"latency_cooperative_us", Json::number(b.floors.latency_cooperative_us)}})},
      {"rows", Json::array(rows)},
      {"paths", Json::array(b.paths)},
      {"ablation", Json::array(b.ablation)},
      {"crossover", Json::array(b.crossover)},
      {"lanes", Json::array(b.lanes)},
      {"grid_lanes", Json::array(b.grid_lanes)},
      {"tiles", Json::array(b.tiles)},
      {"grid_block", Json::array(b.grid_block)},
      {"skipped_for_time", Json::integer(b.skipped)},
      {"wall_s", Json::number(b.elapsed())}};
  if (!b.args.json_path.empty()) {
    std::ofstream out(b.args.json_path);
    out << Json::object(top).text() << "\n";
    if (!out) {
      std::fprintf(stderr, "hooke-bench-gpu: could not write %s\n", b.args.json_path.c_str());
      return 1;
    }
    std::printf("wrote %s\n", b.args.json_path.c_str());
  }

  // the short table: to tolerance, then fixed count
  for (const char* mode : {"tolerance", "fixed"}) {
    std::printf("\n%s (h = 1/60, %s): step ms [us/iteration]\n", mode,
                std::string(mode) == "fixed" ? "100 CG iterations" : "tol 1e-4, cap 500");
    std::printf("%-6s %5s %8s %18s %18s %24s %7s %7s %7s %7s\n", "scene", "res", "n", "textbook",
                "original", "fastest (path)", "its", "x_text", "/lat", "/bw");
    for (const char* scene_name : {"cloth", "volume"}) {
      for (const Row& r : b.rows) {
        if (r.scene != scene_name || r.variant != "fastest" || r.mode != mode) continue;
        const Row* t = findRow(b, r.scene, r.res, "textbook", mode);
        const Row* o = findRow(b, r.scene, r.res, "original", mode);
        const Row* lat = findRow(b, r.scene, r.res, "floor_latency", "tolerance");
        const Row* bw = findRow(b, r.scene, r.res, "floor_bandwidth", "tolerance");
        auto cell = [](const Row* x) {
          char text[40];
          if (!x || !x->run.ok) return std::string("-");
          std::snprintf(text, sizeof text, "%.3f [%.1f]", x->run.step_ms, x->run.iteration_us);
          return std::string(text);
        };
        char fastest[48];
        std::snprintf(fastest, sizeof fastest, "%s (%s)", cell(&r).c_str(), r.run.path.c_str());
        std::printf(
            "%-6s %5d %8zu %18s %18s %24s %7.0f %7.1f %7.2f %7.2f\n", r.scene.c_str(), r.res,
            r.particles, cell(t).c_str(), cell(o).c_str(), fastest, r.run.iterations,
            t && t->run.ok && r.run.ok ? t->run.step_ms / r.run.step_ms : 0.0,
            lat ? r.run.iteration_us / lat->run.iteration_us : 0.0,
            bw && bw->run.iteration_us > 0 ? r.run.iteration_us / bw->run.iteration_us : 0.0);
      }
    }
  }
  if (const Row* r = findRow(b, "cloth", 256, "fastest", "tolerance"); r && r->run.ok) {
    std::printf("\ncloth 256, implicit, dt = 1/60, tol 1e-4: %.3f ms/step, real-time factor %.1f\n",
                r->run.step_ms, 1000.0 * kDt / r->run.step_ms);
  }
  std::printf("skipped for time: %d; wall %.1f s\n", b.skipped, b.elapsed());
  return 0;
}

}  // namespace
}  // namespace hooke::bench

int main(int argc, char** argv) {
  return hooke::bench::run(argc, argv);
}
