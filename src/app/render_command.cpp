// `hooke render`: checks every input, simulates with hooke::Simulation, renders one frame through
// an offscreen EGL context and writes it as a PNG atomically. No window, no display server.
#include "app/render_command.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include "app/backend_factory.h"
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
}

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
  AtomicFile file;
  if (Status s = file.open(options.out_path); !s) return badInput(s);

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
  Simulation sim(std::move(choice.backend), scene.model, scene.state, run.dt, plan.skip);
  for (int64_t tick = 0; tick < plan.ticks && !sim.diverged() && !sim.error(); ++tick) {
    (void)sim.tick();
  }
  if (sim.error()) return failed("the " + backend_name + " backend failed: " + *sim.error());
  if (sim.diverged()) {
    return failed("the simulation diverged at t = " + show(*sim.divergedAt()) +
                  " s; nothing to render (try a smaller --dt or --integrator implicit)");
  }

  // the visual state (interpolated between solves, as the app shows it), framed and drawn
  std::vector<glm::vec3> positions(scene.model.particleCount());
  if (plan.ticks > 0) {
    sim.backend().writeVisual(sim.alpha(), positions);
  } else {
    positions = scene.state.x;
  }
  renderer.setPositions(positions);
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
  Image image;
  if (Status s = target.read(&image); !s) return failed(s.message());

  // the PNG, whole or not at all
  std::string png;
  if (Status s = encodePng(image, &png); !s) return failed(s.message());
  file.stream().write(png.data(), std::streamsize(png.size()));
  if (Status s = file.commit(); !s) return failed(s.message());

  const double simulated = double(sim.scheduler().ticks()) * run.dt;
  std::printf(
      "hooke render: %s (%zu particles, %zu springs) at t = %.4g s (%s on %s) -> %s "
      "(%dx%d, %d samples; %s)\n",
      scene.name.c_str(), scene.model.particleCount(), scene.model.springCount(), simulated,
      run.integrator.c_str(), backend_name.c_str(), options.out_path.c_str(), options.width,
      options.height, target.samples(), context->description().c_str());
  return 0;
}

}  // namespace hooke
