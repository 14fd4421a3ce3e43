// Builders for the built-in scenes. Rest lengths are always the initial distances, so each scene
// starts unstretched and sags under gravity.
#include "sim/scenes.h"

#include <algorithm>
#include <cmath>

namespace hooke {

namespace {

constexpr SceneDefaults kClothDefaults{32, 1.0e4f, 0.1f, 1.0f};
constexpr SceneDefaults kVolumeDefaults{12, 1.0e4f, 0.1f, 2.0f};
constexpr SceneDefaults kSpring1dDefaults{1, 100.0f, 0.1f, 1.0f};

struct Resolved {
  float stiffness, damping, mass, drag;
};

Resolved resolve(const Material& m, const SceneDefaults& d) {
  return {m.stiffness.value_or(d.stiffness), m.damping.value_or(d.damping), m.mass.value_or(d.mass),
          m.drag.value_or(0.0f)};
}

void addParticle(Scene& scene, glm::vec3 x, float mass, bool pinned) {
  scene.state.x.push_back(x);
  scene.state.v.push_back(glm::vec3(0.0f));
  scene.model.mass.push_back(mass);
  scene.model.pinned.push_back(pinned ? 1 : 0);
}

void addQuad(Scene& scene, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  // a-b-c-d counter-clockwise seen from the outside
  scene.triangles.push_back({a, b, c});
  scene.triangles.push_back({a, c, d});
}

}  // namespace

std::optional<SceneDefaults> builtinDefaults(std::string_view name) {
  if (name == "cloth") return kClothDefaults;
  if (name == "volume") return kVolumeDefaults;
  if (name == "spring1d") return kSpring1dDefaults;
  return std::nullopt;
}

int maxBuiltinRes(std::string_view name) {
  if (name == "cloth") return 4096;
  if (name == "volume") return 400;
  return 1;
}

void addSpring(Scene& scene, uint32_t i, uint32_t j, float stiffness, float damping) {
  scene.model.spring_ends.push_back({i, j});
  scene.model.rest_length.push_back(glm::length(scene.state.x[j] - scene.state.x[i]));
  scene.model.stiffness.push_back(stiffness);
  scene.model.damping.push_back(damping);
}

Scene makeCloth(int res, const Material& material) {
  Resolved p = resolve(material, kClothDefaults);
  Scene scene;
  scene.name = "cloth";
  scene.model.drag = p.drag;
  const float spacing = 1.0f / static_cast<float>(res - 1);
  const float particle_mass = p.mass / static_cast<float>(res * res);
  auto id = [res](int row, int col) { return static_cast<uint32_t>(row * res + col); };

  // particles: row along z, column along x, centred on x = 0
  for (int row = 0; row < res; ++row) {
    for (int col = 0; col < res; ++col) {
      bool pinned = row == 0 && (col == 0 || col == res - 1);
      glm::vec3 x(-0.5f + col * spacing, 2.0f, row * spacing);
      addParticle(scene, x, particle_mass, pinned);
    }
  }

  // structural, shear and bending springs, each pair once
  const float kb = kBendingRatio * p.stiffness, cb = kBendingRatio * p.damping;
  for (int row = 0; row < res; ++row) {
    for (int col = 0; col < res; ++col) {
      if (col + 1 < res) addSpring(scene, id(row, col), id(row, col + 1), p.stiffness, p.damping);
      if (row + 1 < res) addSpring(scene, id(row, col), id(row + 1, col), p.stiffness, p.damping);
      if (row + 1 < res && col + 1 < res) {
        addSpring(scene, id(row, col), id(row + 1, col + 1), p.stiffness, p.damping);
        addSpring(scene, id(row, col + 1), id(row + 1, col), p.stiffness, p.damping);
      }
      if (col + 2 < res) addSpring(scene, id(row, col), id(row, col + 2), kb, cb);
      if (row + 2 < res) addSpring(scene, id(row, col), id(row + 2, col), kb, cb);
    }
  }

  // two triangles per cell, front face towards +y at the start
  for (int row = 0; row + 1 < res; ++row) {
    for (int col = 0; col + 1 < res; ++col) {
      addQuad(scene, id(row, col), id(row + 1, col), id(row + 1, col + 1), id(row, col + 1));
    }
  }
  return scene;
}

Scene makeVolume(int res, const Material& material) {
  Resolved p = resolve(material, kVolumeDefaults);
  Scene scene;
  scene.name = "volume";
  scene.model.drag = p.drag;
  const int nx = res, ny = std::max(2, res / 2), nz = std::max(2, res / 2);
  const float spacing = 1.0f / static_cast<float>(res - 1);
  const float particle_mass = p.mass / static_cast<float>(nx * ny * nz);
  auto id = [=](int x, int y, int z) { return static_cast<uint32_t>((z * ny + y) * nx + x); };

  // particles: beam along x, centred on z = 0, top face at y = 2
  const float top = 2.0f, half_depth = 0.5f * (nz - 1) * spacing;
  for (int z = 0; z < nz; ++z) {
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        glm::vec3 pos(x * spacing, top - (ny - 1 - y) * spacing, z * spacing - half_depth);
        addParticle(scene, pos, particle_mass, x == 0);
      }
    }
  }

  // the 13 neighbour offsets that cover each lattice pair once: 3 edges, 6 face diagonals and
  // 4 body diagonals
  static constexpr int kOffsets[13][3] = {
      {1, 0, 0}, {0, 1, 0},  {0, 0, 1}, {1, 1, 0},  {1, -1, 0}, {1, 0, 1},  {1, 0, -1},
      {0, 1, 1}, {0, 1, -1}, {1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {1, -1, -1}};
  for (int z = 0; z < nz; ++z) {
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        for (const auto& o : kOffsets) {
          int x2 = x + o[0], y2 = y + o[1], z2 = z + o[2];
          if (x2 < 0 || x2 >= nx || y2 < 0 || y2 >= ny || z2 < 0 || z2 >= nz) continue;
          addSpring(scene, id(x, y, z), id(x2, y2, z2), p.stiffness, p.damping);
        }
      }
    }
  }

  // surface: the six faces of the box, wound outwards
  for (int a = 0; a + 1 < ny; ++a) {
    for (int b = 0; b + 1 < nz; ++b) {
      addQuad(scene, id(0, a, b), id(0, a, b + 1), id(0, a + 1, b + 1), id(0, a + 1, b));
      int x = nx - 1;
      addQuad(scene, id(x, a, b), id(x, a + 1, b), id(x, a + 1, b + 1), id(x, a, b + 1));
    }
  }
  for (int a = 0; a + 1 < nx; ++a) {
    for (int b = 0; b + 1 < nz; ++b) {
      addQuad(scene, id(a, 0, b), id(a + 1, 0, b), id(a + 1, 0, b + 1), id(a, 0, b + 1));
      int y = ny - 1;
      addQuad(scene, id(a, y, b), id(a, y, b + 1), id(a + 1, y, b + 1), id(a + 1, y, b));
    }
    for (int b = 0; b + 1 < ny; ++b) {
      addQuad(scene, id(a, b, 0), id(a, b + 1, 0), id(a + 1, b + 1, 0), id(a + 1, b, 0));
      int z = nz - 1;
      addQuad(scene, id(a, b, z), id(a + 1, b, z), id(a + 1, b + 1, z), id(a, b + 1, z));
    }
  }
  return scene;
}

Scene makeSpring1d(const Material& material) {
  Resolved p = resolve(material, kSpring1dDefaults);
  Scene scene;
  scene.name = "spring1d";
  scene.model.drag = p.drag;
  addParticle(scene, glm::vec3(0.0f, 2.0f, 0.0f), p.mass, true);
  addParticle(scene, glm::vec3(0.0f, 1.0f, 0.0f), p.mass, false);
  addSpring(scene, 0, 1, p.stiffness, p.damping);
  scene.driven_particle = 1;
  return scene;
}

Status makeBuiltinScene(std::string_view name, int res, const Material& material, Scene* out) {
  auto defaults = builtinDefaults(name);
  if (!defaults) return Status::error("unknown scene '" + std::string(name) + "'");
  if (res <= 0) res = defaults->res;
  if (name == "spring1d") {
    *out = makeSpring1d(material);
    return Status::ok();
  }
  if (res < 2 || res > maxBuiltinRes(name)) {
    return Status::error("--res must be between 2 and " + std::to_string(maxBuiltinRes(name)) +
                         " for " + std::string(name) + ", got " + std::to_string(res));
  }
  *out = name == "cloth" ? makeCloth(res, material) : makeVolume(res, material);
  return Status::ok();
}

}  // namespace hooke
