// `hooke render`: checks every input, simulates with hooke::Simulation, renders one frame through
// an offscreen EGL context and writes it as a PNG atomically. No window, no display server.
#include "app/render_command.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/backend_factory.h"
#include "app/backend_fallback.h"
#include "app/visual_writer.h"
#include "io/atomic_file.h"
#include "render/egl_context.h"
#include "render/image.h"
#include "render/offscreen_target.h"
#include "render/orbit_camera.h"
#include "render/renderer.h"
#include "sim/simulation.h"

namespace hooke {

namespace {

constexpr int kMinSide = 16;
constexpr int kMaxSide = 8192;
constexpr double kMaxTime = 1e6;
constexpr int kMaxFrames = 100000;
constexpr double kFrameSeconds = 1.0 / 60.0;  // the display refresh the frame loop paces to

int failed(const std::string& what) {
  std::fprintf(stderr, "hooke render: %s\n", what.c_str());
  return 1;
}

// the render-only values; the scene and solver ones are checked by buildScene and planRun
Status checkRenderOptions(const RenderCommandOptions& options) {
  for (auto [flag, value] : {std::pair{"--width", options.width}, {"--height", options.height}}) {
    if (value < kMinSide || value > kMaxSide) {
      return Status::error(std::string(flag) + " must be an integer " + std::to_string(kMinSide) +
                           ".." + std::to_string(kMaxSide) + ", got " + std::to_string(value));
    }
  }
  if (!(std::isfinite(options.time) && options.time >= 0.0 && options.time <= kMaxTime)) {
    return Status::error("--time must be a finite number of seconds 0.." + show(kMaxTime) +
                         ", got " + show(options.time));
  }
  if (options.out_path.empty()) return Status::error("--out must name a .png file");
  const std::string& out = options.out_path;
  std::string extension = out.size() >= 4 ? out.substr(out.size() - 4) : "";
  for (char& c : extension)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  if (extension != ".png") {
    return Status::error("--out must name a .png file, got '" + out + "'");
  }
  if (options.yaw && !std::isfinite(*options.yaw)) {
    return Status::error("--yaw must be a finite number of degrees, got " + show(*options.yaw));
  }
  if (options.pitch && !(std::isfinite(*options.pitch) && std::abs(*options.pitch) <= 89.0)) {
    return Status::error("--pitch must be a number of degrees -89..89, got " +
                         show(*options.pitch));
  }
  if (options.frames < 0 || options.frames > kMaxFrames) {
    return Status::error("--frames must be an integer 0.." + std::to_string(kMaxFrames) + ", got " +
                         std::to_string(options.frames));
  }
  if (!options.frame_report_path.empty() && options.frames == 0) {
    return Status::error("--frame-report needs --frames N with N > 0");
  }
  if (options.samples < 1 || options.samples > 32) {
    return Status::error("--samples must be an integer 1..32, got " +
                         std::to_string(options.samples));
  }
  return Status::ok();
}

}  // namespace

void addRenderOptions(CLI::App* command, RenderCommandOptions* options) {
  RunOptions& run = options->run;
  run.backend = "cpu";
  command->add_option("--time", options->time, "simulated seconds before the frame (0: initial)")
      ->required();
  command->add_option("--out", options->out_path, "output image (.png)")->required();
  command->add_option("--width", options->width, "image width, pixels")->capture_default_str();
  command->add_option("--height", options->height, "image height, pixels")->capture_default_str();
  command->add_flag("--springs", options->springs, "draw springs as lines coloured by strain");
  command->add_flag("--particles", options->particles, "draw particles as points");
  command->add_option("--yaw", options->yaw, "camera yaw around +y, degrees (default 35)");
  command->add_option("--pitch", options->pitch, "camera pitch above the horizon, degrees (18)");
  command->add_option("--samples", options->samples, "anti-aliasing samples per pixel")
      ->capture_default_str();
  command->add_option("--frames", options->frames,
                      "then run N timed frames of the app's loop (1/60 s each) and show the last");
  command->add_option("--frame-report", options->frame_report_path,
                      "write the per-frame times of --frames as JSON");
}

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One timed frame of the app's loop, milliseconds per phase.
struct FrameTimes {
  double advance = 0.0;  // the ticks due in 1/60 s, with their solves
  double write = 0.0;    // the visual state into the vertex buffer
  double draw = 0.0;     // the draw calls until the GPU finished them (glFinish)
  double total = 0.0;
  int solves = 0;
};

nlohmann::json phaseSummary(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  auto at = [&](double q) { return values[size_t(std::lround(q * double(values.size() - 1)))]; };
  double sum = 0.0;
  for (double v : values)
    sum += v;
  return {{"mean", sum / double(values.size())},
          {"median", at(0.5)},
          {"p95", at(0.95)},
          {"max", values.back()}};
}

nlohmann::json frameReportJson(const std::vector<FrameTimes>& frames) {
  std::vector<double> advance, write, draw, total, solving;
  for (const FrameTimes& f : frames) {
    advance.push_back(f.advance);
    write.push_back(f.write);
    draw.push_back(f.draw);
    total.push_back(f.total);
    if (f.solves > 0) solving.push_back(f.total);
  }
  nlohmann::json out = {{"frames", frames.size()},
                        {"frame_seconds", kFrameSeconds},
                        {"advance_ms", phaseSummary(advance)},
                        {"write_ms", phaseSummary(write)},
                        {"draw_ms", phaseSummary(draw)},
                        {"frame_ms", phaseSummary(total)},
                        {"frames_with_solve", solving.size()}};
  if (!solving.empty()) out["frame_with_solve_ms"] = phaseSummary(solving);
  return out;
}

}  // namespace

int renderCommand(const RenderCommandOptions& options) {
  // every input is checked before any output or context is created
  if (Status s = checkRenderOptions(options); !s) return badInput(s);
  Scene scene;
  if (Status s = buildScene(options.run.scene, &scene); !s) return badInput(s);
  RunOptions run = options.run;
  run.steps.reset();
  run.duration = options.time > 0.0 ? options.time : run.dt;
  RunPlan plan;
  if (Status s = planRun(run, scene, &plan); !s) {
    // planRun words the time as --duration; this command calls it --time
    std::string message = s.message();
    if (message.rfind("--duration", 0) == 0) message.replace(0, 10, "--time");
    return badInput(Status::error(message));
  }
  if (options.time == 0.0) plan.ticks = 0;
  BackendChoice choice;
  if (Status s = loadBackend(run.backend, scene.model, scene.state, &choice, plan.integrator); !s) {
    return badInput(s);
  }
  if (!choice.fallback_reason.empty()) {
    std::fprintf(stderr, "hooke: CUDA not used (%s); running on the CPU backend\n",
                 choice.fallback_reason.c_str());
  }
  choice.backend->setSettings(plan.settings);
  const std::string backend_name(choice.backend->name());
  AtomicFile file, frame_report;
  if (Status s = file.open(options.out_path); !s) return badInput(s);
  if (!options.frame_report_path.empty()) {
    if (Status s = frame_report.open(options.frame_report_path); !s) return badInput(s);
  }

  // the offscreen context, the renderer and the framebuffer: fail early, before simulating
  std::unique_ptr<EglContext> context;
  if (Status s = EglContext::create(false, &context); !s) return failed(s.message());
  Renderer renderer;
  OffscreenTarget target;
  if (Status s = renderer.init(); !s) return failed(s.message());
  if (Status s = target.resize(options.width, options.height, options.samples); !s) {
    return failed(s.message());
  }
  if (Status s = renderer.setScene(scene); !s) return failed(s.message());

  // simulate to the requested time
  // (with --backend auto, a device backend that fails mid-run hands its last good state to the
  // CPU backend, and the switch is told on stderr)
  Simulation sim(std::move(choice.backend), scene.model, scene.state, run.dt, plan.skip);
  if (run.backend == "auto" && backend_name != "cpu") sim.setFallback(cpuFallback(plan.settings));
  bool switch_told = false;
  auto tellSwitch = [&] {
    if (switch_told || !sim.backendSwitch()) return;
    switch_told = true;
    std::fprintf(stderr, "hooke: %s\n", describeSwitch(*sim.backendSwitch()).c_str());
  };
  auto backendFailed = [&] {
    return badInput(Status::error("the " + std::string(sim.backend().name()) +
                                  " backend failed: " + *sim.error()));
  };
  for (int64_t tick = 0; tick < plan.ticks && !sim.diverged() && !sim.error(); ++tick) {
    (void)sim.tick();
  }
  tellSwitch();
  if (sim.error()) return backendFailed();
  if (sim.diverged()) {
    return failed("the simulation diverged at t = " + show(*sim.divergedAt()) +
                  " s; nothing to render (try a smaller --dt or --integrator implicit)");
  }

  // the visual state (interpolated between solves, as the app shows it) written the way the app
  // writes it (CUDA–GL interop for a CUDA backend), framed and drawn
  std::string why_host;
  std::unique_ptr<VisualWriter> writer = makeVisualWriter(sim.backend(), &renderer, &why_host);
  const Backend* written_backend = &sim.backend();
  if (!why_host.empty())
    std::fprintf(stderr, "hooke render: interop not used: %s\n", why_host.c_str());
  if (plan.ticks > 0) {
    if (Status s = writer->write(sim.backend(), sim.alpha(), &renderer); !s) {
      return failed(s.message());
    }
  }
  OrbitCamera camera;
  if (options.yaw) camera.yaw_degrees = float(*options.yaw);
  if (options.pitch) camera.pitch_degrees = float(*options.pitch);
  const float aspect = float(options.width) / float(options.height);
  camera.frame(renderer.bounds(), aspect);
  DrawOptions draw;
  draw.springs = options.springs;
  draw.particles = options.particles;
  target.bind();
  if (Status s = renderer.draw(camera, options.width, options.height, draw); !s) {
    return failed(s.message());
  }

  // the app's loop, timed: ticks due in 1/60 s (DESIGN.md "One frame"), visual write, draw
  std::vector<FrameTimes> frames;
  frames.reserve(size_t(options.frames));
  double due = 0.0;
  for (int frame = 0; frame < options.frames; ++frame) {
    FrameTimes t;
    const auto start = Clock::now();
    due += kFrameSeconds;
    for (; due >= run.dt && !sim.diverged() && !sim.error(); due -= run.dt) {
      if (sim.tick()) ++t.solves;
    }
    t.advance = msSince(start);
    tellSwitch();
    if (sim.error()) return backendFailed();
    if (sim.diverged()) {
      return failed("the simulation diverged at t = " + show(*sim.divergedAt()) + " s");
    }
    auto phase = Clock::now();
    if (&sim.backend() != written_backend) {  // a fallback: the CPU backend's writer
      writer = makeVisualWriter(sim.backend(), &renderer, &why_host);
      written_backend = &sim.backend();
    }
    if (Status s = writer->write(sim.backend(), sim.alpha(), &renderer); !s) {
      return failed(s.message());
    }
    t.write = msSince(phase);
    phase = Clock::now();
    if (Status s = renderer.draw(camera, options.width, options.height, draw); !s) {
      return failed(s.message());
    }
    if (Status s = target.finish(); !s) return failed(s.message());
    t.draw = msSince(phase);
    t.total = msSince(start);
    frames.push_back(t);
  }
  Image image;
  if (Status s = target.read(&image); !s) return failed(s.message());

  // the PNG, whole or not at all
  std::string png;
  if (Status s = encodePng(image, &png); !s) return failed(s.message());
  file.stream().write(png.data(), std::streamsize(png.size()));
  if (Status s = file.commit(); !s) return failed(s.message());

  if (!frames.empty()) {
    nlohmann::json report = frameReportJson(frames);
    if (frame_report.isOpen()) {
      report["scene"] = scene.name;
      report["particles"] = scene.model.particleCount();
      report["springs"] = scene.model.springCount();
      report["backend"] = backend_name;
      report["integrator"] = run.integrator;
      report["visual_path"] = std::string(writer->name());
      report["dt"] = run.dt;
      report["skip"] = plan.skip;
      report["width"] = options.width;
      report["height"] = options.height;
      report["gl"] = context->description();
      frame_report.stream() << report.dump(2) << "\n";
      if (Status s = frame_report.commit(); !s) return failed(s.message());
    }
    std::printf(
        "hooke render: %zu frames: frame %.3g ms median, %.3g ms p95, %.3g ms max "
        "(advance %.3g, write %.3g, draw %.3g ms median)\n",
        frames.size(), double(report["frame_ms"]["median"]), double(report["frame_ms"]["p95"]),
        double(report["frame_ms"]["max"]), double(report["advance_ms"]["median"]),
        double(report["write_ms"]["median"]), double(report["draw_ms"]["median"]));
  }

  const double simulated = double(sim.scheduler().ticks()) * run.dt;
  std::printf(
      "hooke render: %s (%zu particles, %zu springs) at t = %.4g s (%s on %s) -> %s "
      "(%dx%d, %d samples, %s; %s)\n",
      scene.name.c_str(), scene.model.particleCount(), scene.model.springCount(), simulated,
      run.integrator.c_str(), backend_name.c_str(), options.out_path.c_str(), options.width,
      options.height, target.samples(), std::string(writer->name()).c_str(),
      context->description().c_str());
  return 0;
}

}  // namespace hooke
