// `hooke sweep`: checks the flags, computes (or loads) the converged references, runs the grid's
// cells on CPU threads (or one at a time on the CUDA backend), and writes the CSV, the
// heatmaps and the terminal table.
#include "app/sweep_command.h"

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "app/backend_factory.h"
#include "app/reference_cache.h"
#include "app/sweep_heatmap.h"
#include "io/atomic_file.h"
#include "sim/sweep.h"

namespace hooke {

namespace {

// the cost cap: solves per cell at the smallest dt
constexpr double kMaxSolvesPerCell = 1e6;

// default resolutions: small, since every cell is a full run
constexpr int kSweepClothRes = 10;
constexpr int kSweepVolumeRes = 6;

struct Range {
  double lo = 0.0, hi = 0.0;
};

// "LO:HI" with 0 < LO < HI <= max
Status parseRange(const char* flag, const std::string& text, double max, Range* out) {
  const size_t colon = text.find(':');
  auto number = [](const std::string& s, double* value) {
    size_t used = 0;
    try {
      *value = std::stod(s, &used);
    } catch (...) {
      return false;
    }
    return !s.empty() && used == s.size();
  };
  if (colon == std::string::npos || !number(text.substr(0, colon), &out->lo) ||
      !number(text.substr(colon + 1), &out->hi)) {
    return Status::error(std::string(flag) + " must be MIN:MAX, got '" + text + "'");
  }
  if (!(std::isfinite(out->lo) && std::isfinite(out->hi) && out->lo > 0.0)) {
    return Status::error(std::string(flag) + " must hold finite numbers > 0, got '" + text + "'");
  }
  if (!(out->lo < out->hi)) {
    return Status::error(std::string(flag) + " needs MIN < MAX, got '" + text + "'");
  }
  if (out->hi > max) {
    return Status::error(std::string(flag) + " must end at most at " + show(max) + ", got '" +
                         text + "'");
  }
  return Status::ok();
}

// "AxB", each 2..64
Status parseCells(const std::string& text, int* nx, int* ny) {
  const size_t x = text.find('x');
  auto count = [](const std::string& s, int* value) {
    size_t used = 0;
    try {
      *value = std::stoi(s, &used);
    } catch (...) {
      return false;
    }
    return !s.empty() && used == s.size() && *value >= 2 && *value <= 64;
  };
  if (x == std::string::npos || !count(text.substr(0, x), nx) || !count(text.substr(x + 1), ny)) {
    return Status::error("--cells must be DTSxSTIFFNESSES with each count 2..64, got '" + text +
                         "'");
  }
  return Status::ok();
}

Status parseIntegrators(const std::string& text, std::vector<Integrator>* out) {
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    Integrator integrator;
    if (!parseIntegrator(item, &integrator)) {
      return Status::error(
          "--integrators: unknown integrator '" + item +
          "' (choose from explicit, symplectic, implicit, newton, bdf2, comma-separated)");
    }
    if (std::find(out->begin(), out->end(), integrator) != out->end()) {
      return Status::error("--integrators names " + item + " twice");
    }
    out->push_back(integrator);
  }
  if (out->empty()) return Status::error("--integrators must name at least one integrator");
  return Status::ok();
}

std::string number(double value) {
  if (!std::isfinite(value)) return "";  // undefined (diverged, or no closed form)
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

// "\r[#####.....] 12/18 cells" on a terminal
void drawProgress(size_t done, size_t total, const char* what) {
  constexpr int kWidth = 30;
  const int filled = int(double(done) / double(total) * kWidth);
  std::string bar(size_t(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r[%s] %zu/%zu %s", bar.c_str(), done, total, what);
  std::fflush(stderr);
}

// Runs task(i) for i in [0, count) on up to `threads` threads, drawing progress on a terminal.
void runParallel(size_t count, int threads, const char* what,
                 const std::function<void(size_t)>& task) {
  if (count == 0) return;
  std::atomic<size_t> next{0};
  size_t done = 0;
  std::mutex progress_mutex;
  const bool tty = isatty(STDERR_FILENO) != 0;
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) {
      task(i);
      std::lock_guard<std::mutex> lock(progress_mutex);
      ++done;
      if (tty) drawProgress(done, count, what);
    }
  };
  std::vector<std::thread> pool;
  const int workers = std::max(1, std::min<int>(threads, int(count)));
  for (int t = 0; t < workers; ++t)
    pool.emplace_back(worker);
  for (std::thread& t : pool)
    t.join();
  if (tty) std::fprintf(stderr, "\n");
}

}  // namespace

void addSweepOptions(CLI::App* command, SweepCommandOptions* options) {
  command
      ->add_option("--integrators", options->integrators,
                   "comma-separated: explicit, symplectic, implicit, newton, bdf2")
      ->required();
  command->add_option("--dt-range", options->dt_range, "MIN:MAX step h, s (log-spaced)")
      ->capture_default_str();
  command
      ->add_option("--stiffness-range", options->stiffness_range,
                   "MIN:MAX spring stiffness k, N/m (log-spaced)")
      ->capture_default_str();
  command->add_option("--cells", options->cells, "grid size: DTSxSTIFFNESSES, each 2..64")
      ->capture_default_str();
  command->add_option("--duration", options->duration, "simulated seconds per cell (default 1)");
  command
      ->add_option("--backend", options->backend,
                   "auto | cpu | cuda (cpu cells run on threads, cuda cells one at a time)")
      ->capture_default_str();
  command->add_option("--reference-dt", options->reference_dt,
                      "cloth, volume, files: step of the converged bdf2 reference, s (default: "
                      "the smallest dt / 4)");
  command->add_option("--reference-cache", options->reference_cache,
                      "directory caching reference runs (default ~/.cache/hooke/references; "
                      "empty: no cache)");
  command->add_flag("--no-reference", options->no_reference,
                    "skip the reference (no realism_error or energy_error for cloth and volume)");
  command->add_option("--out", options->out_dir, "output directory (created if missing)")
      ->required();
  command->add_option("--threads", options->threads, "worker threads (default: all cores)");
  RunOptions& s = options->solver;
  command->add_option("--tolerance", s.tolerance, "CG relative residual tolerance")
      ->capture_default_str();
  command->add_option("--max-iterations", s.max_iterations, "CG iteration cap")
      ->capture_default_str();
  command
      ->add_option("--newton-tolerance", s.newton_tolerance,
                   "newton, bdf2: relative residual of the implicit equations")
      ->capture_default_str();
  command
      ->add_option("--newton-max-iterations", s.newton_max_iterations,
                   "newton, bdf2: Newton iteration cap per step")
      ->capture_default_str();
}

int sweepCommand(const SweepCommandOptions& options) {
  namespace fs = std::filesystem;

  // every check runs before any output exists
  if (options.scene.stiffness) {
    return badInput(Status::error("--stiffness is what a sweep varies; use --stiffness-range"));
  }
  std::vector<Integrator> integrators;
  if (Status s = parseIntegrators(options.integrators, &integrators); !s) return badInput(s);
  Range dt_range, k_range;
  if (Status s = parseRange("--dt-range", options.dt_range, 10.0, &dt_range); !s) {
    return badInput(s);
  }
  if (Status s = parseRange("--stiffness-range", options.stiffness_range, 1e12, &k_range); !s) {
    return badInput(s);
  }
  int nx = 0, ny = 0;
  if (Status s = parseCells(options.cells, &nx, &ny); !s) return badInput(s);
  const double duration = options.duration.value_or(kDefaultSweepDuration);
  if (!(std::isfinite(duration) && duration > 0.0)) {
    return badInput(Status::error("--duration must be a finite number > 0, got " + show(duration)));
  }
  if (duration / dt_range.lo > kMaxSolvesPerCell) {
    return badInput(Status::error("--duration / smallest dt is " + show(duration / dt_range.lo) +
                                  " steps per cell, more than the cap of 1e6; shorten --duration "
                                  "or raise the --dt-range minimum"));
  }
  if (options.backend != "auto" && options.backend != "cpu" && options.backend != "cuda") {
    return badInput(
        Status::error("--backend must be auto, cpu or cuda, got '" + options.backend + "'"));
  }
  if (options.reference_dt &&
      !(std::isfinite(*options.reference_dt) && *options.reference_dt > 0.0 &&
        *options.reference_dt <= dt_range.lo)) {
    return badInput(Status::error("--reference-dt must be > 0 and at most the smallest dt (" +
                                  show(dt_range.lo) + "), got " + show(*options.reference_dt)));
  }
  if (options.reference_dt && duration / *options.reference_dt > 1e7) {
    return badInput(Status::error("--duration / --reference-dt is more than 1e7 reference steps"));
  }
  const int hardware = std::max(1, int(std::thread::hardware_concurrency()));
  const int threads = options.threads.value_or(hardware);
  if (threads < 1 || threads > 256) {
    return badInput(
        Status::error("--threads must be between 1 and 256, got " + std::to_string(threads)));
  }
  if (options.out_dir.empty()) return badInput(Status::error("--out must name a directory"));
  std::error_code ec;
  const fs::path out_dir(options.out_dir);
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec)) {
    return badInput(Status::error("--out " + options.out_dir + " exists and is not a directory"));
  }

  // the scene (smaller default resolutions), and the solver settings through planRun's checks
  SceneOptions scene_options = options.scene;
  if (!scene_options.res) {
    if (scene_options.scene == "cloth") scene_options.res = kSweepClothRes;
    if (scene_options.scene == "volume") scene_options.res = kSweepVolumeRes;
  }
  Scene base;
  if (Status s = buildScene(scene_options, &base); !s) return badInput(s);
  RunOptions run = options.solver;
  run.integrator = std::string(integratorName(integrators.front()));
  run.dt = dt_range.lo;
  run.skip = "0";
  run.steps = 1;
  RunPlan plan;
  if (Status s = planRun(run, base, &plan); !s) return badInput(s);

  // the backend: cuda must exist; auto uses it when it does, else says why not
  bool device = false;
  if (options.backend != "cpu") {
    BackendChoice probe;
    if (Status s = createBackend(options.backend, &probe); !s) return badInput(s);
    device = probe.backend->name() != "cpu";
    if (!probe.fallback_reason.empty()) {
      std::fprintf(stderr, "hooke: CUDA not used (%s); running the cells on CPU threads\n",
                   probe.fallback_reason.c_str());
    }
  }

  // built-in scenes are rebuilt per stiffness (cloth bending springs get kBendingRatio × k);
  // a file's springs all get k, as --stiffness does
  const bool builtin = builtinDefaults(scene_options.scene).has_value();
  SceneFactory factory = [&](double k) {
    Scene scene;
    if (builtin) {
      SceneOptions o = scene_options;
      o.stiffness = k;
      (void)buildScene(o, &scene);
    } else {
      scene = base;
      std::fill(scene.model.stiffness.begin(), scene.model.stiffness.end(), float(k));
    }
    return scene;
  };

  // outputs: the directory, then temporary files renamed only when all are written
  OutputDirectory directory;
  if (Status s = directory.create(options.out_dir, "--out"); !s) return badInput(s);
  auto fail = [&](const Status& s) {
    directory.remove();
    return badInput(s);
  };
  AtomicFile csv;
  if (Status s = csv.open((out_dir / "sweep.csv").string()); !s) return fail(s);
  std::vector<std::unique_ptr<AtomicFile>> pngs;
  for (Integrator integrator : integrators) {
    pngs.push_back(std::make_unique<AtomicFile>());
    const std::string name = "heatmap-" + std::string(integratorName(integrator)) + ".png";
    if (Status s = pngs.back()->open((out_dir / name).string()); !s) return fail(s);
  }

  // the grid and, for scenes without a closed form, the converged reference per stiffness
  const std::vector<double> dts = logSpace(dt_range.lo, dt_range.hi, nx);
  const std::vector<double> ks = logSpace(k_range.lo, k_range.hi, ny);
  const std::vector<SweepCell> cells = sweepCells(integrators, dts, ks);
  const bool want_reference = base.name != "spring1d" && !options.no_reference;
  std::vector<double> end_times;
  for (double dt : dts)
    end_times.push_back(sweepEndTime(dt, duration));
  std::sort(end_times.begin(), end_times.end());
  end_times.erase(std::unique(end_times.begin(), end_times.end()), end_times.end());
  const ReferenceSpec spec =
      referenceSpec(options.reference_dt.value_or(dt_range.lo / 4.0), plan.settings);
  const std::string cache_dir = options.reference_cache.value_or(defaultReferenceCacheDir());
  std::vector<Reference> references(want_reference ? ks.size() : 0);
  std::vector<std::string> reference_errors(references.size());
  std::atomic<int> cached{0};
  runParallel(references.size(), threads, "references", [&](size_t i) {
    bool hit = false;
    Status s = cachedReference(cache_dir, factory(ks[i]), end_times, spec, &references[i], &hit);
    if (!s) reference_errors[i] = s.message();
    if (hit) ++cached;
  });

  // the cells: CPU cells in parallel, device cells one at a time (one backend at a time)
  std::vector<CellResult> results(cells.size());
  SweepCellOptions cell_options;
  if (device) {
    cell_options.backend = [&](const Scene& scene, Integrator integrator,
                               std::unique_ptr<Backend>* out, std::string* note) {
      BackendChoice choice;
      Status s = loadBackend(options.backend, scene.model, scene.state, &choice, integrator);
      if (!s) return s;
      *note = choice.fallback_reason;
      *out = std::move(choice.backend);
      return Status::ok();
    };
  }
  const size_t per_integrator = dts.size() * ks.size();
  const int workers = device ? 1 : std::min<int>(threads, int(cells.size()));
  runParallel(cells.size(), workers, "cells", [&](size_t i) {
    SweepCellOptions o = cell_options;
    const size_t k_index = (i % per_integrator) / dts.size();
    if (want_reference && reference_errors[k_index].empty()) o.reference = &references[k_index];
    results[i] = runSweepCell(factory, cells[i], duration, plan.settings, o);
  });

  // sweep.csv
  std::ostream& out = csv.stream();
  out << "integrator,dt,stiffness,status,max_strain,energy_drift,realism_error,steps,wall_ms,"
         "energy_error,ms_per_step,newton_per_step,cg_per_step,backend\n";
  for (size_t i = 0; i < cells.size(); ++i) {
    const SweepCell& c = cells[i];
    const CellResult& r = results[i];
    out << integratorName(c.integrator) << ',' << number(c.dt) << ',' << number(c.stiffness) << ','
        << cellStatusName(r.status) << ',' << number(r.max_strain) << ',' << number(r.energy_drift)
        << ',' << number(r.realism_error) << ',' << r.steps << ',' << number(r.wall_ms) << ','
        << number(r.energy_error) << ',' << number(r.ms_per_step) << ','
        << number(r.newton_per_step) << ',' << number(r.cg_per_step) << ',' << r.backend << '\n';
  }

  // heatmaps; cells of one integrator are contiguous, stiffness-major
  for (size_t n = 0; n < integrators.size(); ++n) {
    std::vector<CellStatus> statuses;
    for (size_t i = 0; i < per_integrator; ++i)
      statuses.push_back(results[n * per_integrator + i].status);
    const std::string title =
        "hooke sweep: " + base.name + ", " + std::string(integratorName(integrators[n]));
    std::string bytes;
    if (Status s = encodeRgbPng(drawSweepHeatmap(title, dts, ks, statuses), &bytes); !s) {
      return fail(s);
    }
    pngs[n]->stream().write(bytes.data(), std::streamsize(bytes.size()));
  }
  if (Status s = csv.commit(); !s) return fail(s);
  for (auto& png : pngs) {
    if (Status s = png->commit(); !s) return fail(s);
  }

  // the table: one block per integrator, highest stiffness first
  const std::string where = device ? std::string("cuda backend, one cell at a time")
                                   : "cpu backend, " + std::to_string(workers) + " threads";
  std::printf("hooke sweep: %s, %dx%d cells per integrator, %g s each, %s -> %s\n",
              base.name.c_str(), nx, ny, duration, where.c_str(), options.out_dir.c_str());
  std::printf(
      "  S stable, U unrealistic (strain > %g or energy gain > %g E_s, E_s = %.4g J), "
      "X diverged\n",
      kMaxRealisticStrain, kMaxEnergyGainRatio, energyScale(base.model, base.state));
  if (want_reference) {
    size_t failed = 0;
    for (const std::string& e : reference_errors)
      failed += e.empty() ? 0 : 1;
    const std::string failures =
        failed ? ", " + std::to_string(failed) + " reference runs failed" : "";
    std::printf(
        "  realism_error: RMS position error (m) at the end time against %s at dt %g "
        "(%d of %zu from the cache%s%s)%s\n",
        std::string(integratorName(spec.integrator)).c_str(), spec.dt, cached.load(),
        references.size(), cache_dir.empty() ? "" : " in ", cache_dir.c_str(), failures.c_str());
  } else if (base.name == "spring1d") {
    std::printf("  realism_error: max |y - y_exact| / A against the closed-form oscillator\n");
  }
  for (size_t n = 0; n < integrators.size(); ++n) {
    std::printf("\n%s (rows: stiffness N/m, columns: dt s)\n",
                std::string(integratorName(integrators[n])).c_str());
    std::printf("%9s", "k \\ dt");
    for (double dt : dts)
      std::printf(" %7s", tickLabel(dt).c_str());
    std::printf("\n");
    for (size_t row = ks.size(); row-- > 0;) {
      std::printf("%9s", tickLabel(ks[row]).c_str());
      for (size_t col = 0; col < dts.size(); ++col) {
        const CellStatus st = results[n * per_integrator + row * dts.size() + col].status;
        const char c = st == CellStatus::kStable ? 'S' : st == CellStatus::kUnrealistic ? 'U' : 'X';
        std::printf(" %7c", c);
      }
      std::printf("\n");
    }
  }
  return 0;
}

}  // namespace hooke
