// Validation of the CLI's values and the scene they build.
#include "app/cli_options.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "app/memory_budget.h"
#include "io/scene_file.h"
#include "sim/tick_scheduler.h"

namespace hooke {

namespace {

Status requirePositive(const char* flag, std::optional<double> value) {
  if (value && !(std::isfinite(*value) && *value > 0.0)) {
    return Status::error(std::string(flag) + " must be a finite number > 0, got " + show(*value));
  }
  return Status::ok();
}

Status requireNonNegative(const char* flag, std::optional<double> value) {
  if (value && !(std::isfinite(*value) && *value >= 0.0)) {
    return Status::error(std::string(flag) + " must be a finite number >= 0, got " + show(*value));
  }
  return Status::ok();
}

// float-range guard: a finite double can still overflow a float
Status requireFloatRange(const char* flag, std::optional<double> value) {
  if (value && std::abs(*value) > 1e30) {
    return Status::error(std::string(flag) + " is too large: " + show(*value));
  }
  return Status::ok();
}

}  // namespace

std::string show(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

int badInput(const Status& status) {
  std::fprintf(stderr, "hooke: %s\n", status.message().c_str());
  return 2;
}

Status buildScene(const SceneOptions& options, Scene* out) {
  for (Status s :
       {requireNonNegative("--stiffness", options.stiffness),
        requireNonNegative("--damping", options.damping), requirePositive("--mass", options.mass),
        requireNonNegative("--drag", options.drag),
        requireFloatRange("--stiffness", options.stiffness),
        requireFloatRange("--damping", options.damping), requireFloatRange("--mass", options.mass),
        requireFloatRange("--drag", options.drag)}) {
    if (!s) return s;
  }
  Material material;
  if (options.stiffness) material.stiffness = static_cast<float>(*options.stiffness);
  if (options.damping) material.damping = static_cast<float>(*options.damping);
  if (options.mass) material.mass = static_cast<float>(*options.mass);
  if (options.drag) material.drag = static_cast<float>(*options.drag);

  if (builtinDefaults(options.scene)) {
    if (options.res && *options.res < 2 && options.scene != "spring1d") {
      return Status::error("--res must be at least 2, got " + std::to_string(*options.res));
    }
    // refused before building when it cannot fit in memory (memory_budget.h)
    uint64_t particles = 0, springs = 0;
    builtinSceneCounts(options.scene, options.res.value_or(0), &particles, &springs);
    const std::string what =
        "--scene " + options.scene + " --res " + std::to_string(options.res.value_or(0));
    if (options.res && *options.res <= maxBuiltinRes(options.scene)) {
      if (Status s = checkHostMemory(what, particles, springs); !s) return s;
    }
    return makeBuiltinScene(options.scene, options.res.value_or(0), material, out);
  }
  if (options.res) {
    return Status::error("--res applies to the built-in scenes only, not to " + options.scene);
  }
  // loadSceneFile applies the material and validates; the run's memory is checked before any
  // backend takes the scene
  if (Status s = checkSceneFileMemory(options.scene); !s) return s;
  if (Status s = loadSceneFile(options.scene, material, out); !s) return s;
  return checkHostMemory(options.scene, out->model.particleCount(), out->model.springCount());
}

Status planRun(const RunOptions& options, const Scene& scene, RunPlan* out) {
  if (!parseIntegrator(options.integrator, &out->integrator)) {
    return Status::error(
        "--integrator must be explicit, symplectic, implicit, newton or bdf2, got '" +
        options.integrator + "'");
  }
  if (!(std::isfinite(options.dt) && options.dt > 0.0)) {
    return Status::error("--dt must be a finite number > 0, got " + show(options.dt));
  }
  if (options.dt > 10.0) return Status::error("--dt must be at most 10 s, got " + show(options.dt));
  if (!(std::isfinite(options.tolerance) && options.tolerance > 0.0 && options.tolerance < 1.0)) {
    return Status::error("--tolerance must be a number in (0, 1), got " + show(options.tolerance));
  }
  if (options.max_iterations < 1) {
    return Status::error("--max-iterations must be at least 1, got " +
                         std::to_string(options.max_iterations));
  }

  if (!(std::isfinite(options.newton_tolerance) && options.newton_tolerance > 0.0 &&
        options.newton_tolerance < 1.0)) {
    return Status::error("--newton-tolerance must be a number in (0, 1), got " +
                         show(options.newton_tolerance));
  }
  if (options.newton_max_iterations < 1 || options.newton_max_iterations > 1000) {
    return Status::error("--newton-max-iterations must be between 1 and 1000, got " +
                         std::to_string(options.newton_max_iterations));
  }

  // --skip N|auto
  if (options.skip == "auto") {
    out->skip = autoSkip(options.dt);
  } else {
    size_t used = 0;
    int skip = -1;
    try {
      skip = std::stoi(options.skip, &used);
    } catch (...) {
      used = 0;
    }
    if (used != options.skip.size() || skip < 0 || skip > 1000) {
      return Status::error("--skip must be auto or an integer 0..1000, got '" + options.skip + "'");
    }
    out->skip = skip;
  }

  // --steps TICKS | --duration SECONDS
  if (options.steps.has_value() == options.duration.has_value()) {
    return Status::error("give exactly one of --steps TICKS or --duration SECONDS");
  }
  constexpr int64_t kMaxTicks = 1'000'000'000'000;
  if (options.steps) {
    if (*options.steps < 1 || *options.steps > kMaxTicks) {
      return Status::error("--steps must be between 1 and 1e12, got " +
                           std::to_string(*options.steps));
    }
    out->ticks = *options.steps;
  } else {
    double ticks = std::round(*options.duration / options.dt);
    if (!(std::isfinite(*options.duration) && *options.duration > 0.0) || ticks < 1.0 ||
        ticks > double(kMaxTicks)) {
      return Status::error("--duration must be a finite number of seconds holding 1 to 1e12 " +
                           std::string("ticks of --dt, got ") + show(*options.duration));
    }
    out->ticks = static_cast<int64_t>(ticks);
  }

  // --trace-particles all|I,J,...
  out->trace_all = options.trace_particles == "all";
  out->trace_particles.clear();
  if (!out->trace_all) {
    std::stringstream list(options.trace_particles);
    std::string item;
    while (std::getline(list, item, ',')) {
      size_t used = 0;
      long long index = -1;
      try {
        index = std::stoll(item, &used);
      } catch (...) {
        used = 0;
      }
      if (item.empty() || used != item.size() || index < 0) {
        return Status::error("--trace-particles must be all or a list of particle indices, got '" +
                             item + "'");
      }
      if (static_cast<size_t>(index) >= scene.model.particleCount()) {
        return Status::error("--trace-particles: index " + item + " out of range (" +
                             std::to_string(scene.model.particleCount()) + " particles)");
      }
      out->trace_particles.push_back(static_cast<uint32_t>(index));
    }
    if (out->trace_particles.empty()) {
      return Status::error("--trace-particles must be all or a list of particle indices");
    }
  }

  out->settings.integrator = out->integrator;
  out->settings.tolerance = static_cast<float>(options.tolerance);
  out->settings.max_iterations = options.max_iterations;
  out->settings.newton_tolerance = static_cast<float>(options.newton_tolerance);
  out->settings.newton_max_iterations = options.newton_max_iterations;
  return Status::ok();
}

}  // namespace hooke
