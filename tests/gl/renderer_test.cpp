// Tests of render/ on a real GL context (Mesa llvmpipe through EGL in CI): content, framing,
// overlays, both cloth sides, the vertex buffer layout. Skipped where no EGL display exists.
#include <gtest/gtest.h>

#include <cmath>

#include "gl/gl_test_support.h"
#include "render/mesh_normals.h"
#include "render/shader_sources.h"

namespace hooke {
namespace {

using testing::coverage;
using testing::differenceMask;
using testing::GlTest;
using testing::loadScene;
using testing::renderImage;
using testing::saveForInspection;
using testing::simulate;

constexpr int kWidth = 320;
constexpr int kHeight = 240;

// the body alone: the scene minus an identical frame without it, ground and shadow off
std::vector<uint8_t> bodyMask(Renderer& renderer, const OrbitCamera& camera, int width, int height,
                              DrawOptions options = {}) {
  options.ground = false;
  options.shadow = false;
  Image with_body, without_body;
  options.body = true;
  renderImage(renderer, camera, width, height, options, &with_body);
  options.body = false;
  options.springs = options.particles = false;
  renderImage(renderer, camera, width, height, options, &without_body);
  return differenceMask(with_body, without_body);
}

// true when no set pixel lies within `margin` pixels of the image's edge
bool clearOfBorder(const std::vector<uint8_t>& mask, int width, int height, int margin) {
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const bool near_edge =
          x < margin || y < margin || x >= width - margin || y >= height - margin;
      if (near_edge && mask[size_t(y) * width + x]) return false;
    }
  }
  return true;
}

class SceneRender : public GlTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(SceneRender, DrawsTheBodyInTheMiddleOfTheFrame) {
  const std::string name = GetParam();
  Scene scene = loadScene(name);
  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  ASSERT_TRUE(renderer.setScene(scene).isOk());
  renderer.setPositions(simulate(scene, 0.5));
  OrbitCamera camera;
  camera.frame(renderer.bounds(), float(kWidth) / float(kHeight));

  // the full picture, kept for people to look at
  Image full;
  renderImage(renderer, camera, kWidth, kHeight, DrawOptions{}, &full);
  saveForInspection(full, "scene-" + name.substr(0, name.find('.')) + ".png");

  // the body covers a plausible share of the frame, and the middle third holds some of it
  std::vector<uint8_t> mask = bodyMask(renderer, camera, kWidth, kHeight);
  const double whole = coverage(mask, kWidth, 0, 0, kWidth, kHeight);
  EXPECT_GT(whole, 0.02) << name;
  EXPECT_LT(whole, 0.85) << name;
  EXPECT_GT(coverage(mask, kWidth, kWidth / 3, kHeight / 3, 2 * kWidth / 3, 2 * kHeight / 3), 0.05)
      << name;

  // the frame is not one flat colour behind the body either: background, ground, body
  const uint8_t* corner = full.pixel(0, 0);
  const uint8_t* bottom = full.pixel(kWidth / 2, kHeight - 1);
  EXPECT_NE(std::vector<uint8_t>(corner, corner + 3), std::vector<uint8_t>(bottom, bottom + 3));
}

TEST_P(SceneRender, ResetViewFramesTheSceneAtAnyAspectAndAfterAnyOrbit) {
  const std::string name = GetParam();
  Scene scene = loadScene(name);
  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  ASSERT_TRUE(renderer.setScene(scene).isOk());
  renderer.setPositions(simulate(scene, 0.3));

  struct View {
    int width, height;
    float yaw, pitch;
  };
  for (const View& view :
       {View{kWidth, kHeight, OrbitCamera::kDefaultYawDegrees, OrbitCamera::kDefaultPitchDegrees},
        View{kHeight, kWidth, 120.0f, 40.0f}, View{kWidth, kHeight, -70.0f, -20.0f}}) {
    SCOPED_TRACE(name + " " + std::to_string(view.width) + "x" + std::to_string(view.height) +
                 " yaw " + std::to_string(view.yaw));
    // wander off first: far away, aimed elsewhere
    OrbitCamera camera;
    camera.yaw_degrees = view.yaw;
    camera.pitch_degrees = view.pitch;
    camera.zoom(25.0f);
    camera.target += glm::vec3(7.0f, -3.0f, 2.0f);
    camera.frame(renderer.bounds(), float(view.width) / float(view.height));

    std::vector<uint8_t> mask = bodyMask(renderer, camera, view.width, view.height);
    EXPECT_TRUE(clearOfBorder(mask, view.width, view.height, 2));
    EXPECT_GT(coverage(mask, view.width, 0, 0, view.width, view.height), 0.02);
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, SceneRender,
                         ::testing::Values("cloth", "volume", "spring1d", "torus.node"),
                         [](const auto& info) {
                           std::string n = info.param;
                           return n.substr(0, n.find('.'));
                         });

TEST_F(GlTest, ClothShowsDifferentColoursOnItsTwoSides) {
  Scene scene = loadScene("cloth");  // horizontal at the start, front face up
  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  ASSERT_TRUE(renderer.setScene(scene).isOk());
  EXPECT_EQ(renderer.mode(), "surface");

  // the middle pixel seen from above and from below
  auto middle = [&](float pitch) {
    OrbitCamera camera;
    camera.pitch_degrees = pitch;
    camera.frame(renderer.bounds(), float(kWidth) / float(kHeight));
    DrawOptions options;
    options.ground = false;
    Image image;
    renderImage(renderer, camera, kWidth, kHeight, options, &image);
    saveForInspection(image, pitch > 0 ? "cloth-front.png" : "cloth-back.png");
    const uint8_t* p = image.pixel(kWidth / 2, kHeight / 2);
    return glm::ivec3(p[0], p[1], p[2]);
  };
  const glm::ivec3 above = middle(60.0f), below = middle(-60.0f);
  // the front is a red-orange, the back a pale yellow: relative to red, the back has much more
  // green (whatever the light on each side)
  EXPECT_LT(float(above.g) / float(above.r), 0.6f) << above.r << " " << above.g;
  EXPECT_GT(float(below.g) / float(below.r), 0.75f) << below.r << " " << below.g;
}

TEST_F(GlTest, OverlaysDrawSpringsAndParticles) {
  Scene scene = loadScene("cloth");
  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  ASSERT_TRUE(renderer.setScene(scene).isOk());
  renderer.setPositions(simulate(scene, 0.3));
  OrbitCamera camera;
  camera.frame(renderer.bounds(), float(kWidth) / float(kHeight));

  Image plain, springs, particles;
  DrawOptions options;
  renderImage(renderer, camera, kWidth, kHeight, options, &plain);
  options.springs = true;
  renderImage(renderer, camera, kWidth, kHeight, options, &springs);
  saveForInspection(springs, "overlay-springs.png");
  options.springs = false;
  options.particles = true;
  renderImage(renderer, camera, kWidth, kHeight, options, &particles);
  EXPECT_GT(coverage(differenceMask(plain, springs), kWidth, 0, 0, kWidth, kHeight), 0.01);
  EXPECT_GT(coverage(differenceMask(plain, particles), kWidth, 0, 0, kWidth, kHeight), 0.005);
}

TEST_F(GlTest, SceneWithoutTrianglesOrFigureDrawsAsSpringsAndParticles) {
  // a 9 x 9 cloth's particles and springs, without its triangles: too many for a figure
  Scene scene = makeCloth(9, Material{});
  scene.triangles.clear();
  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  ASSERT_TRUE(renderer.setScene(scene).isOk());
  EXPECT_EQ(renderer.mode(), "springs");
  OrbitCamera camera;
  camera.pitch_degrees = 50.0f;
  camera.frame(renderer.bounds(), float(kWidth) / float(kHeight));
  std::vector<uint8_t> mask = bodyMask(renderer, camera, kWidth, kHeight);
  EXPECT_GT(coverage(mask, kWidth, 0, 0, kWidth, kHeight), 0.01);
}

TEST_F(GlTest, VertexBufferHoldsPositionsThenNormalsAsDocumented) {
  Scene scene = loadScene("cloth");
  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  ASSERT_TRUE(renderer.setScene(scene).isOk());
  const VertexBufferLayout layout = renderer.vertexBuffer();
  const size_t n = scene.model.particleCount();
  ASSERT_NE(layout.buffer, 0u);
  EXPECT_EQ(layout.vertex_count, n);
  EXPECT_EQ(layout.stride, 12u);
  EXPECT_EQ(layout.position_offset, 0u);
  EXPECT_EQ(layout.normal_offset, 12 * n);
  EXPECT_EQ(layout.size_bytes, 24 * n);

  // the CPU path put the positions and the flat sheet's up normals there
  std::vector<glm::vec3> positions(n), normals(n);
  glGetNamedBufferSubData(layout.buffer, GLintptr(layout.position_offset), GLsizeiptr(12 * n),
                          positions.data());
  glGetNamedBufferSubData(layout.buffer, GLintptr(layout.normal_offset), GLsizeiptr(12 * n),
                          normals.data());
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(positions[i], scene.state.x[i]);
    EXPECT_NEAR(normals[i].y, 1.0f, 1e-5f);
  }

  // another writer (as CUDA interop will) fills the buffer; the renderer picks it up
  for (glm::vec3& p : positions)
    p += glm::vec3(0.0f, -1.5f, 0.0f);
  glNamedBufferSubData(layout.buffer, GLintptr(layout.position_offset), GLsizeiptr(12 * n),
                       positions.data());
  renderer.positionsWritten();
  EXPECT_NEAR(renderer.bounds().max.y, 0.5f, 1e-5f);
  EXPECT_TRUE(checkGl("external write").isOk());
}

TEST_F(GlTest, Spring1dDrawsAsAFigureWithItsBallBelowTheAnchor) {
  Scene scene = loadScene("spring1d");
  Renderer renderer;
  ASSERT_TRUE(renderer.init().isOk());
  ASSERT_TRUE(renderer.setScene(scene).isOk());
  EXPECT_EQ(renderer.mode(), "figure");

  // seen from the side, the lower half of the body's pixels hold the ball (red) and the upper
  // half the anchor and coil (grey)
  OrbitCamera camera;
  camera.pitch_degrees = 0.0f;
  camera.frame(renderer.bounds(), float(kWidth) / float(kHeight));
  DrawOptions options;
  options.ground = false;
  Image image;
  renderImage(renderer, camera, kWidth, kHeight, options, &image);
  saveForInspection(image, "spring1d-side.png");
  int red_low = 0, red_high = 0;
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      const uint8_t* p = image.pixel(x, y);
      if (p[0] > 120 && p[0] > p[1] + 60 && p[0] > p[2] + 60)
        (y > kHeight / 2 ? red_low : red_high)++;
    }
  }
  EXPECT_GT(red_low, 200);
  EXPECT_EQ(red_high, 0);
}

TEST_F(GlTest, BadSceneAndUnusedRendererAreStatusesNotCrashes) {
  Renderer renderer;
  Scene scene = loadScene("spring1d");
  EXPECT_FALSE(renderer.setScene(scene).isOk());  // before init
  ASSERT_TRUE(renderer.init().isOk());
  OrbitCamera camera;
  EXPECT_FALSE(renderer.draw(camera, kWidth, kHeight, DrawOptions{}).isOk());  // no scene yet
  scene.triangles.push_back({0, 1, 7});
  EXPECT_FALSE(renderer.setScene(scene).isOk());
  OffscreenTarget target;
  EXPECT_FALSE(target.resize(1 << 20, 16, 1).isOk());
  EXPECT_TRUE(checkGl("after the refusals").isOk());
}

// pure parts of render/, checked here beside their GL users

TEST(MeshNormals, FollowTheWindingAndFallBackForLooseVertices) {
  std::vector<glm::vec3> x = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}, {5, 5, 5}};
  std::vector<glm::uvec3> triangles = {{0, 1, 2}};
  std::vector<glm::vec3> normals(x.size());
  computeVertexNormals(x, triangles, normals);
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(glm::distance(normals[i], glm::vec3(0, 1, 0)), 0.0f, 1e-6f);
  EXPECT_EQ(normals[3], glm::vec3(0, 1, 0));
  triangles[0] = {0, 2, 1};
  computeVertexNormals(x, triangles, normals);
  EXPECT_NEAR(normals[0].y, -1.0f, 1e-6f);
}

TEST(OrbitCamera, FrameKeepsEveryCornerInsideTheView) {
  Bounds box;
  box.add(glm::vec3(-0.5f, 1.0f, 0.0f));
  box.add(glm::vec3(0.5f, 2.0f, 3.0f));
  for (float aspect : {0.5f, 1.0f, 4.0f / 3.0f, 3.0f}) {
    OrbitCamera camera;
    camera.frame(box, aspect, 0.8f);
    const glm::mat4 clip = camera.projection(aspect) * camera.view();
    float largest = 0.0f;
    for (int c = 0; c < 8; ++c) {
      glm::vec4 p = clip * glm::vec4(c & 1 ? box.max.x : box.min.x, c & 2 ? box.max.y : box.min.y,
                                     c & 4 ? box.max.z : box.min.z, 1.0f);
      largest = std::max({largest, std::abs(p.x / p.w), std::abs(p.y / p.w)});
    }
    EXPECT_LE(largest, 0.8f + 1e-4f) << aspect;
    EXPECT_GT(largest, 0.79f) << aspect;  // and tight: one corner touches the fill line
  }
}

TEST(EmbeddedShaders, EveryShaderFileIsInTheBinary) {
  for (const char* name :
       {"background.vert", "background.frag", "ground.vert", "ground.frag", "shadow.vert",
        "shadow.frag", "surface.vert", "surface.frag", "springs.vert", "springs.frag",
        "particles.vert", "particles.frag", "lighting.glsl"}) {
    EXPECT_TRUE(embeddedShader(name).has_value()) << name;
  }
  EXPECT_FALSE(embeddedShader("missing.frag").has_value());
}

TEST(PngEncoder, WritesSignatureAndHeader) {
  Image image;
  image.width = 3;
  image.height = 2;
  image.rgba.assign(3 * 2 * 4, 200);
  std::string png;
  ASSERT_TRUE(encodePng(image, &png).isOk());
  ASSERT_GT(png.size(), 33u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(uint8_t(png[19]), 3);  // width, big-endian
  EXPECT_EQ(uint8_t(png[23]), 2);  // height
  Image empty;
  EXPECT_FALSE(encodePng(empty, &png).isOk());
}

}  // namespace
}  // namespace hooke
