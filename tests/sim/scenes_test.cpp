// Tests of sim/scenes: counts, pinned sets, rest lengths and surfaces of the built-in scenes.
#include "sim/scenes.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

namespace hooke {
namespace {

void expectRestLengthsAreInitialLengths(const Scene& scene) {
  for (size_t s = 0; s < scene.model.springCount(); ++s) {
    glm::uvec2 e = scene.model.spring_ends[s];
    float l = glm::length(scene.state.x[e.y] - scene.state.x[e.x]);
    ASSERT_FLOAT_EQ(scene.model.rest_length[s], l) << "spring " << s;
    ASSERT_GT(scene.model.rest_length[s], 0.0f);
    ASSERT_NE(e.x, e.y);
  }
}

void expectNoDuplicateSprings(const Scene& scene) {
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (glm::uvec2 e : scene.model.spring_ends) {
    auto key = std::minmax(e.x, e.y);
    EXPECT_TRUE(seen.insert(key).second) << e.x << "-" << e.y;
  }
}

// Every edge of a closed surface is shared by exactly two triangles, in opposite directions.
void expectClosedOutwardSurface(const Scene& scene, double expected_volume) {
  std::map<std::pair<uint32_t, uint32_t>, int> directed;
  double volume = 0.0;
  for (glm::uvec3 t : scene.triangles) {
    directed[{t.x, t.y}]++;
    directed[{t.y, t.z}]++;
    directed[{t.z, t.x}]++;
    glm::dvec3 a(scene.state.x[t.x]), b(scene.state.x[t.y]), c(scene.state.x[t.z]);
    volume += glm::dot(a, glm::cross(b, c)) / 6.0;
  }
  for (const auto& [edge, count] : directed) {
    ASSERT_EQ(count, 1) << edge.first << "->" << edge.second;
    ASSERT_EQ(directed.count({edge.second, edge.first}), 1u) << edge.first << "->" << edge.second;
  }
  EXPECT_NEAR(volume, expected_volume, 1e-5 * expected_volume);
}

TEST(Scenes, ClothCountsPinsAndRestLengths) {
  for (int res : {2, 3, 8, 32}) {
    Scene scene = makeCloth(res, {});
    const size_t r = res;
    EXPECT_EQ(scene.model.particleCount(), r * r);
    size_t structural = 2 * r * (r - 1), shear = 2 * (r - 1) * (r - 1);
    size_t bending = res >= 3 ? 2 * r * (r - 2) : 0;
    EXPECT_EQ(scene.model.springCount(), structural + shear + bending) << "res " << res;
    EXPECT_EQ(scene.triangles.size(), 2 * (r - 1) * (r - 1));

    // exactly the two corners of the first row are pinned
    std::vector<size_t> pinned;
    for (size_t i = 0; i < r * r; ++i) {
      if (scene.model.pinned[i]) pinned.push_back(i);
    }
    EXPECT_EQ(pinned, (std::vector<size_t>{0, r - 1}));
    expectRestLengthsAreInitialLengths(scene);
    expectNoDuplicateSprings(scene);

    // 1 kg total by default, horizontal at y = 2
    double mass = 0.0;
    for (float m : scene.model.mass)
      mass += m;
    EXPECT_NEAR(mass, 1.0, 1e-5);
    for (glm::vec3 x : scene.state.x)
      EXPECT_EQ(x.y, 2.0f);
  }
}

TEST(Scenes, ClothMaterialSetsBaseAndSofterBendingSprings) {
  Material material;
  material.stiffness = 500.0f;
  material.damping = 2.0f;
  material.mass = 3.0f;
  Scene scene = makeCloth(4, material);
  std::set<float> stiffness(scene.model.stiffness.begin(), scene.model.stiffness.end());
  EXPECT_EQ(stiffness, (std::set<float>{kBendingRatio * 500.0f, 500.0f}));
  std::set<float> damping(scene.model.damping.begin(), scene.model.damping.end());
  EXPECT_EQ(damping, (std::set<float>{kBendingRatio * 2.0f, 2.0f}));
  EXPECT_FLOAT_EQ(scene.model.mass[5], 3.0f / 16.0f);
}

TEST(Scenes, VolumeLatticeCountsPinsSurface) {
  for (int res : {2, 5, 8}) {
    Scene scene = makeVolume(res, {});
    const size_t nx = res, ny = std::max(2, res / 2), nz = ny;
    EXPECT_EQ(scene.model.particleCount(), nx * ny * nz);
    size_t edges = (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1);
    size_t faces =
        2 * ((nx - 1) * (ny - 1) * nz + (nx - 1) * ny * (nz - 1) + nx * (ny - 1) * (nz - 1));
    size_t body = 4 * (nx - 1) * (ny - 1) * (nz - 1);
    EXPECT_EQ(scene.model.springCount(), edges + faces + body) << "res " << res;

    // the x = 0 face is pinned, nothing else
    size_t pinned = 0;
    for (size_t i = 0; i < scene.model.particleCount(); ++i) {
      bool on_face = scene.state.x[i].x == 0.0f;
      EXPECT_EQ(scene.model.pinned[i] != 0, on_face) << i;
      pinned += scene.model.pinned[i];
    }
    EXPECT_EQ(pinned, ny * nz);
    expectRestLengthsAreInitialLengths(scene);
    expectNoDuplicateSprings(scene);
    const double spacing = 1.0 / (res - 1);
    expectClosedOutwardSurface(scene, 1.0 * (ny - 1) * spacing * (nz - 1) * spacing);
  }
}

TEST(Scenes, Spring1dHangsOneMassBelowAPinnedAnchor) {
  Scene scene = makeSpring1d({});
  ASSERT_EQ(scene.model.particleCount(), 2u);
  ASSERT_EQ(scene.model.springCount(), 1u);
  EXPECT_EQ(scene.model.pinned, (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(scene.driven_particle, 1);
  EXPECT_EQ(scene.state.x[0], glm::vec3(0, 2, 0));
  EXPECT_EQ(scene.state.x[1], glm::vec3(0, 1, 0));
  EXPECT_FLOAT_EQ(scene.model.rest_length[0], 1.0f);
  EXPECT_FLOAT_EQ(scene.model.stiffness[0], 100.0f);
  EXPECT_FLOAT_EQ(scene.model.damping[0], 0.1f);
  EXPECT_FLOAT_EQ(scene.model.mass[1], 1.0f);
}

TEST(Scenes, BuiltinByNameChecksResolution) {
  Scene scene;
  EXPECT_TRUE(makeBuiltinScene("cloth", 0, {}, &scene).isOk());
  EXPECT_EQ(scene.model.particleCount(), 32u * 32u);
  Status bad = makeBuiltinScene("cloth", 1, {}, &scene);
  EXPECT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("--res"), std::string::npos);
  EXPECT_FALSE(makeBuiltinScene("volume", 100000, {}, &scene).isOk());
  EXPECT_FALSE(makeBuiltinScene("jelly", 4, {}, &scene).isOk());
}

}  // namespace
}  // namespace hooke
