// Tests of app/gui/material_editor: reference materials and the rescaling that keeps each spring's
// ratio to the base value (cloth bending springs stay at 0.1 k).
#include <gtest/gtest.h>

#include <numeric>

#include "app/gui/material_editor.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

Scene cloth(const SceneOptions& options) {
  Scene scene;
  EXPECT_TRUE(buildScene(options, &scene).isOk());
  return scene;
}

double totalMass(const Model& model) {
  return std::accumulate(model.mass.begin(), model.mass.end(), 0.0);
}

TEST(MaterialEditor, ReferenceOfABuiltInSceneIsItsMaterial) {
  SceneOptions options;
  options.scene = "cloth";
  options.res = 8;
  MaterialSettings ref = referenceMaterial(cloth(options), options);
  EXPECT_FLOAT_EQ(ref.stiffness, 1.0e4f);
  EXPECT_FLOAT_EQ(ref.damping, 0.1f);
  EXPECT_FLOAT_EQ(ref.mass, 1.0f);
  EXPECT_NEAR(ref.gravity, 9.81f, 1e-5f);
  EXPECT_FLOAT_EQ(ref.drag, 0.0f);

  // command-line overrides are the scene's material
  options.stiffness = 300.0;
  options.mass = 4.0;
  options.drag = 0.5;
  ref = referenceMaterial(cloth(options), options);
  EXPECT_FLOAT_EQ(ref.stiffness, 300.0f);
  EXPECT_FLOAT_EQ(ref.mass, 4.0f);
  EXPECT_FLOAT_EQ(ref.drag, 0.5f);
}

TEST(MaterialEditor, RescalingKeepsEverySpringsRatio) {
  SceneOptions options;
  options.scene = "cloth";
  options.res = 8;
  const Scene scene = cloth(options);
  const MaterialSettings ref = referenceMaterial(scene, options);
  MaterialSettings wanted = ref;
  wanted.stiffness = 3.0e5f;
  wanted.damping = 2.0f;
  const Model model = applyMaterial(scene.model, ref, wanted);
  ASSERT_EQ(model.springCount(), scene.model.springCount());
  int bending = 0;
  for (size_t s = 0; s < model.springCount(); ++s) {
    const float k_ratio = scene.model.stiffness[s] / ref.stiffness;
    const float c_ratio = scene.model.damping[s] / ref.damping;
    EXPECT_NEAR(model.stiffness[s], k_ratio * 3.0e5f, 1e-2f) << s;
    EXPECT_NEAR(model.damping[s], c_ratio * 2.0f, 1e-5f) << s;
    if (std::abs(k_ratio - kBendingRatio) < 1e-6f) {
      ++bending;
      EXPECT_NEAR(model.stiffness[s] / wanted.stiffness, kBendingRatio, 1e-6f);
    }
  }
  EXPECT_GT(bending, 0);  // the cloth has bending springs and they kept their 0.1
  // topology and rest lengths are untouched
  EXPECT_EQ(model.spring_ends, scene.model.spring_ends);
  EXPECT_EQ(model.rest_length, scene.model.rest_length);
  EXPECT_EQ(model.pinned, scene.model.pinned);
}

TEST(MaterialEditor, MassGravityAndDrag) {
  SceneOptions options;
  options.scene = "volume";
  options.res = 4;
  const Scene scene = cloth(options);
  const MaterialSettings ref = referenceMaterial(scene, options);
  MaterialSettings wanted = ref;
  wanted.mass = 6.0f;
  wanted.gravity = 3.0f;
  wanted.drag = 0.25f;
  const Model model = applyMaterial(scene.model, ref, wanted);
  EXPECT_NEAR(totalMass(model), 6.0, 1e-4);
  for (size_t i = 0; i < model.particleCount(); ++i) {
    EXPECT_NEAR(model.mass[i] / scene.model.mass[i], 3.0f, 1e-5f);  // 2 kg -> 6 kg
  }
  EXPECT_NEAR(model.gravity.y, -3.0f, 1e-6f);
  EXPECT_FLOAT_EQ(model.gravity.x, 0.0f);
  EXPECT_FLOAT_EQ(model.drag, 0.25f);
}

TEST(MaterialEditor, UndampedBaseTakesTheStiffnessRatio) {
  SceneOptions options;
  options.scene = "cloth";
  options.res = 6;
  options.damping = 0.0;
  const Scene scene = cloth(options);
  const MaterialSettings ref = referenceMaterial(scene, options);
  ASSERT_FLOAT_EQ(ref.damping, 0.0f);
  MaterialSettings wanted = ref;
  wanted.damping = 1.0f;
  const Model model = applyMaterial(scene.model, ref, wanted);
  for (size_t s = 0; s < model.springCount(); ++s) {
    EXPECT_NEAR(model.damping[s], scene.model.stiffness[s] / ref.stiffness, 1e-6f);
  }
}

TEST(MaterialEditor, TheReferenceGivesTheBaseModelBack) {
  SceneOptions options;
  options.scene = "spring1d";
  const Scene scene = cloth(options);
  const MaterialSettings ref = referenceMaterial(scene, options);
  const Model model = applyMaterial(scene.model, ref, ref);
  EXPECT_EQ(model.stiffness, scene.model.stiffness);
  EXPECT_EQ(model.damping, scene.model.damping);
  EXPECT_EQ(model.mass, scene.model.mass);
  EXPECT_EQ(model.gravity, scene.model.gravity);
}

TEST(MaterialEditor, FileScenesUseMediansAndTheFreeMass) {
  SceneOptions options;
  options.scene = std::string(HOOKE_ASSETS_DIR) + "/torus.node";
  Scene scene;
  ASSERT_TRUE(buildScene(options, &scene).isOk());
  const MaterialSettings ref = referenceMaterial(scene, options);
  EXPECT_GT(ref.stiffness, 0.0f);
  double free_mass = 0.0;
  for (size_t i = 0; i < scene.model.particleCount(); ++i) {
    if (!scene.model.pinned[i]) free_mass += scene.model.mass[i];
  }
  EXPECT_NEAR(ref.mass, free_mass, 1e-4 * free_mass);
}

}  // namespace
}  // namespace hooke
