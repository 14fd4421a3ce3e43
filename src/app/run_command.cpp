// `hooke run`: simulates a scene headless for a number of ticks and writes the report and trace.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/backend_factory.h"
#include "app/backend_fallback.h"
#include "app/cli_options.h"
#include "app/run_report.h"
#include "io/atomic_file.h"
#include "io/scene_file.h"
#include "sim/simulation.h"

namespace hooke {

namespace {

void writeTraceRows(std::ostream& out, double t, const State& state, const RunPlan& plan) {
  char line[160];
  auto row = [&](size_t i) {
    const glm::vec3 x = state.x[i];
    std::snprintf(line, sizeof line, "%.9g,%zu,%.9g,%.9g,%.9g\n", t, i, x.x, x.y, x.z);
    out << line;
  };
  if (plan.trace_all) {
    for (size_t i = 0; i < state.x.size(); ++i)
      row(i);
  } else {
    for (uint32_t i : plan.trace_particles)
      row(i);
  }
}

}  // namespace

int runCommand(const RunOptions& options) {
  // everything that can be wrong with the input is checked before any output is created
  Scene scene;
  if (Status s = buildScene(options.scene, &scene); !s) return badInput(s);
  RunPlan plan;
  if (Status s = planRun(options, scene, &plan); !s) return badInput(s);
  BackendChoice choice;
  if (Status s = loadBackend(options.backend, scene.model, scene.state, &choice, plan.integrator);
      !s) {
    return badInput(s);
  }
  if (!choice.fallback_reason.empty()) {
    std::fprintf(stderr, "hooke: CUDA not used (%s); running on the CPU backend\n",
                 choice.fallback_reason.c_str());
  }
  choice.backend->setSettings(plan.settings);
  const std::string backend_name(choice.backend->name());  // as loaded; a fallback may follow

  AtomicFile report_file, trace_file;
  if (!options.report_path.empty()) {
    if (Status s = report_file.open(options.report_path); !s) return badInput(s);
  }
  if (!options.trace_path.empty()) {
    if (Status s = trace_file.open(options.trace_path); !s) return badInput(s);
    trace_file.stream() << "t,particle,x,y,z\n";
    writeTraceRows(trace_file.stream(), 0.0, scene.state, plan);
  }

  // the run: ticks of dt, a solve every skip + 1 ticks
  Simulation sim(std::move(choice.backend), scene.model, scene.state, options.dt, plan.skip);
  if (options.backend == "auto" && backend_name != "cpu")
    sim.setFallback(cpuFallback(plan.settings));
  auto start = std::chrono::steady_clock::now();
  bool switch_told = false;
  for (int64_t tick = 0; tick < plan.ticks && !sim.diverged() && !sim.error(); ++tick) {
    std::optional<SolveReport> solved = sim.tick();
    if (solved && trace_file.isOpen()) {
      writeTraceRows(trace_file.stream(), solved->time, sim.state(), plan);
    }
    if (!switch_told && sim.backendSwitch()) {
      switch_told = true;
      std::fprintf(stderr, "hooke: %s\n", describeSwitch(*sim.backendSwitch()).c_str());
    }
  }
  double wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (sim.error()) {
    const std::string failed_name(sim.backend().name());
    return badInput(Status::error("the " + failed_name + " backend failed: " + *sim.error()));
  }

  // outputs
  Energy energy = computeEnergy(scene.model, sim.state());
  nlohmann::json report = runReportJson(summarizeRun(
      scene.name, plan.integrator, std::string(sim.backend().name()), sim, energy, wall_seconds));
  report["backend_fallback"] = backendSwitchJson(sim.backendSwitch());
  if (report_file.isOpen()) {
    report_file.stream() << report.dump(2) << "\n";
    if (Status s = report_file.commit(); !s) return badInput(s);
  }
  if (trace_file.isOpen()) {
    if (Status s = trace_file.commit(); !s) return badInput(s);
  }

  // summary
  const TickScheduler& sched = sim.scheduler();
  const RunTotals& totals = sim.totals();
  std::printf("hooke run: %s (%zu particles, %zu springs), %s on %s, dt %g s, skip %d (h %g s)\n",
              scene.name.c_str(), scene.model.particleCount(), scene.model.springCount(),
              options.integrator.c_str(), std::string(sim.backend().name()).c_str(), options.dt,
              plan.skip, sched.h());
  std::printf("  %" PRId64 " ticks, %" PRId64
              " solves, %.4g s simulated in %.3g s (%.3gx real time)\n",
              sched.ticks(), sched.solves(), sched.simTime(), wall_seconds,
              wall_seconds > 0 ? sched.simTime() / wall_seconds : 0.0);
  if (sim.diverged()) {
    std::printf("  DIVERGED at t = %.6g s; stepping stopped\n", *sim.divergedAt());
  } else {
    std::printf("  energy: kinetic %.6g J, potential %.6g J, total %.6g J; max strain %.4g\n",
                energy.kinetic, energy.potential(), energy.total(), totals.max_strain);
  }
  const bool newton =
      plan.integrator == Integrator::kNewton || plan.integrator == Integrator::kBdf2;
  if (newton && totals.solves > 0) {
    std::printf("  Newton: %.2f iterations per solve (max %d)\n",
                double(totals.newton_iterations_sum) / double(totals.solves),
                totals.newton_iterations_max);
  }
  if ((plan.integrator == Integrator::kImplicit || newton) && totals.solves > 0) {
    std::printf("  CG: %.1f iterations per solve (max %d), residual max %.3g",
                report["cg"]["iterations_mean"].get<double>(), totals.cg_iterations_max,
                totals.cg_residual_max);
    if (totals.cg_unconverged) {
      std::printf(", %" PRId64 " solves hit the iteration cap", totals.cg_unconverged);
    }
    std::printf("\n");
  }
  return 0;
}

int exportSceneCommand(const SceneOptions& options, const std::string& out_path) {
  Scene scene;
  if (Status s = buildScene(options, &scene); !s) return badInput(s);
  if (Status s = validateScene(scene, scene.name); !s) return badInput(s);
  if (Status s = writeFileAtomic(out_path, sceneToJson(scene)); !s) return badInput(s);
  std::printf("hooke export-scene: %s (%zu particles, %zu springs) -> %s\n", scene.name.c_str(),
              scene.model.particleCount(), scene.model.springCount(), out_path.c_str());
  return 0;
}

}  // namespace hooke
