// Draws one scene with OpenGL 4.5 core into the bound framebuffer (surface or figure, overlays,
// ground, shadow, background). Reads sim/ types only; never simulates, never creates a context.
#pragma once

#include <memory>
#include <span>
#include <string>

#include <glm/glm.hpp>

#include "render/orbit_camera.h"
#include "render/vertex_buffer_layout.h"
#include "sim/model.h"
#include "sim/status.h"

namespace hooke {

struct DrawOptions {
  bool body = true;                 // the scene itself: its surface, or its figure
  bool springs = false;             // every spring as a line coloured by strain
  bool particles = false;           // every particle as a point, pinned ones red
  bool ground = true;               // the floor and grid at y = 0
  bool shadow = true;               // the body's shadow on the floor
  float strain_full_scale = 0.01f;  // |strain| at which a spring line is fully red or blue
  // where the drawing area's lower-left corner sits in the framebuffer, pixels (GL's y-up
  // convention); the app draws beside its side panel. The clear still covers the framebuffer.
  int viewport_x = 0;
  int viewport_y = 0;
  // false: the clear covers the drawing area only (two views side by side)
  bool clear_whole_framebuffer = true;
  // A second body over what the framebuffer holds (a comparison's ghost): no clear, background,
  // ground or shadow; the depth is cleared so the ghost shows through the first body, and the
  // body is drawn at `opacity` (its nearest surface only) with its colours mixed toward `tint`
  // by `tint_amount`.
  bool overlay = false;
  float opacity = 1.0f;
  glm::vec3 tint{0.30f, 0.70f, 1.00f};  // display colour
  float tint_amount = 0.0f;
};

class Renderer {
 public:
  Renderer();
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // Compiles the shaders and makes the fixed meshes. Needs a current OpenGL 4.5 core context.
  Status init();

  // Takes a scene's topology and rest state: triangles, springs, pinned set, initial positions.
  // A scene with triangles draws as a lit surface (two-sided when the surface is open, like the
  // cloth); one without triangles and at most kMaxFigureParticles particles draws as a figure
  // (balls on coil springs below block anchors, like spring1d); any other draws as springs and
  // particles. The positions start at scene.state.x.
  Status setScene(const Scene& scene);
  static constexpr size_t kMaxFigureParticles = 64;

  // The CPU path: new positions (one per particle), from which the normals are computed and both
  // are uploaded to the vertex buffer.
  void setPositions(std::span<const glm::vec3> positions);

  // The interop path: the buffer described by vertexBuffer() was filled by someone else
  // (positions and normals). The renderer reads positions back only where it needs them on the
  // host: for figure scenes (a few particles) and for bounds().
  VertexBufferLayout vertexBuffer() const;
  void positionsWritten();
  // The scene's triangles (indices into the vertex buffer's vertices; empty when it has none),
  // for writers that compute the normals themselves.
  std::span<const glm::uvec3> triangles() const;

  // The box around what is drawn (particles, plus ball radii and anchors in a figure), for the
  // camera's reset view.
  Bounds bounds();

  // Draws into the currently bound draw framebuffer, over the viewport at options.viewport_x,
  // options.viewport_y (0, 0 by default) of size width x height.
  Status draw(const OrbitCamera& camera, int width, int height, const DrawOptions& options);

  // The radius of a figure's balls, m (0 unless the scene draws as a figure), for picking them.
  float figureBallRadius() const;

  // What the scene draws as: "surface", "figure" or "springs".
  std::string mode() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hooke
