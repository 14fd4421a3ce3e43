// hooke-bench: times CpuBackend's implicit step against Eigen's sparse conjugate gradient on the
// same linearised system, prints a table and optionally writes JSON. Never asserts on time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <Eigen/IterativeLinearSolvers>
#include <nlohmann/json.hpp>

#if !defined(_WIN32)
#include <unistd.h>  // execv: --backend cuda hands over to hooke-bench-gpu
#endif

#include "bench/eigen_system.h"
#include "sim/cpu_backend.h"
#include "sim/scenes.h"

#ifndef HOOKE_SOURCE_DIR
#define HOOKE_SOURCE_DIR "."
#endif
#ifndef HOOKE_BUILD_TYPE
#define HOOKE_BUILD_TYPE "unknown"
#endif

#if defined(_WIN32)
#define popen _popen
#define pclose _pclose
constexpr const char* kNullDevice = "NUL";
#else
constexpr const char* kNullDevice = "/dev/null";
#endif

namespace hooke {
namespace {

using Clock = std::chrono::steady_clock;
using EigenSystemF = EigenImplicitSystem<float, Eigen::RowMajor>;
using EigenCg = Eigen::ConjugateGradient<EigenSystemF::Matrix, Eigen::Lower | Eigen::Upper>;

// [SECTION] settings

constexpr float kDt = 0.01f;  // the tick; solves every third tick, so h = 3 dt (no auto skip)
constexpr float kH = 0.03f;
constexpr float kTolerance = 1e-4f;
constexpr int kMaxIterations = 10000;  // both solvers; high enough that both reach the tolerance
constexpr int kWarmupSteps = 10;

struct SceneSpec {
  const char* name;
  int res;
};

constexpr SceneSpec kScenes[] = {
    {"cloth", 32}, {"cloth", 64}, {"volume", 12}, {"volume", 20}, {"spring1d", 1}};

struct Options {
  std::string backend = "cpu";
  std::string json_path;
  bool quick = false;
};

// how long each timing runs: at least min_total_s of measured time and min_reps repetitions
struct Budget {
  double min_total_s;
  int min_reps;
  double max_wall_s;  // stop early past this much wall time, setup included
};

// [SECTION] command line

constexpr const char* kUsage = "usage: hooke-bench [--backend cpu] [--json FILE] [--quick]";

// Returns -1 to go on, or the exit code.
int parseArgs(int argc, char** argv, Options* out) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&](std::string* target) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "hooke-bench: %s needs a value\n", argv[i]);
        return false;
      }
      *target = argv[++i];
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::printf("%s\n", kUsage);
      return 0;
    } else if (arg == "--quick") {
      out->quick = true;
    } else if (arg == "--backend") {
      if (!value(&out->backend)) return 2;
    } else if (arg == "--json") {
      if (!value(&out->json_path)) return 2;
    } else {
      std::fprintf(stderr, "hooke-bench: unknown argument '%s' (%s)\n", argv[i], kUsage);
      return 2;
    }
  }
  if (out->backend == "cuda") {
#if defined(HOOKE_BENCH_GPU) && !defined(_WIN32)
    // the GPU benchmark is its own executable (bench/gpu): hand over, next to this one first
    std::string gpu = HOOKE_BENCH_GPU;
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length > 0) {
      std::string dir(self, size_t(length));
      dir = dir.substr(0, dir.find_last_of('/') + 1);
      const std::string beside = dir + "gpu/hooke-bench-gpu";
      if (access(beside.c_str(), X_OK) == 0) gpu = beside;
    }
    std::vector<const char*> args = {gpu.c_str()};
    if (!out->json_path.empty()) {
      args.push_back("--json");
      args.push_back(out->json_path.c_str());
    }
    if (out->quick) args.push_back("--quick");
    args.push_back(nullptr);
    execv(gpu.c_str(), const_cast<char* const*>(args.data()));
    std::fprintf(stderr, "hooke-bench: could not run %s\n", gpu.c_str());
#else
    std::fprintf(stderr, "hooke-bench: the CUDA benchmark is not built\n");
#endif
    return 2;
  }
  if (out->backend != "cpu") {
    std::fprintf(stderr, "hooke-bench: unknown backend '%s' (expected cpu or cuda)\n",
                 out->backend.c_str());
    return 2;
  }
  return -1;
}

// [SECTION] provenance

std::string commandOutput(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe)) {
      out += buffer;
    }
    pclose(pipe);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
    out.pop_back();
  }
  return out;
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

// the CPU's vector extensions that matter here (the build may not use them)
std::string cpuSimdFlags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::string found;
    for (const char* flag : {"sse4_2", "avx", "avx2", "fma", "avx512f"}) {
      if ((line + " ").find(std::string(" ") + flag + " ") != std::string::npos) {
        found += found.empty() ? flag : std::string(" ") + flag;
      }
    }
    return found;
  }
  return "unknown";
}

// the 1-minute load average: other work on the machine skews timings
double loadAverage() {
  std::ifstream in("/proc/loadavg");
  double load = -1.0;
  in >> load;
  return load;
}

std::string compilerName() {
#if defined(__clang__)
  return std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("GCC ") + __VERSION__;
#elif defined(_MSC_VER)
  return "MSVC " + std::to_string(_MSC_VER);
#else
  return "unknown";
#endif
}

std::string gitCommit() {
#if defined(HOOKE_GIT_COMMIT)
  return HOOKE_GIT_COMMIT;
#endif
  const std::string git = std::string("git -C \"") + HOOKE_SOURCE_DIR + "\" ";
  const std::string quiet = std::string(" 2>") + kNullDevice;
  std::string commit = commandOutput(git + "rev-parse --short HEAD" + quiet);
  if (commit.empty()) return "unknown";
  // uncommitted changes to tracked files make the commit an approximation
  if (!commandOutput(git + "status --porcelain --untracked-files=no" + quiet).empty()) {
    commit += "-dirty";
  }
  return commit;
}

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
#if defined(_WIN32)
  gmtime_s(&utc, &now);
#else
  gmtime_r(&now, &utc);
#endif
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

// [SECTION] timing

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(values.begin(), values.begin() + mid));
}

struct Timing {
  double median_ms = 0.0;
  double min_ms = 0.0;
  int reps = 0;
  double measured_s = 0.0;  // sum of the timed parts
};

// Runs rep(record) until the budget is met and returns the statistics of its timed milliseconds.
// rep does its own untimed setup; the first call is a warm-up with record = false.
Timing measure(const std::function<double(bool record)>& rep, const Budget& budget) {
  rep(false);
  std::vector<double> samples;
  double total_ms = 0.0;
  const auto start = Clock::now();
  while (static_cast<int>(samples.size()) < budget.min_reps ||
         total_ms < 1e3 * budget.min_total_s) {
    double ms = rep(true);
    samples.push_back(ms);
    total_ms += ms;
    if (msBetween(start, Clock::now()) > 1e3 * budget.max_wall_s &&
        static_cast<int>(samples.size()) >= budget.min_reps) {
      break;
    }
  }
  return {median(samples), *std::min_element(samples.begin(), samples.end()),
          static_cast<int>(samples.size()), total_ms / 1e3};
}

// [SECTION] one scene

struct Row {
  std::string scene;
  int res = 0;
  size_t particles = 0, springs = 0, free_dofs = 0;
  Timing hooke_step;
  double hooke_force_ms = 0.0, hooke_solve_ms = 0.0, hooke_commit_ms = 0.0;  // medians
  int hooke_iterations = 0;
  float hooke_residual = 0.0f;
  bool hooke_converged = true;
  Timing eigen_solve, eigen_assemble_solve;
  int eigen_iterations = 0;           // A p products, as hooke counts iterations
  int eigen_iterations_reported = 0;  // cg.iterations()
  double eigen_error = 0.0;
  bool eigen_converged = true;
  double delta_v_difference = 0.0;  // |Δv_hooke − Δv_eigen| / |Δv_eigen|

  // the measured state, judged against the system assembled in double (untimed)
  double max_speed = 0.0;            // max |v| at the start of the step
  double rhs_norm = 0.0;             // |b| in double
  double rhs_rounding = 0.0;         // |b_float − b_double| / |b_double|
  double hooke_true_residual = 0.0;  // |b − A Δv_hooke| / |b| in double
  double eigen_true_residual = 0.0;  // |b − A Δv_eigen| / |b| in double
  double eigen_own_residual = 0.0;   // the same against Eigen's float system
  double ratio = 0.0;                // eigen (assemble + solve) / hooke step
  double ratio_solve = 0.0;          // eigen solve / hooke solve
};

Scene buildScene(const SceneSpec& spec) {
  if (std::string_view(spec.name) == "cloth") return makeCloth(spec.res, {});
  if (std::string_view(spec.name) == "volume") return makeVolume(spec.res, {});
  return makeSpring1d({});
}

Row benchScene(const SceneSpec& spec, const Budget& budget) {
  Row row;
  row.scene = spec.name;
  row.res = spec.res;
  const Scene scene = buildScene(spec);
  const Model& model = scene.model;
  row.particles = model.particleCount();
  row.springs = model.springCount();
  row.free_dofs = 3 * static_cast<size_t>(std::count(model.pinned.begin(), model.pinned.end(), 0));

  SolverSettings settings;
  settings.integrator = Integrator::kImplicit;
  settings.tolerance = kTolerance;
  settings.max_iterations = kMaxIterations;

  // warm up so springs are stretched (and the cloth swings): the state both solvers start from
  CpuBackend backend;
  (void)backend.load(model, scene.state);
  backend.setSettings(settings);
  for (int i = 0; i < kWarmupSteps; ++i) {
    (void)backend.step(kH, {}, nullptr);
  }
  State start;
  backend.readState(&start);

  // hooke: reload the same state, time one step (force + solve + commit)
  std::vector<double> force_ms, solve_ms, commit_ms;
  StepStats stats;
  row.hooke_step = measure(
      [&](bool record) {
        (void)backend.load(model, start);
        auto t0 = Clock::now();
        (void)backend.step(kH, {}, &stats);
        auto t1 = Clock::now();
        if (record) {
          force_ms.push_back(stats.force_ms);
          solve_ms.push_back(stats.solve_ms);
          commit_ms.push_back(stats.commit_ms);
        }
        return msBetween(t0, t1);
      },
      budget);
  row.hooke_force_ms = median(force_ms);
  row.hooke_solve_ms = median(solve_ms);
  row.hooke_commit_ms = median(commit_ms);
  row.hooke_iterations = stats.cg_iterations;
  row.hooke_residual = stats.cg_residual;
  row.hooke_converged = stats.cg_converged;
  State after;
  backend.readState(&after);

  // eigen: assemble in float, row-major, and solve with CG (diagonal preconditioner)
  EigenSystemF system;
  EigenCg cg;
  cg.setTolerance(kTolerance);
  cg.setMaxIterations(kMaxIterations);
  Eigen::VectorXf x(3 * static_cast<Eigen::Index>(row.particles));
  row.eigen_assemble_solve = measure(
      [&](bool) {
        auto t0 = Clock::now();
        assembleImplicitSystem(model, start.x, start.v, {}, kH, &system);
        cg.compute(system.A);
        x = cg.solve(system.b);
        return msBetween(t0, Clock::now());
      },
      budget);
  row.eigen_solve = measure(
      [&](bool) {
        auto t0 = Clock::now();
        x = cg.solve(system.b);
        return msBetween(t0, Clock::now());
      },
      budget);
  // Eigen does not count the iteration in which it converges; count A p products as hooke does
  row.eigen_iterations_reported = static_cast<int>(cg.iterations());
  row.eigen_error = cg.error();
  row.eigen_converged = cg.info() == Eigen::Success;
  row.eigen_iterations = row.eigen_iterations_reported + (row.eigen_converged ? 1 : 0);

  // the two answers agree to about the tolerance
  std::vector<glm::vec3> delta_v(row.particles);
  for (size_t i = 0; i < row.particles; ++i) {
    delta_v[i] = after.v[i] - start.v[i];
  }
  const Eigen::VectorXf hooke_dv = flatten<float>(delta_v);
  row.delta_v_difference = x.norm() > 0.0f ? (hooke_dv - x).norm() / x.norm() : 0.0;

  // how both answers fare on the exact (double) system, and how much of b is float rounding
  EigenImplicitSystem<double> exact;
  assembleImplicitSystem(model, start.x, start.v, {}, double(kH), &exact);
  const Eigen::VectorXd x_double = x.cast<double>();
  const Eigen::VectorXd b_float = system.b.cast<double>();
  auto residual = [](const auto& A, const Eigen::VectorXd& b, const Eigen::VectorXd& v) {
    // |b − A v| / |b|
    return b.norm() > 0.0 ? (b - A * v).norm() / b.norm() : 0.0;
  };
  for (const glm::vec3& v : start.v) {
    row.max_speed = std::max(row.max_speed, double(glm::length(v)));
  }
  row.rhs_norm = exact.b.norm();
  row.rhs_rounding = row.rhs_norm > 0.0 ? (b_float - exact.b).norm() / row.rhs_norm : 0.0;
  row.hooke_true_residual = residual(exact.A, exact.b, hooke_dv.cast<double>());
  row.eigen_true_residual = residual(exact.A, exact.b, x_double);
  row.eigen_own_residual = residual(system.A.cast<double>(), b_float, x_double);

  // ratio = eigen (assemble + solve) / hooke step,  ratio_solve = eigen solve / hooke solve
  row.ratio = row.eigen_assemble_solve.median_ms / row.hooke_step.median_ms;
  row.ratio_solve = row.eigen_solve.median_ms / row.hooke_solve_ms;
  return row;
}

// [SECTION] output

void printHeader() {
  std::printf("%-8s %4s %9s %7s | %-39s | %-27s | %5s %11s\n", "", "", "", "", "hooke (cpu)",
              "eigen cg (float)", "", "");
  std::printf("%-8s %4s %9s %7s | %9s %9s %5s %11s | %9s %11s %5s | %5s %11s\n", "scene", "res",
              "particles", "springs", "step ms", "steps/s", "iters", "solve ms", "solve ms",
              "asm+solve", "iters", "ratio", "ratio_solve");
}

void printRow(const Row& r) {
  std::printf("%-8s %4d %9zu %7zu | %9.4f %9.1f %4d%s %11.4f | %9.4f %11.4f %4d%s | %5.2f %11.2f\n",
              r.scene.c_str(), r.res, r.particles, r.springs, r.hooke_step.median_ms,
              1e3 / r.hooke_step.median_ms, r.hooke_iterations, r.hooke_converged ? " " : "!",
              r.hooke_solve_ms, r.eigen_solve.median_ms, r.eigen_assemble_solve.median_ms,
              r.eigen_iterations, r.eigen_converged ? " " : "!", r.ratio, r.ratio_solve);
  std::fflush(stdout);
}

nlohmann::json timingJson(const Timing& t) {
  return {{"median_ms", t.median_ms},
          {"min_ms", t.min_ms},
          {"reps", t.reps},
          {"measured_s", t.measured_s}};
}

nlohmann::json rowJson(const Row& r) {
  return {{"scene", r.scene},
          {"res", r.res},
          {"particles", r.particles},
          {"springs", r.springs},
          {"free_dofs", r.free_dofs},
          {"hooke",
           {{"step", timingJson(r.hooke_step)},
            {"steps_per_s", 1e3 / r.hooke_step.median_ms},
            {"force_ms", r.hooke_force_ms},
            {"solve_ms", r.hooke_solve_ms},
            {"commit_ms", r.hooke_commit_ms},
            {"cg_iterations", r.hooke_iterations},
            {"cg_residual", r.hooke_residual},
            {"cg_converged", r.hooke_converged},
            {"solve_ms_per_iteration", r.hooke_solve_ms / std::max(1, r.hooke_iterations)},
            {"true_residual_double", r.hooke_true_residual}}},
          {"eigen",
           {{"solve", timingJson(r.eigen_solve)},
            {"assemble_solve", timingJson(r.eigen_assemble_solve)},
            {"cg_iterations", r.eigen_iterations},
            {"cg_iterations_reported", r.eigen_iterations_reported},
            {"cg_error", r.eigen_error},
            {"cg_converged", r.eigen_converged},
            {"solve_ms_per_iteration", r.eigen_solve.median_ms / std::max(1, r.eigen_iterations)},
            {"true_residual_double", r.eigen_true_residual},
            {"residual_of_own_float_system", r.eigen_own_residual}}},
          {"state",
           {{"max_speed", r.max_speed},
            {"rhs_norm", r.rhs_norm},
            {"rhs_float_rounding", r.rhs_rounding}}},
          {"delta_v_relative_difference", r.delta_v_difference},
          {"ratio", r.ratio},
          {"ratio_solve", r.ratio_solve}};
}

std::string commandLine(int argc, char** argv) {
  std::string out = "hooke-bench";
  for (int i = 1; i < argc; ++i)
    out += std::string(" ") + argv[i];
  return out;
}

int run(int argc, char** argv) {
  Options options;
  if (int code = parseArgs(argc, argv, &options); code >= 0) return code;

  // fail before the long run, not after it, when the JSON file cannot be written
  if (!options.json_path.empty() && !std::ofstream(options.json_path, std::ios::app)) {
    std::fprintf(stderr, "hooke-bench: cannot write %s\n", options.json_path.c_str());
    return 1;
  }

  const Budget budget = options.quick ? Budget{0.03, 3, 0.3} : Budget{0.5, 10, 3.0};
  if (std::string_view(HOOKE_BUILD_TYPE) != "Release") {
    std::fprintf(stderr, "hooke-bench: warning: built as %s, not Release\n", HOOKE_BUILD_TYPE);
  }

  const std::string machine = cpuModel();
  const unsigned threads = std::thread::hardware_concurrency();
  const std::string compiler = compilerName();
  const std::string commit = gitCommit();
  const std::string date = utcNow();
  std::printf("hooke-bench: cpu backend vs Eigen %d.%d.%d ConjugateGradient (single thread)\n",
              EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION);
  const double load_before = loadAverage();
  std::printf("machine: %s, %u threads, load %.2f; compiler: %s (%s); commit %s; %s\n",
              machine.c_str(), threads, load_before, compiler.c_str(), HOOKE_BUILD_TYPE,
              commit.c_str(), date.c_str());
  std::printf("dt %.3g s, h %.3g s, tolerance %.0e, cap %d, %d warm-up steps, %s timings\n\n", kDt,
              kH, kTolerance, kMaxIterations, kWarmupSteps, options.quick ? "quick" : "full");

  printHeader();
  std::vector<Row> rows;
  for (const SceneSpec& spec : kScenes) {
    rows.push_back(benchScene(spec, budget));
    printRow(rows.back());
  }
  const double load_after = loadAverage();
  std::printf("\n(ms: medians of one step or solve; iters: A p products; '!': hit the cap)\n");
  std::printf("load average %.2f before, %.2f after\n", load_before, load_after);

  if (options.json_path.empty()) return 0;
  nlohmann::json doc = {{"benchmark", "hooke-bench"},
                        {"backend", options.backend},
                        {"command", commandLine(argc, argv)},
                        {"machine",
                         {{"cpu", machine},
                          {"threads", threads},
                          {"cpu_simd", cpuSimdFlags()},
                          {"load_average_before", load_before},
                          {"load_average_after", load_after}}},
                        {"compiler", compiler},
                        {"build_type", HOOKE_BUILD_TYPE},
                        {"eigen_version", std::to_string(EIGEN_WORLD_VERSION) + "." +
                                              std::to_string(EIGEN_MAJOR_VERSION) + "." +
                                              std::to_string(EIGEN_MINOR_VERSION)},
                        {"eigen_simd", Eigen::SimdInstructionSetsInUse()},
                        {"date", date},
                        {"git_commit", commit},
                        {"settings",
                         {{"dt", kDt},
                          {"h", kH},
                          {"tolerance", kTolerance},
                          {"max_iterations", kMaxIterations},
                          {"warmup_steps", kWarmupSteps},
                          {"quick", options.quick},
                          {"min_timing_s", budget.min_total_s},
                          {"min_reps", budget.min_reps}}},
                        {"rows", nlohmann::json::array()}};
  for (const Row& r : rows)
    doc["rows"].push_back(rowJson(r));

  std::ofstream out(options.json_path);
  out << doc.dump(2) << "\n";
  if (!out) {
    std::fprintf(stderr, "hooke-bench: cannot write %s\n", options.json_path.c_str());
    return 1;
  }
  std::printf("wrote %s\n", options.json_path.c_str());
  return 0;
}

}  // namespace
}  // namespace hooke

int main(int argc, char** argv) {
  return hooke::run(argc, argv);
}
