// `hooke evaluate`: runs the validation parts, prints their tables and writes the JSON and CSVs.
#include "app/evaluate_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli_options.h"
#include "io/atomic_file.h"
#include "sim/realism.h"
#include "sim/scenes.h"
#include "sim/sweep.h"

namespace hooke {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// the drop study (issue numbers: k = 1e5, dt 0.05 and 0.1)
constexpr float kDropStiffness = 1.0e5f;
constexpr double kDropDts[] = {0.05, 0.1};
constexpr Integrator kDropIntegrators[] = {Integrator::kImplicit, Integrator::kNewton,
                                           Integrator::kBdf2};
constexpr double kDropReferenceDt = 0.05 / 32.0;  // bdf2; checked against twice that step
constexpr double kDropMaxTime = 5.0;              // s
constexpr double kDropAfterReach = 0.5;           // s run past the reach time, for max strain
constexpr double kDropTimeGoal = 1.2;             // × the reference's time
constexpr double kDropStrainGoal = 0.05;

// the spring1d checks
constexpr double kSpringDt = 0.01;
constexpr int kSpringPeriods = 10;

// the stability sweep: each scene at this stiffness
constexpr float kStabilityStiffness = 1.0e4f;
constexpr int kStabilityClothRes = 10;
constexpr int kStabilityVolumeRes = 6;
constexpr int kStabilityRefinements = 6;

// JSON numbers; NaN becomes null
nlohmann::json num(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

std::string csvNumber(double v) {
  if (!std::isfinite(v)) return "";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

Status parseList(const std::string& flag, const std::string& text, std::vector<std::string>* out) {
  if (!text.empty() && text.back() == ',') {
    return Status::error(flag + ": empty item in '" + text + "'");
  }
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.empty()) return Status::error(flag + ": empty item in '" + text + "'");
    out->push_back(item);
  }
  if (out->empty()) return Status::error(flag + " must name at least one item");
  return Status::ok();
}

struct DropStudy {
  int res = 0;
  double hanging_depth = 0.0;
  DropResult reference, reference_coarse;
  std::vector<DropResult> runs;
};

DropStudy runDrop(int res) {
  DropStudy study;
  study.res = res;
  Material material;
  material.stiffness = kDropStiffness;
  const Scene scene = makeCloth(res, material);
  State hanging;
  if (hangingState(scene, &hanging)) study.hanging_depth = lowestPoint(hanging);
  SolverSettings fine;
  fine.tolerance = 1e-6f;
  fine.newton_tolerance = 1e-3f;
  study.reference = measureDrop(scene, Integrator::kBdf2, kDropReferenceDt, study.hanging_depth,
                                kDropMaxTime, 0.0, fine);
  study.reference_coarse = measureDrop(scene, Integrator::kBdf2, 2.0 * kDropReferenceDt,
                                       study.hanging_depth, kDropMaxTime, 0.0, fine);
  for (Integrator integrator : kDropIntegrators) {
    for (double dt : kDropDts) {
      study.runs.push_back(measureDrop(scene, integrator, dt, study.hanging_depth, kDropMaxTime,
                                       kDropAfterReach, SolverSettings{}));
    }
  }
  return study;
}

nlohmann::json dropRunJson(const DropResult& r, double reference_time) {
  const double ratio = r.reach_time / reference_time;
  return {{"integrator", std::string(integratorName(r.integrator))},
          {"dt", r.dt},
          {"reach_time", num(r.reach_time)},
          {"reach_step_time", num(r.reach_step_time)},
          {"time_ratio", num(ratio)},
          {"max_strain", r.max_strain},
          {"ms_per_step", r.ms_per_step},
          {"newton_per_step", r.newton_per_step},
          {"cg_per_step", r.cg_per_step},
          {"steps", r.steps},
          {"diverged", r.diverged},
          {"meets_goal", std::isfinite(ratio) && ratio <= kDropTimeGoal &&
                             r.max_strain <= kDropStrainGoal && !r.diverged}};
}

struct SpringRow {
  Spring1dCheck check;
  double error_h = 0.0, error_half = 0.0;  // max |y − y_exact| / A over 1 s at dt, dt / 2
};

struct StabilityRow {
  std::string scene;
  int res = 0;
  OmegaMax omega;
  double damped_limit = 0.0;  // min_s c_s / k_s
  DivergenceLimit explicit_limit, symplectic_limit;
};

StabilityRow runStability(const std::string& name, int res, double duration) {
  StabilityRow row;
  row.scene = name;
  row.res = res;
  Material material;
  material.stiffness = kStabilityStiffness;
  Scene scene;
  (void)makeBuiltinScene(name, res, material, &scene);
  row.omega = estimateOmegaMax(scene.model, scene.state);
  row.damped_limit = std::numeric_limits<double>::infinity();
  for (size_t s = 0; s < scene.model.springCount(); ++s) {
    if (scene.model.stiffness[s] > 0.0f)
      row.damped_limit =
          std::min(row.damped_limit, double(scene.model.damping[s]) / scene.model.stiffness[s]);
  }
  const double start = 2.0 / row.omega.power;
  row.explicit_limit = findDivergenceDt(scene, Integrator::kExplicit, duration, start,
                                        kStabilityRefinements, SolverSettings{});
  row.symplectic_limit = findDivergenceDt(scene, Integrator::kSymplectic, duration, start,
                                          kStabilityRefinements, SolverSettings{});
  return row;
}

// the limit estimate: the geometric mean of the bracket
double limitOf(const DivergenceLimit& l) {
  return std::sqrt(l.stable_dt * l.diverged_dt);
}

}  // namespace

void addEvaluateOptions(CLI::App* command, EvaluateOptions* options) {
  command->add_option("--out", options->out_dir, "output directory (created if missing)")
      ->required();
  command->add_option("--parts", options->parts, "comma-separated: drop, spring1d, stability")
      ->capture_default_str();
  command
      ->add_option("--drop-res", options->drop_res,
                   "comma-separated cloth resolutions of the drop study (2..64)")
      ->capture_default_str();
  command
      ->add_option("--stability-duration", options->stability_duration,
                   "simulated seconds per run of the explicit-Euler stability sweep")
      ->capture_default_str();
}

int evaluateCommand(const EvaluateOptions& options) {
  namespace fs = std::filesystem;
  // every check first
  std::vector<std::string> parts;
  if (Status s = parseList("--parts", options.parts, &parts); !s) return badInput(s);
  bool drop = false, spring = false, stability = false;
  for (const std::string& p : parts) {
    bool* flag = p == "drop"        ? &drop
                 : p == "spring1d"  ? &spring
                 : p == "stability" ? &stability
                                    : nullptr;
    if (!flag) {
      return badInput(Status::error("--parts: unknown part '" + p +
                                    "' (choose from drop, spring1d, stability, comma-separated)"));
    }
    if (*flag) return badInput(Status::error("--parts names " + p + " twice"));
    *flag = true;
  }
  std::vector<std::string> res_items;
  std::vector<int> drop_res;
  if (Status s = parseList("--drop-res", options.drop_res, &res_items); !s) return badInput(s);
  for (const std::string& item : res_items) {
    size_t used = 0;
    int res = 0;
    try {
      res = std::stoi(item, &used);
    } catch (...) {
      used = 0;
    }
    if (used != item.size() || res < 2 || res > 64) {
      return badInput(Status::error("--drop-res: each resolution must be an integer 2..64, got '" +
                                    item + "'"));
    }
    drop_res.push_back(res);
  }
  if (!(std::isfinite(options.stability_duration) && options.stability_duration > 0.0 &&
        options.stability_duration <= 10.0)) {
    return badInput(Status::error("--stability-duration must be > 0 and at most 10 s, got " +
                                  show(options.stability_duration)));
  }
  if (options.out_dir.empty()) return badInput(Status::error("--out must name a directory"));
  std::error_code ec;
  const fs::path out_dir(options.out_dir);
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec)) {
    return badInput(Status::error("--out " + options.out_dir + " exists and is not a directory"));
  }

  nlohmann::json report;
  report["hardware_threads"] = std::thread::hardware_concurrency();
  std::string drop_csv, spring_csv, stability_csv;

  if (drop) {
    drop_csv =
        "res,integrator,dt,reach_time,reach_step_time,time_ratio,max_strain,ms_per_step,"
        "newton_per_step,cg_per_step,meets_goal\n";
    nlohmann::json studies = nlohmann::json::array();
    std::printf(
        "cloth drop (k 1e5, 1 kg, two corners pinned): time for the lowest point to come "
        "within %.1f m of its hanging depth\n",
        kDropTolerance);
    std::printf("  goal: newton and bdf2 within %.1fx the reference's time, strain <= %.0f %%\n",
                kDropTimeGoal, 100.0 * kDropStrainGoal);
    for (int res : drop_res) {
      const DropStudy st = runDrop(res);
      const double ref = st.reference.reach_time;
      std::printf(
          "\n  %dx%d cloth, hanging depth y = %.4f m; reference bdf2 dt %.3g: %.4f s "
          "(at dt %.3g: %.4f s), strain %.2f %%, %.2f ms/step\n",
          res, res, st.hanging_depth, kDropReferenceDt, ref, 2 * kDropReferenceDt,
          st.reference_coarse.reach_time, 100.0 * st.reference.max_strain,
          st.reference.ms_per_step);
      std::printf("  %-10s %6s %9s %7s %9s %9s %8s %8s %5s\n", "integrator", "dt", "reach s",
                  "x ref", "strain %", "ms/step", "newton", "cg", "goal");
      nlohmann::json runs = nlohmann::json::array();
      for (const DropResult& r : st.runs) {
        nlohmann::json j = dropRunJson(r, ref);
        runs.push_back(j);
        std::printf("  %-10s %6.3g %9.4f %7.2f %9.2f %9.3f %8.2f %8.1f %5s\n",
                    std::string(integratorName(r.integrator)).c_str(), r.dt, r.reach_time,
                    r.reach_time / ref, 100.0 * r.max_strain, r.ms_per_step, r.newton_per_step,
                    r.cg_per_step, j["meets_goal"].get<bool>() ? "yes" : "no");
        drop_csv += std::to_string(res) + "," + std::string(integratorName(r.integrator)) + "," +
                    csvNumber(r.dt) + "," + csvNumber(r.reach_time) + "," +
                    csvNumber(r.reach_step_time) + "," + csvNumber(r.reach_time / ref) + "," +
                    csvNumber(r.max_strain) + "," + csvNumber(r.ms_per_step) + "," +
                    csvNumber(r.newton_per_step) + "," + csvNumber(r.cg_per_step) + "," +
                    (j["meets_goal"].get<bool>() ? "true" : "false") + "\n";
      }
      studies.push_back({{"res", res},
                         {"stiffness", kDropStiffness},
                         {"hanging_depth", st.hanging_depth},
                         {"tolerance", kDropTolerance},
                         {"reference", dropRunJson(st.reference, ref)},
                         {"reference_check", dropRunJson(st.reference_coarse, ref)},
                         {"runs", runs}});
    }
    report["drop"] = studies;
    std::printf("\n");
  }

  if (spring) {
    const Scene scene = makeSpring1d(Material{});
    spring_csv =
        "integrator,amplitude_error,period_error,fitted_damping_ratio,added_damping_ratio,"
        "ms_per_step,error_dt,error_half_dt,error_ratio\n";
    SceneFactory factory = [](double k) {
      Material m;
      m.stiffness = float(k);
      return makeSpring1d(m);
    };
    std::printf("spring1d closed form (m 1 kg, k 100 N/m, c 0.1 N s/m, dt %g s, %d periods)\n",
                kSpringDt, kSpringPeriods);
    std::printf("  %-10s %11s %11s %11s %11s %12s\n", "integrator", "amp err %", "period %",
                "zeta_sim", "zeta_added", "err(h)/err(h/2)");
    nlohmann::json rows = nlohmann::json::array();
    double implicit_amp = kNaN, bdf2_amp = kNaN;
    for (Integrator integrator : kAllIntegrators) {
      SpringRow row;
      row.check = checkSpring1d(scene, integrator, kSpringDt, kSpringPeriods, SolverSettings{});
      row.error_h = runSweepCell(factory, {integrator, kSpringDt, 100.0}, 1.0, {}).realism_error;
      row.error_half =
          runSweepCell(factory, {integrator, kSpringDt / 2, 100.0}, 1.0, {}).realism_error;
      const Spring1dCheck& c = row.check;
      const double ratio = row.error_h / row.error_half;
      if (integrator == Integrator::kImplicit) implicit_amp = c.amplitude_error;
      if (integrator == Integrator::kBdf2) bdf2_amp = c.amplitude_error;
      std::printf("  %-10s %11.4g %11.4g %11.5f %11.5f %12.3g\n",
                  std::string(integratorName(integrator)).c_str(), 100.0 * c.amplitude_error,
                  100.0 * c.period_error, c.fitted_damping_ratio, c.added_damping_ratio, ratio);
      rows.push_back({{"integrator", std::string(integratorName(integrator))},
                      {"amplitude_error", num(c.amplitude_error)},
                      {"period_error", num(c.period_error)},
                      {"fitted_damping_ratio", num(c.fitted_damping_ratio)},
                      {"added_damping_ratio", num(c.added_damping_ratio)},
                      {"ms_per_step", c.ms_per_step},
                      {"error_dt", num(row.error_h)},
                      {"error_half_dt", num(row.error_half)},
                      {"error_ratio", num(ratio)}});
      spring_csv += std::string(integratorName(integrator)) + "," + csvNumber(c.amplitude_error) +
                    "," + csvNumber(c.period_error) + "," + csvNumber(c.fitted_damping_ratio) +
                    "," + csvNumber(c.added_damping_ratio) + "," + csvNumber(c.ms_per_step) + "," +
                    csvNumber(row.error_h) + "," + csvNumber(row.error_half) + "," +
                    csvNumber(ratio) + "\n";
    }
    const Spring1dCheck any = checkSpring1d(scene, Integrator::kBdf2, kSpringDt, 1, {});
    const double amp_ratio = std::abs(implicit_amp) / std::abs(bdf2_amp);
    std::printf(
        "  exact period %.5f s, damping ratio %.5f; |implicit| / |bdf2| amplitude error "
        "after %d periods = %.1f (goal >= 20)\n\n",
        any.exact_period, any.exact_damping_ratio, kSpringPeriods, amp_ratio);
    report["spring1d"] = {{"mass", 1.0},
                          {"stiffness", 100.0},
                          {"damping", 0.1},
                          {"dt", kSpringDt},
                          {"periods", kSpringPeriods},
                          {"exact_period", any.exact_period},
                          {"exact_damping_ratio", any.exact_damping_ratio},
                          {"implicit_over_bdf2_amplitude_error", num(amp_ratio)},
                          {"meets_goal", amp_ratio >= 20.0},
                          {"rows", rows}};
  }

  if (stability) {
    stability_csv =
        "scene,res,stiffness,omega_max,omega_bound,two_over_omega,c_over_k,explicit_stable_dt,"
        "explicit_diverged_dt,explicit_ratio,explicit_ratio_c_over_k,symplectic_stable_dt,"
        "symplectic_diverged_dt,symplectic_ratio\n";
    std::printf(
        "explicit-Euler stability (k 1e4, %g s per run): measured divergence dt vs "
        "2 / omega_max\n",
        options.stability_duration);
    std::printf("  %-9s %9s %9s %9s %9s %10s %7s %7s %10s %7s\n", "scene", "w_max", "w_bound",
                "2/w_max", "c/k", "explicit", "x2/w", "x c/k", "symplectic", "x2/w");
    nlohmann::json rows = nlohmann::json::array();
    const std::pair<const char*, int> scenes[] = {
        {"cloth", kStabilityClothRes}, {"volume", kStabilityVolumeRes}, {"spring1d", 1}};
    for (const auto& [name, res] : scenes) {
      const StabilityRow r = runStability(name, res, options.stability_duration);
      const double two_over = 2.0 / r.omega.power;
      const double ex = limitOf(r.explicit_limit), sy = limitOf(r.symplectic_limit);
      std::printf("  %-9s %9.4g %9.4g %9.3g %9.3g %10.3g %7.3g %7.3g %10.3g %7.3g\n",
                  (std::string(name) + (res > 1 ? " " + std::to_string(res) : "")).c_str(),
                  r.omega.power, r.omega.bound, two_over, r.damped_limit, ex, ex / two_over,
                  ex / r.damped_limit, sy, sy / two_over);
      auto limitJson = [&](const DivergenceLimit& l) {
        return nlohmann::json{{"stable_dt", num(l.stable_dt)},
                              {"diverged_dt", num(l.diverged_dt)},
                              {"limit_dt", num(limitOf(l))},
                              {"ratio_to_two_over_omega", num(limitOf(l) / two_over)},
                              {"ratio_to_c_over_k", num(limitOf(l) / r.damped_limit)},
                              {"runs", l.runs}};
      };
      rows.push_back({{"scene", name},
                      {"res", res},
                      {"stiffness", kStabilityStiffness},
                      {"duration", options.stability_duration},
                      {"omega_max", r.omega.power},
                      {"omega_max_bound", r.omega.bound},
                      {"two_over_omega_max", two_over},
                      {"c_over_k", r.damped_limit},
                      {"explicit", limitJson(r.explicit_limit)},
                      {"symplectic", limitJson(r.symplectic_limit)}});
      stability_csv +=
          std::string(name) + "," + std::to_string(res) + "," + csvNumber(kStabilityStiffness) +
          "," + csvNumber(r.omega.power) + "," + csvNumber(r.omega.bound) + "," +
          csvNumber(two_over) + "," + csvNumber(r.damped_limit) + "," +
          csvNumber(r.explicit_limit.stable_dt) + "," + csvNumber(r.explicit_limit.diverged_dt) +
          "," + csvNumber(ex / two_over) + "," + csvNumber(ex / r.damped_limit) + "," +
          csvNumber(r.symplectic_limit.stable_dt) + "," +
          csvNumber(r.symplectic_limit.diverged_dt) + "," + csvNumber(sy / two_over) + "\n";
    }
    std::printf(
        "  w_max: power iteration on M^-1 K at rest; w_bound: sqrt(max_i 2 sum_s k_s / "
        "m_i); limits: geometric mean of the last stable and first diverged dt\n\n");
    report["stability"] = rows;
  }

  // outputs, all or none
  OutputDirectory directory;
  if (Status s = directory.create(options.out_dir, "--out"); !s) return badInput(s);
  auto fail = [&](const Status& s) {
    directory.remove();
    return badInput(s);
  };
  std::vector<std::pair<std::string, std::string>> files = {
      {"evaluation.json", report.dump(2) + "\n"}};
  if (drop) files.emplace_back("evaluation-drop.csv", drop_csv);
  if (spring) files.emplace_back("evaluation-spring1d.csv", spring_csv);
  if (stability) files.emplace_back("evaluation-stability.csv", stability_csv);
  std::vector<std::unique_ptr<AtomicFile>> outputs;
  for (const auto& [name, text] : files) {
    outputs.push_back(std::make_unique<AtomicFile>());
    if (Status s = outputs.back()->open((out_dir / name).string()); !s) return fail(s);
    outputs.back()->stream() << text;
  }
  for (auto& f : outputs) {
    if (Status s = f->commit(); !s) return fail(s);
  }
  std::printf("wrote %s\n", (out_dir / "evaluation.json").string().c_str());
  return 0;
}

}  // namespace hooke
