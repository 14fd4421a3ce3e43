// `hooke` without a sub-command: checks every input before a window opens, runs the frame loop
// (until the window closes or --exit-after), then writes the screenshot and report atomically.
//
// [SECTION] options
// [SECTION] checks
// [SECTION] the command
#include "app/gui/gui_command.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <thread>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/cli_flags.h"
#include "app/gui/gui_app.h"
#include "app/gui/gui_window.h"
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

// [SECTION] the command

int guiCommand(const GuiOptions& options) {
  // every input is checked, and every output opened, before a window opens
  if (Status s = checkGuiOptions(options); !s) return badInput(s);
  RunOptions run = options.run;
  run.steps = 1;  // planRun wants a run length; the app runs until it is closed
  run.duration.reset();
  RunPlan plan;
  if (Status s = planRun(run, Scene{}, &plan); !s) return badInput(s);
  PanelState state = initialPanelState(options, plan);
  auto session = std::make_unique<SimSession>();
  if (Status s = session->load(run.scene, run.backend, plan.settings, state.time); !s) {
    return badInput(s);
  }
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
  window_options.width = options.width;
  window_options.height = options.height;
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

  // the frame loop; the last frame is captured when a screenshot is wanted
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last = start;
  Image shot;
  Status captured = Status::ok();
  for (;;) {
    const FrameSize size = app.currentSize();
    const bool minimised = size.framebuffer.x <= 0 || size.framebuffer.y <= 0;
    window->pollEvents(minimised ? 0.05 : 0.0);
    const auto now = Clock::now();
    const double wall = std::chrono::duration<double>(now - last).count();
    last = now;
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const bool final_frame =
        window->closeRequested() || (options.exit_after && elapsed >= *options.exit_after);
    const bool capture = final_frame && screenshot_file.isOpen();
    captured = app.frame(app.currentSize(), wall, capture ? &shot : nullptr);
    if (final_frame) break;
  }
  const double wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();

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
    report_file.stream() << runReportJson(summary).dump(2) << "\n";
    if (Status s = report_file.commit(); !s) return failed(s.message());
  }
  std::printf("hooke: %s, %s on %s: %.3g s simulated in %.3g s (%lld solves)%s\n",
              summary.scene.c_str(), summary.integrator.c_str(), summary.backend.c_str(),
              summary.sim_time, wall_seconds, static_cast<long long>(summary.solves),
              summary.diverged_at ? ", diverged" : "");
  return 0;
}

}  // namespace hooke
