// `hooke` without a sub-command: checks every input before a window opens, runs the frame loop
// (until the window closes or --exit-after), then writes the screenshot and report atomically.
//
// [SECTION] options
// [SECTION] checks
// [SECTION] settings
// [SECTION] the command
#include "app/gui/gui_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <sstream>
#include <thread>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/backend_fallback.h"
#include "app/cli_flags.h"
#include "app/gui/gui_app.h"
#include "app/gui/gui_window.h"
#include "app/gui/settings_store.h"
#include "app/gui/sim_session.h"
#include "app/run_report.h"
#include "io/atomic_file.h"
#include "render/image.h"

namespace hooke {

namespace {

constexpr double kMaxExitAfter = 1e6;
constexpr int kMinWindowSide = 200;
constexpr int kMaxWindowSide = 16384;

int failed(const std::string& what) {
  std::fprintf(stderr, "hooke: %s\n", what.c_str());
  return 1;
}

// spdlog to stderr, one line per message, prefixed like every other hooke message
void startLogging() {
  if (spdlog::get("hooke")) return;
  auto logger = spdlog::stderr_color_mt("hooke");
  logger->set_pattern("hooke: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::info);
}

}  // namespace

// [SECTION] options

void addGuiOptions(CLI::App* app, GuiOptions* options) {
  RunOptions& run = options->run;
  addSolverFlags(app, &run, "desktop app: ");
  app->add_option("--exit-after", options->exit_after,
                  "desktop app: close after this many wall-clock seconds");
  app->add_option("--screenshot", options->screenshot_path,
                  "desktop app: at exit, save the window (panels included) as this .png");
  app->add_option("--report", options->report_path,
                  "desktop app: at exit, write the run report (JSON, as hooke run --report)");
  app->add_option("--width", options->width, "desktop app: window width")->capture_default_str();
  app->add_option("--height", options->height, "desktop app: window height")->capture_default_str();
  CLI::Option* settings = app->add_option("--settings", options->settings_path,
                                          "desktop app: read and save the settings here (default "
                                          "$XDG_CONFIG_HOME/hooke/settings.json)");
  app->add_flag("--no-settings", options->no_settings,
                "desktop app: neither restore nor save the settings")
      ->excludes(settings);
  options->command_line = app;
}

// [SECTION] checks

namespace {

Status checkGuiOptions(const GuiOptions& options) {
  if (options.exit_after && !(std::isfinite(*options.exit_after) && *options.exit_after > 0.0 &&
                              *options.exit_after <= kMaxExitAfter)) {
    return Status::error("--exit-after must be a number of seconds in (0, " + show(kMaxExitAfter) +
                         "], got " + show(*options.exit_after));
  }
  for (auto [flag, value] : {std::pair{"--width", options.width}, {"--height", options.height}}) {
    if (value < kMinWindowSide || value > kMaxWindowSide) {
      return Status::error(std::string(flag) + " must be an integer " +
                           std::to_string(kMinWindowSide) + ".." + std::to_string(kMaxWindowSide) +
                           ", got " + std::to_string(value));
    }
  }
  const std::string& shot = options.screenshot_path;
  if (!shot.empty()) {
    std::string extension = shot.size() >= 4 ? shot.substr(shot.size() - 4) : "";
    for (char& c : extension)
      c = char(std::tolower(static_cast<unsigned char>(c)));
    if (extension != ".png") {
      return Status::error("--screenshot must name a .png file, got '" + shot + "'");
    }
  }
  return Status::ok();
}

// the panels' starting values: what the command line asked for
PanelState initialPanelState(const GuiOptions& options, const RunPlan& plan) {
  PanelState state;
  const SceneOptions& scene = options.run.scene;
  if (scene.scene == "cloth") {
    state.scene = SceneKind::kCloth;
    state.cloth_res = scene.res.value_or(state.cloth_res);
  } else if (scene.scene == "volume") {
    state.scene = SceneKind::kVolume;
    state.volume_res = scene.res.value_or(state.volume_res);
  } else if (scene.scene == "spring1d") {
    state.scene = SceneKind::kSpring1d;
  } else {
    state.scene = SceneKind::kFile;
    const size_t n = std::min(scene.scene.size(), sizeof state.file_path - 1);
    scene.scene.copy(state.file_path, n);
    state.file_path[n] = '\0';
  }
  state.solver = plan.settings;
  state.time.dt = options.run.dt;
  state.time.auto_skip = options.run.skip == "auto";
  state.time.manual_skip = plan.skip;
  state.draw.springs = options.springs;
  state.draw.particles = options.particles;
  return state;
}

}  // namespace

// [SECTION] settings

namespace {

void warn(const std::string& line) {
  std::fprintf(stderr, "hooke: warning: %s\n", line.c_str());
}

// where the settings are read and written; empty: nowhere
std::string settingsPath(const GuiOptions& options) {
  if (options.no_settings) return "";
  return options.settings_path.empty() ? defaultSettingsPath() : options.settings_path;
}

// What the app starts with: the command line over the restored settings.
struct Start {
  GuiOptions options;
  RunPlan plan;
  PanelState state;
  std::optional<MaterialSettings> material;
  std::optional<CameraSettings> camera;
  std::string backend_asked;         // as restored or given: what is saved while the user keeps it
  std::optional<StoredSweep> sweep;  // the Sweep panel's grid, when restored
};

// The options with the restored settings filled in wherever the command line said nothing.
GuiOptions restoredOptions(const GuiOptions& given, const StoredSettings& stored,
                           bool* restored_scene) {
  auto typed = [&](const char* flag) {
    return given.command_line && given.command_line->count(flag) > 0;
  };
  GuiOptions o = given;
  RunOptions& run = o.run;
  *restored_scene = !typed("--scene") && !typed("--res");
  if (*restored_scene) {
    run.scene.scene = stored.scene;
    run.scene.res.reset();
    if (stored.scene == "cloth") run.scene.res = stored.cloth_res;
    if (stored.scene == "volume") run.scene.res = stored.volume_res;
  }
  if (!typed("--backend")) run.backend = stored.backend == "cuda" ? "auto" : stored.backend;
  if (!typed("--integrator"))
    run.integrator = std::string(integratorName(stored.solver.integrator));
  if (!typed("--tolerance")) run.tolerance = stored.solver.tolerance;
  if (!typed("--max-iterations")) run.max_iterations = stored.solver.max_iterations;
  if (!typed("--newton-tolerance")) run.newton_tolerance = stored.solver.newton_tolerance;
  if (!typed("--newton-max-iterations")) {
    run.newton_max_iterations = stored.solver.newton_max_iterations;
  }
  if (!typed("--dt")) run.dt = stored.time.dt;
  if (!typed("--skip")) {
    run.skip = stored.time.auto_skip ? "auto" : std::to_string(stored.time.manual_skip);
  }
  if (!typed("--width")) o.width = stored.window_width;
  if (!typed("--height")) o.height = stored.window_height;
  return o;
}

// Plans the start from the command line and, when given, the restored settings.
Status planStart(const GuiOptions& given, const StoredSettings* stored, Start* out) {
  bool restored_scene = false;
  out->options = stored ? restoredOptions(given, *stored, &restored_scene) : given;
  RunOptions run = out->options.run;
  run.steps = 1;  // planRun wants a run length; the app runs until it is closed
  run.duration.reset();
  if (Status s = planRun(run, Scene{}, &out->plan); !s) return s;
  out->state = initialPanelState(out->options, out->plan);
  out->backend_asked = out->options.run.backend;
  if (!stored) return Status::ok();

  const SceneOptions& scene = given.run.scene;
  const bool material_typed = scene.stiffness || scene.damping || scene.mass || scene.drag;
  if (restored_scene && !material_typed) out->material = stored->material;
  if (restored_scene) out->camera = stored->camera;
  out->state.cloth_res = stored->cloth_res;
  out->state.volume_res = stored->volume_res;
  if (out->state.scene == SceneKind::kCloth && out->options.run.scene.res) {
    out->state.cloth_res = *out->options.run.scene.res;
  }
  if (out->state.scene == SceneKind::kVolume && out->options.run.scene.res) {
    out->state.volume_res = *out->options.run.scene.res;
  }
  if (!out->state.time.auto_skip) out->state.time.manual_skip = out->plan.skip;
  if (out->state.time.auto_skip) out->state.time.manual_skip = stored->time.manual_skip;
  out->state.time.time_scale = stored->time.time_scale;
  out->state.show_panels = stored->show_panels;
  out->state.draw.body = stored->draw_body;
  out->state.draw.springs = stored->draw_springs || given.springs;
  out->state.draw.particles = stored->draw_particles || given.particles;
  out->state.draw.ground = stored->draw_ground;
  out->state.draw.shadow = stored->draw_shadow;
  out->state.draw.strain_full_scale = stored->strain_full_scale;
  out->state.compare.integrator = stored->compare_integrator;
  out->state.compare.view = stored->compare_view;
  out->sweep = stored->sweep;
  return Status::ok();
}

// What the user leaves behind: the session's scene and settings, the view, the window.
StoredSettings settingsAtExit(GuiApp& app, const GuiWindow& window, const Start& start) {
  StoredSettings s;
  const SimSession& session = app.session();
  const PanelState& panel = app.panelState();
  const SceneOptions& scene = session.sceneOptions();
  s.scene = scene.scene;
  s.cloth_res = panel.cloth_res;
  s.volume_res = panel.volume_res;
  if (scene.scene == "cloth" && scene.res) s.cloth_res = *scene.res;
  if (scene.scene == "volume" && scene.res) s.volume_res = *scene.res;
  // the backend as asked ("auto" stays "auto") unless the user picked another in the panel
  const std::string running(session.backend().name());
  s.backend = panel.backend == running && !session.backendSwitch() &&
                      (start.backend_asked == "auto" || start.backend_asked == running)
                  ? start.backend_asked
                  : panel.backend;
  s.solver = session.solver();
  s.time = session.time();
  s.material = session.material();
  const OrbitCamera& camera = app.camera();
  s.camera =
      CameraSettings{camera.yaw_degrees, camera.pitch_degrees, camera.distance, camera.target};
  const glm::ivec2 size = window.windowSize();
  s.window_width = size.x >= 200 && size.x <= 16384 ? size.x : start.options.width;
  s.window_height = size.y >= 200 && size.y <= 16384 ? size.y : start.options.height;
  s.show_panels = panel.show_panels;
  s.draw_body = panel.draw.body;
  s.draw_springs = panel.draw.springs;
  s.draw_particles = panel.draw.particles;
  s.draw_ground = panel.draw.ground;
  s.draw_shadow = panel.draw.shadow;
  s.strain_full_scale = panel.draw.strain_full_scale;
  s.compare_integrator = panel.compare.integrator;
  s.compare_view = panel.compare.view;
  const SweepPanelState& sweep = app.sweepPanel();
  std::copy(std::begin(sweep.integrators), std::end(sweep.integrators),
            s.sweep.integrators.begin());
  s.sweep.dt_min = sweep.dt_min;
  s.sweep.dt_max = sweep.dt_max;
  s.sweep.k_min = sweep.k_min;
  s.sweep.k_max = sweep.k_max;
  s.sweep.dt_cells = sweep.dt_cells;
  s.sweep.k_cells = sweep.k_cells;
  s.sweep.duration = sweep.duration;
  // a round trip through the checks, so a value the panels allow but the file does not (a
  // manual skip above 10 from the command line) is never written
  std::string dropped;
  return parseSettings(settingsToJson(s), &dropped);
}

}  // namespace

// [SECTION] the command

int guiCommand(const GuiOptions& options) {
  // every input is checked, and every output opened, before a window opens
  if (Status s = checkGuiOptions(options); !s) return badInput(s);

  Start given;
  if (Status s = planStart(options, nullptr, &given); !s) return badInput(s);

  // the settings of the last run, under what the command line says; when what they restore
  // cannot start (a scene file since deleted), the command line alone
  const std::string settings_path = settingsPath(options);
  std::optional<StoredSettings> stored;
  if (!settings_path.empty()) {
    std::string warning;
    stored = loadSettings(settings_path, &warning);
    if (!warning.empty()) warn(warning);
  }
  Start start;
  auto session = std::make_unique<SimSession>();
  Status restored = Status::error("no settings");
  if (stored) {
    restored = planStart(options, &*stored, &start);
    if (restored) restored = checkGuiOptions(start.options);
    if (restored) {
      restored = session->load(start.options.run.scene, start.options.run.backend,
                               start.plan.settings, start.state.time, start.material);
    }
  }
  if (!restored) {
    start = given;
    if (Status s = session->load(start.options.run.scene, start.options.run.backend,
                                 start.plan.settings, start.state.time);
        !s) {
      return badInput(s);
    }
    if (stored) {
      warn("the restored settings cannot start (" + restored.message() +
           "); starting from the command line alone");
    }
  }
  PanelState& state = start.state;
  AtomicFile report_file, screenshot_file;
  if (!options.report_path.empty()) {
    if (Status s = report_file.open(options.report_path); !s) return badInput(s);
  }
  if (!options.screenshot_path.empty()) {
    if (Status s = screenshot_file.open(options.screenshot_path); !s) return badInput(s);
  }

  // the window; without a display, say where to go instead
  startLogging();
  WindowOptions window_options;
  window_options.width = start.options.width;
  window_options.height = start.options.height;
#ifndef NDEBUG
  window_options.debug_context = true;
#endif
  std::unique_ptr<GuiWindow> window;
  bool no_display = false;
  if (Status s = GuiWindow::create(window_options, &window, &no_display); !s) {
    if (no_display) {
      return badInput(Status::error(s.message() +
                                    "; without a display, `hooke render` makes images offscreen"));
    }
    return failed("cannot start the desktop app: " + s.message());
  }
  spdlog::info("{}", window->glDescription());
  if (!session->backendFallbackReason().empty()) {
    spdlog::info("CUDA not used ({}); running on the CPU backend",
                 session->backendFallbackReason());
  }
  GuiApp app(window.get(), std::move(session), state);
  if (Status s = app.init(); !s) return failed("the renderer failed: " + s.message());
  if (start.camera) {
    OrbitCamera camera = app.camera();
    camera.yaw_degrees = start.camera->yaw_degrees;
    camera.pitch_degrees = start.camera->pitch_degrees;
    camera.distance = start.camera->distance;
    camera.target = start.camera->target;
    app.restoreCamera(camera);
  }
  if (start.sweep) {
    SweepPanelState& sweep = app.sweepPanel();
    std::copy(start.sweep->integrators.begin(), start.sweep->integrators.end(),
              std::begin(sweep.integrators));
    sweep.dt_min = start.sweep->dt_min;
    sweep.dt_max = start.sweep->dt_max;
    sweep.k_min = start.sweep->k_min;
    sweep.k_max = start.sweep->k_max;
    sweep.dt_cells = start.sweep->dt_cells;
    sweep.k_cells = start.sweep->k_cells;
    sweep.duration = start.sweep->duration;
  }

  // the frame loop; the last frame is captured when a screenshot is wanted
  using Clock = std::chrono::steady_clock;
  const auto start_time = Clock::now();
  auto last = start_time;
  Image shot;
  Status captured = Status::ok();
  int64_t frames = 0;
  for (;;) {
    const FrameSize size = app.currentSize();
    const bool minimised = size.framebuffer.x <= 0 || size.framebuffer.y <= 0;
    window->pollEvents(minimised ? 0.05 : 0.0);
    const auto now = Clock::now();
    const double wall = std::chrono::duration<double>(now - last).count();
    last = now;
    const double elapsed = std::chrono::duration<double>(now - start_time).count();
    const bool final_frame =
        window->closeRequested() || (options.exit_after && elapsed >= *options.exit_after);
    const bool capture = final_frame && screenshot_file.isOpen();
    captured = app.frame(app.currentSize(), wall, capture ? &shot : nullptr);
    ++frames;
    if (final_frame) break;
  }
  const double wall_seconds = std::chrono::duration<double>(Clock::now() - start_time).count();

  // the settings for the next run (a failure to save is told, never fatal)
  if (!settings_path.empty()) {
    if (Status s = saveSettings(settings_path, settingsAtExit(app, *window, start)); !s) {
      warn("settings not saved: " + s.message());
    }
  }

  // outputs, each whole or not at all
  if (screenshot_file.isOpen()) {
    if (!captured) return failed(captured.message());
    std::string png;
    if (Status s = encodePng(shot, &png); !s) return failed(s.message());
    screenshot_file.stream().write(png.data(), std::streamsize(png.size()));
    if (Status s = screenshot_file.commit(); !s) return failed(s.message());
  }
  const RunSummary summary = app.session().summary(wall_seconds);
  if (report_file.isOpen()) {
    nlohmann::json report = runReportJson(summary);
    report["backend_fallback"] = backendSwitchJson(app.session().backendSwitch());
    report["frames"] = frames;             // the app's own: drawn frames
    report["gl_errors"] = app.glErrors();  // and GL errors seen after them
    report_file.stream() << report.dump(2) << "\n";
    if (Status s = report_file.commit(); !s) return failed(s.message());
  }
  std::printf("hooke: %s, %s on %s: %.3g s simulated in %.3g s (%lld solves)%s\n",
              summary.scene.c_str(), summary.integrator.c_str(), summary.backend.c_str(),
              summary.sim_time, wall_seconds, static_cast<long long>(summary.solves),
              summary.diverged_at ? ", diverged" : "");
  return 0;
}

}  // namespace hooke
