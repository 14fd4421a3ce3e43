// Shared by the gl tests: one EGL context per test process (tests skip, with the reason, where none
// can be made), scene building and simulating, and pixel measures. Writes only under the build dir.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "io/scene_file.h"
#include "render/egl_context.h"
#include "render/gl_debug.h"
#include "render/image.h"
#include "render/offscreen_target.h"
#include "render/orbit_camera.h"
#include "render/renderer.h"
#include "sim/cpu_backend.h"
#include "sim/scenes.h"
#include "sim/simulation.h"

namespace hooke::testing {

// The process's EGL context, made on first use; null (with the reason) where EGL is unavailable.
inline EglContext* sharedContext(std::string* why) {
  static std::unique_ptr<EglContext> context;
  static std::string reason;
  static bool tried = false;
  if (!tried) {
    tried = true;
    if (Status s = EglContext::create(true, &context); !s) reason = s.message();
  }
  *why = reason;
  return context.get();
}

// A test that needs GL: skips when no EGL display can be created.
class GlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    EglContext* context = sharedContext(&why);
    if (context == nullptr) GTEST_SKIP() << why;
    ASSERT_TRUE(context->makeCurrent().isOk());
    (void)checkGl("before the test");  // drop anything a previous test left behind
  }
};

// A built-in scene by name, or an asset file (a name with a dot).
inline Scene loadScene(const std::string& name) {
  Scene scene;
  Status s = name.find('.') == std::string::npos
                 ? makeBuiltinScene(name, 0, Material{}, &scene)
                 : loadSceneFile(std::string(HOOKE_ASSETS_DIR) + "/" + name, Material{}, &scene);
  EXPECT_TRUE(s.isOk()) << s.message();
  return scene;
}

// The visual positions after simulating `seconds` with the CPU backend (implicit, dt 0.01).
inline std::vector<glm::vec3> simulate(const Scene& scene, double seconds) {
  auto backend = std::make_unique<CpuBackend>();
  EXPECT_TRUE(backend->load(scene.model, scene.state).isOk());
  Simulation sim(std::move(backend), scene.model, scene.state, 0.01, 2);
  for (int tick = 0; tick < int(seconds / 0.01 + 0.5); ++tick)
    (void)sim.tick();
  std::vector<glm::vec3> positions(scene.model.particleCount());
  sim.backend().writeVisual(sim.alpha(), positions);
  return positions;
}

// Renders the renderer's scene through an offscreen target; checks every GL step.
inline void renderImage(Renderer& renderer, const OrbitCamera& camera, int width, int height,
                        const DrawOptions& options, Image* out) {
  OffscreenTarget target;
  ASSERT_TRUE(target.resize(width, height, 4).isOk());
  target.bind();
  Status drawn = renderer.draw(camera, width, height, options);
  ASSERT_TRUE(drawn.isOk()) << drawn.message();
  Status read = target.read(out);
  ASSERT_TRUE(read.isOk()) << read.message();
  Status clean = checkGl("after rendering");
  ASSERT_TRUE(clean.isOk()) << clean.message();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

// Pixels where two images differ by more than `threshold` in some channel (1 = differs).
inline std::vector<uint8_t> differenceMask(const Image& a, const Image& b, int threshold = 12) {
  std::vector<uint8_t> mask(size_t(a.width) * size_t(a.height), 0);
  for (int y = 0; y < a.height; ++y) {
    for (int x = 0; x < a.width; ++x) {
      const uint8_t* p = a.pixel(x, y);
      const uint8_t* q = b.pixel(x, y);
      for (int c = 0; c < 3; ++c) {
        if (std::abs(int(p[c]) - int(q[c])) > threshold) mask[size_t(y) * a.width + x] = 1;
      }
    }
  }
  return mask;
}

// Fraction of set pixels of a mask inside [x0, x1) x [y0, y1).
inline double coverage(const std::vector<uint8_t>& mask, int width, int x0, int y0, int x1,
                       int y1) {
  size_t set = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x)
      set += mask[size_t(y) * width + x];
  }
  return double(set) / double(std::max(1, (x1 - x0) * (y1 - y0)));
}

// Writes a PNG under the build's gl-output folder (for people and CI artefacts to look at).
inline void saveForInspection(const Image& image, const std::string& name) {
  std::filesystem::create_directories(HOOKE_GL_TEST_OUTPUT_DIR);
  std::string png;
  ASSERT_TRUE(encodePng(image, &png).isOk());
  std::ofstream(std::string(HOOKE_GL_TEST_OUTPUT_DIR) + "/" + name, std::ios::binary) << png;
}

}  // namespace hooke::testing
