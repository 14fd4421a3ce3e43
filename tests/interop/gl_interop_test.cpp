// Tests of cuda/'s CUDA–GL interop writer on a real EGL context: the buffer it fills equals the
// CPU path (positions, normals, the rendered image). Skipped, with the reason, where there is no
// CUDA device, no EGL display, or the GL context is not on an NVIDIA GPU; never writes outside
// the build folder (or $HOOKE_TEST_OUTPUT_DIR).
#include "cuda/gl_interop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "gl/gl_test_support.h"
#include "render/mesh_normals.h"

namespace hooke {
namespace {

using testing::differenceMask;
using testing::renderImage;

constexpr double kDt = 0.01;  // skip 2: h = 0.03, alpha = 1/3, 2/3, 1
constexpr int kSkip = 2;
constexpr float kPositionTolerance = 1e-6f;  // m; the kernels round as the host does, so 0
constexpr float kNormalTolerance = 1e-5f;

GlVertexTarget targetOf(const VertexBufferLayout& layout) {
  return GlVertexTarget{layout.buffer,        layout.vertex_count, layout.position_offset,
                        layout.normal_offset, layout.stride,       layout.size_bytes};
}

// The GL buffer's two blocks, read back with glGetNamedBufferSubData.
void readBack(const VertexBufferLayout& layout, std::vector<glm::vec3>* positions,
              std::vector<glm::vec3>* normals) {
  std::vector<char> bytes(layout.size_bytes);
  glGetNamedBufferSubData(layout.buffer, 0, GLsizeiptr(bytes.size()), bytes.data());
  positions->resize(layout.vertex_count);
  normals->resize(layout.vertex_count);
  for (size_t i = 0; i < layout.vertex_count; ++i) {
    std::memcpy(&(*positions)[i], bytes.data() + layout.position_offset + layout.stride * i, 12);
    std::memcpy(&(*normals)[i], bytes.data() + layout.normal_offset + layout.stride * i, 12);
  }
}

// max over i and components of |a_i − b_i|; infinity when sizes differ or a value is not finite
float maxDifference(const std::vector<glm::vec3>& a, const std::vector<glm::vec3>& b) {
  if (a.size() != b.size()) return INFINITY;
  float worst = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const float d = std::fabs(a[i][c] - b[i][c]);
      worst = std::isfinite(d) ? std::max(worst, d) : INFINITY;
    }
  }
  return worst;
}

size_t bitIdentical(const std::vector<glm::vec3>& a, const std::vector<glm::vec3>& b) {
  size_t same = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    same += std::memcmp(&a[i], &b[i], sizeof(glm::vec3)) == 0;
  return same;
}

// PNGs for people to look at: $HOOKE_TEST_OUTPUT_DIR, else the build's gl-output folder
void save(const Image& image, const std::string& name) {
  const char* env = std::getenv("HOOKE_TEST_OUTPUT_DIR");
  const std::string dir = env && *env ? env : HOOKE_GL_TEST_OUTPUT_DIR;
  std::filesystem::create_directories(dir);
  std::string png;
  if (encodePng(image, &png)) std::ofstream(dir + "/" + name, std::ios::binary) << png;
}

// A CUDA backend and a GL context on the same NVIDIA GPU, or a skip saying which is missing.
class InteropTest : public testing::GlTest {
 protected:
  void SetUp() override {
    std::string why;
    CudaOptions options;
    options.float4_layout = float4_layout_;
    backend_ = createCudaBackend(options, &why);
    if (!backend_) GTEST_SKIP() << "no usable CUDA device: " << why;
    testing::GlTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const char* vendor = reinterpret_cast<const char*>(glGetString(GL_VENDOR));
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    const std::string description =
        std::string(vendor ? vendor : "?") + " / " + (renderer ? renderer : "?");
    if (std::string(vendor ? vendor : "").find("NVIDIA") == std::string::npos) {
      GTEST_SKIP() << "the EGL context runs on " << description
                   << ", not on an NVIDIA GPU: CUDA–GL interop needs both on the CUDA device";
    }
    static bool printed = false;
    if (!printed) std::printf("[ interop  ] GL: %s\n", description.c_str());
    printed = true;
  }

  bool float4_layout_ = true;
  std::unique_ptr<Backend> backend_;
};

struct Case {
  const char* scene;
  int res;
  bool float4_layout;
};

class InteropParity : public InteropTest, public ::testing::WithParamInterface<Case> {
 protected:
  void SetUp() override {
    float4_layout_ = GetParam().float4_layout;
    InteropTest::SetUp();
  }
};

// Every tick of a simulation (alpha = 1/3, 2/3, 1 across solves): the interop-filled buffer holds
// exactly Backend::writeVisual's positions and computeVertexNormals' normals of them.
TEST_P(InteropParity, BufferEqualsWriteVisualAndHostNormalsAtEveryTick) {
  const Case c = GetParam();
  Scene scene;
  ASSERT_TRUE(makeBuiltinScene(c.scene, c.res, Material{}, &scene).isOk());
  ASSERT_TRUE(backend_->load(scene.model, scene.state).isOk());
  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  ASSERT_TRUE(renderer.setScene(scene).isOk());
  const VertexBufferLayout layout = renderer.vertexBuffer();

  GlInteropWriter writer;
  Status attached = writer.attach(targetOf(layout), scene.triangles, 0);
  ASSERT_TRUE(attached.isOk()) << attached.message();

  Simulation sim(std::move(backend_), scene.model, scene.state, kDt, kSkip);
  const size_t n = scene.model.particleCount();
  std::vector<glm::vec3> expected(n), expected_normals(n), positions, normals;
  float worst_position = 0.0f, worst_normal = 0.0f;
  size_t identical = 0, compared = 0;
  for (int tick = 0; tick < 9; ++tick) {
    (void)sim.tick();
    ASSERT_FALSE(sim.error().has_value()) << *sim.error();
    Status written = writer.write(sim.backend(), sim.alpha());
    ASSERT_TRUE(written.isOk()) << written.message();
    renderer.positionsWritten();
    readBack(layout, &positions, &normals);

    sim.backend().writeVisual(sim.alpha(), expected);
    computeVertexNormals(expected, scene.triangles, expected_normals);
    const float dp = maxDifference(positions, expected),
                dn = maxDifference(normals, expected_normals);
    EXPECT_LE(dp, kPositionTolerance) << "tick " << tick << " alpha " << sim.alpha();
    EXPECT_LE(dn, kNormalTolerance) << "tick " << tick << " alpha " << sim.alpha();
    worst_position = std::max(worst_position, dp);
    worst_normal = std::max(worst_normal, dn);
    identical += bitIdentical(positions, expected) + bitIdentical(normals, expected_normals);
    compared += 2 * n;
  }
  // the state moved, so the comparison was not of two copies of the rest shape
  EXPECT_GT(maxDifference(positions, scene.state.x), 1e-4f);
  std::printf(
      "[ interop  ] %s %d %s: max |Δposition| %.3g m, max |Δnormal| %.3g, %zu of %zu "
      "vectors bit-identical\n",
      c.scene, c.res, c.float4_layout ? "float4" : "float3", worst_position, worst_normal,
      identical, compared);
  EXPECT_TRUE(checkGl("after the interop writes").isOk());
}

INSTANTIATE_TEST_SUITE_P(Scenes, InteropParity,
                         ::testing::Values(Case{"cloth", 32, true}, Case{"cloth", 33, false},
                                           Case{"volume", 8, true}, Case{"spring1d", 0, true}),
                         [](const auto& info) {
                           return std::string(info.param.scene) + std::to_string(info.param.res) +
                                  (info.param.float4_layout ? "_float4" : "_float3");
                         });

// The same frame drawn from the CPU upload and from the interop write gives the same picture,
// and one unlike the rest shape's (so the interop write really replaced the buffer).
TEST_F(InteropTest, RendersTheSameImageAsTheCpuPath) {
  const Scene scene = makeCloth(48, Material{});
  ASSERT_TRUE(backend_->load(scene.model, scene.state).isOk());
  Simulation sim(std::move(backend_), scene.model, scene.state, kDt, kSkip);
  for (int tick = 0; tick < 50; ++tick)
    (void)sim.tick();
  ASSERT_FALSE(sim.error().has_value()) << *sim.error();
  std::vector<glm::vec3> host(scene.model.particleCount());
  sim.backend().writeVisual(sim.alpha(), host);

  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  ASSERT_TRUE(renderer.setScene(scene).isOk());
  constexpr int kWidth = 320, kHeight = 240;
  OrbitCamera camera;
  renderer.setPositions(host);
  camera.frame(renderer.bounds(), float(kWidth) / float(kHeight));

  Image rest, interop, cpu;
  renderer.setPositions(scene.state.x);
  renderImage(renderer, camera, kWidth, kHeight, DrawOptions{}, &rest);

  GlInteropWriter writer;
  Status attached = writer.attach(targetOf(renderer.vertexBuffer()), scene.triangles, 0);
  ASSERT_TRUE(attached.isOk()) << attached.message();
  Status written = writer.write(sim.backend(), sim.alpha());
  ASSERT_TRUE(written.isOk()) << written.message();
  renderer.positionsWritten();
  renderImage(renderer, camera, kWidth, kHeight, DrawOptions{}, &interop);

  renderer.setPositions(host);
  renderImage(renderer, camera, kWidth, kHeight, DrawOptions{}, &cpu);
  save(interop, "interop-cloth.png");
  save(cpu, "interop-cloth-cpu.png");

  int worst = 0;
  for (size_t k = 0; k < cpu.rgba.size(); ++k)
    worst = std::max(worst, std::abs(int(cpu.rgba[k]) - int(interop.rgba[k])));
  const std::vector<uint8_t> differ = differenceMask(cpu, interop, 2);
  const double differing = testing::coverage(differ, kWidth, 0, 0, kWidth, kHeight);
  const double moved =
      testing::coverage(differenceMask(rest, interop), kWidth, 0, 0, kWidth, kHeight);
  std::printf(
      "[ interop  ] image: %.4f%% of pixels differ by more than 2 levels (max %d); "
      "%.1f%% differ from the rest shape\n",
      100.0 * differing, worst, 100.0 * moved);
  EXPECT_LT(differing, 1e-3);
  EXPECT_GT(moved, 0.01);
}

// Many frames in a row, a new scene (the renderer reallocates its buffer: detach, attach again)
// and the timing fields.
TEST_F(InteropTest, KeepsWorkingAcrossFramesAndANewSceneBuffer) {
  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  GlInteropWriter writer;
  for (int res : {20, 40}) {
    const Scene scene = makeCloth(res, Material{});
    ASSERT_TRUE(backend_->load(scene.model, scene.state).isOk());
    writer.detach();  // before setScene deletes the registered buffer
    ASSERT_TRUE(renderer.setScene(scene).isOk());
    Status attached = writer.attach(targetOf(renderer.vertexBuffer()), scene.triangles, 0);
    ASSERT_TRUE(attached.isOk()) << attached.message();
    EXPECT_TRUE(writer.attached());
    StepStats stats;
    std::vector<glm::vec3> expected(scene.model.particleCount()), positions, normals;
    for (int frame = 0; frame < 60; ++frame) {
      if (frame % 3 == 0) ASSERT_TRUE(backend_->step(0.03f, {}, &stats).isOk());
      const float alpha = float(frame % 3 + 1) / 3.0f;
      InteropTiming timing;
      Status written = writer.write(*backend_, alpha, frame % 10 == 0 ? &timing : nullptr);
      ASSERT_TRUE(written.isOk()) << written.message();
      if (frame % 10 == 0) {
        EXPECT_GE(timing.gpu_map_ms, 0.0);
        EXPECT_GE(timing.gpu_write_ms, 0.0);
        EXPECT_GE(timing.gpu_unmap_ms, 0.0);
        EXPECT_GE(timing.gpu_total_ms + 1e-3, timing.gpu_write_ms);
      }
    }
    readBack(renderer.vertexBuffer(), &positions, &normals);
    backend_->writeVisual(1.0f, expected);
    EXPECT_LE(maxDifference(positions, expected), kPositionTolerance) << "cloth " << res;
  }
  writer.detach();
  EXPECT_FALSE(writer.attached());
  EXPECT_TRUE(checkGl("after re-attaching").isOk());
}

// Misuse is a Status naming the problem, and leaves the buffer unmapped (the next write works).
TEST_F(InteropTest, WrongBackendOrCountIsAStatus) {
  const Scene scene = makeCloth(16, Material{});
  ASSERT_TRUE(backend_->load(scene.model, scene.state).isOk());
  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  ASSERT_TRUE(renderer.setScene(scene).isOk());
  GlInteropWriter writer;
  ASSERT_TRUE(writer.attach(targetOf(renderer.vertexBuffer()), scene.triangles, 0).isOk());

  CpuBackend cpu;
  ASSERT_TRUE(cpu.load(scene.model, scene.state).isOk());
  Status wrong = writer.write(cpu, 1.0f);
  EXPECT_FALSE(wrong.isOk());
  EXPECT_NE(wrong.message().find("CUDA backend"), std::string::npos) << wrong.message();

  const Scene other = makeCloth(17, Material{});
  ASSERT_TRUE(backend_->load(other.model, other.state).isOk());
  Status count = writer.write(*backend_, 1.0f);
  EXPECT_FALSE(count.isOk());
  EXPECT_NE(count.message().find("particles"), std::string::npos) << count.message();

  ASSERT_TRUE(backend_->load(scene.model, scene.state).isOk());
  Status fine = writer.write(*backend_, 1.0f);
  EXPECT_TRUE(fine.isOk()) << fine.message();
}

// Malformed targets fail before any CUDA or GL call, so these run everywhere.
TEST(InteropTarget, MalformedTargetsAreRefusedWithAReason) {
  GlInteropWriter writer;
  const std::vector<glm::uvec3> triangles = {{0, 1, 2}};
  struct Bad {
    GlVertexTarget target;
    std::vector<glm::uvec3> triangles;
    const char* says;
  };
  for (const Bad& bad : {
           Bad{GlVertexTarget{0, 3, 0, 36, 12, 72}, triangles, "name 0"},
           Bad{GlVertexTarget{1, 0, 0, 0, 12, 72}, triangles, "no vertices"},
           Bad{GlVertexTarget{1, 3, 0, 36, 12, 71}, triangles, "do not fit"},
           Bad{GlVertexTarget{1, 3, 0, 24, 12, 72}, triangles, "overlap"},
           Bad{GlVertexTarget{1, 3, 0, 36, 8, 72}, triangles, "stride"},
           Bad{GlVertexTarget{1, 3, 0, 36, 12, 72}, {{0, 1, 3}}, "triangle 0"},
       }) {
    Status s = writer.attach(bad.target, bad.triangles, 0);
    EXPECT_FALSE(s.isOk()) << bad.says;
    EXPECT_NE(s.message().find(bad.says), std::string::npos) << s.message();
    EXPECT_FALSE(writer.attached());
  }
  Status early = writer.write(CpuBackend(), 0.5f);
  EXPECT_FALSE(early.isOk());
  EXPECT_NE(early.message().find("before attach"), std::string::npos) << early.message();
}

}  // namespace
}  // namespace hooke
