// The renderer's GL side: buffers per scene, the per-frame pass order (background, ground, shadow,
// body, overlays) and the looks (colours, sizes). Never touches the simulation or the context.
//
// [SECTION] look: colours and proportions
// [SECTION] scene data
// [SECTION] setup: shaders, fixed meshes, scene buffers
// [SECTION] positions: normals, figure coils, host copy
// [SECTION] drawing
#include "render/renderer.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "render/figure_geometry.h"
#include "render/gl_debug.h"
#include "render/gl_handles.h"
#include "render/mesh_normals.h"
#include "render/shader_program.h"
#include "render/vertex_buffer.h"

namespace hooke {

namespace {

// [SECTION] look: colours and proportions (display colours, converted to linear in the shaders)

constexpr glm::vec3 kBackgroundTop{0.56f, 0.63f, 0.72f};
constexpr glm::vec3 kBackgroundBottom{0.92f, 0.93f, 0.94f};
constexpr glm::vec3 kFloorColor{0.95f, 0.95f, 0.95f};
constexpr glm::vec3 kGridColor{0.55f, 0.58f, 0.62f};

// open surfaces (the cloth): a warm front, a pale back
constexpr glm::vec3 kClothFront{0.80f, 0.27f, 0.19f};
constexpr glm::vec3 kClothBack{0.95f, 0.80f, 0.55f};
// closed surfaces (volumes)
constexpr glm::vec3 kSolidColor{0.22f, 0.47f, 0.72f};
// figures
constexpr glm::vec3 kBallColor{0.85f, 0.27f, 0.22f};
constexpr glm::vec3 kCoilColor{0.78f, 0.80f, 0.84f};
constexpr glm::vec3 kAnchorColor{0.30f, 0.32f, 0.36f};

constexpr float kShadowOpacity = 0.22f;
constexpr int kPatternSquares = 8;  // checker squares across the rest shape's longest side

// a figure's ball radius as a fraction of its typical spring length
constexpr float kBallPerSpringLength = 0.12f;

// [SECTION] scene data

struct SpringGpu {
  uint32_t i, j;
  float rest_length;
  float unused;
};

struct MaterialGpu {
  glm::vec3 rest;
  float pinned;
};

// true when every edge is shared by exactly two triangles (a closed surface)
bool isClosed(std::span<const glm::uvec3> triangles) {
  std::unordered_map<uint64_t, int> edges;
  edges.reserve(triangles.size() * 3);
  for (const glm::uvec3& t : triangles) {
    for (int e = 0; e < 3; ++e) {
      uint64_t a = t[e], b = t[(e + 1) % 3];
      if (a > b) std::swap(a, b);
      ++edges[(a << 32) | b];
    }
  }
  return !edges.empty() &&
         std::all_of(edges.begin(), edges.end(), [](const auto& e) { return e.second == 2; });
}

// true when two triangles sharing an edge meet at more than kCreaseDegrees in the rest shape
// (the lattice box's edges): such surfaces are shaded with face normals, or the averaged vertex
// normals would smear a bevel across the cells next to each crease
constexpr float kCreaseDegrees = 60.0f;
bool hasCreases(std::span<const glm::uvec3> triangles, std::span<const glm::vec3> rest) {
  std::unordered_map<uint64_t, glm::vec3> first_normal;
  first_normal.reserve(triangles.size() * 3);
  const float cos_crease = std::cos(glm::radians(kCreaseDegrees));
  for (const glm::uvec3& t : triangles) {
    const glm::vec3 face = glm::cross(rest[t.y] - rest[t.x], rest[t.z] - rest[t.x]);
    const float length = glm::length(face);
    if (!(length > 0.0f)) continue;
    for (int e = 0; e < 3; ++e) {
      uint64_t a = t[e], b = t[(e + 1) % 3];
      if (a > b) std::swap(a, b);
      auto [it, inserted] = first_normal.emplace((a << 32) | b, face / length);
      if (!inserted && glm::dot(it->second, face / length) < cos_crease) return true;
    }
  }
  return false;
}

float median(std::vector<float> values) {
  if (values.empty()) return 0.0f;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

enum class Mode { kSurface, kFigure, kSprings };

// a piece of a figure: one model matrix over a range of the shapes mesh
struct FigurePart {
  glm::mat4 model;
  glm::vec3 color;
  uint32_t first_index;
  uint32_t index_count;
  float specular;
};

}  // namespace

struct Renderer::Impl {
  // programs
  ShaderProgram background, ground, shadow, surface, springs, particles;

  // fixed meshes: a unit sphere and a unit box in one buffer
  GlVertexArray empty_vao, shapes_vao;
  GlBuffer shapes_vertices, shapes_indices;
  uint32_t sphere_first = 0, sphere_count = 0, box_first = 0, box_count = 0;

  // the scene's buffers
  VertexBuffer vertices;
  GlBuffer material, triangle_indices, spring_buffer;
  GlVertexArray body_vao;
  GlBuffer coil_vertices, coil_indices;
  GlVertexArray coil_vao;
  size_t coil_index_count = 0;

  // the scene on the host
  Mode mode = Mode::kSprings;
  bool loaded = false;
  bool closed = false;
  bool creased = false;
  std::vector<glm::uvec3> triangles;
  std::vector<glm::uvec2> spring_ends;
  std::vector<uint8_t> pinned;
  std::vector<glm::vec3> positions;  // the latest positions, when host_current
  std::vector<glm::vec3> normals;
  bool host_current = true;
  float ball_radius = 0.0f;
  float typical_spring_length = 0.0f;
  float rest_extent = 1.0f;
  std::vector<FigurePart> figure;

  void syncHost() {
    if (host_current) return;
    vertices.readPositions(positions);
    host_current = true;
    if (mode == Mode::kFigure) rebuildFigure();
  }

  void rebuildFigure();
  void drawBody(const ShaderProgram& program, bool lit, const glm::vec3& eye) const;
  void drawGhost(const glm::mat4& view_projection, const glm::vec3& eye,
                 const DrawOptions& options);
};

Renderer::Renderer() : impl_(std::make_unique<Impl>()) {}
Renderer::~Renderer() = default;

// [SECTION] setup: shaders, fixed meshes, scene buffers

Status Renderer::init() {
  Impl& r = *impl_;
  installGlDebugLog();
  struct ProgramSpec {
    ShaderProgram* program;
    const char* vertex;
    const char* fragment;
  };
  for (const ProgramSpec& p : {ProgramSpec{&r.background, "background.vert", "background.frag"},
                               ProgramSpec{&r.ground, "ground.vert", "ground.frag"},
                               ProgramSpec{&r.shadow, "shadow.vert", "shadow.frag"},
                               ProgramSpec{&r.surface, "surface.vert", "surface.frag"},
                               ProgramSpec{&r.springs, "springs.vert", "springs.frag"},
                               ProgramSpec{&r.particles, "particles.vert", "particles.frag"}}) {
    if (Status s = ShaderProgram::build(p.vertex, p.fragment, p.program); !s) return s;
  }

  // the sphere and the box, back to back in one vertex and one index buffer
  LitMesh sphere = makeUnitSphere(48, 24), box = makeUnitBox();
  std::vector<LitVertex> vertices = sphere.vertices;
  std::vector<uint32_t> indices = sphere.indices;
  const uint32_t box_base = uint32_t(vertices.size());
  vertices.insert(vertices.end(), box.vertices.begin(), box.vertices.end());
  for (uint32_t i : box.indices)
    indices.push_back(box_base + i);
  r.sphere_first = 0;
  r.sphere_count = uint32_t(sphere.indices.size());
  r.box_first = r.sphere_count;
  r.box_count = uint32_t(box.indices.size());
  r.shapes_vertices = createBuffer();
  r.shapes_indices = createBuffer();
  glNamedBufferStorage(r.shapes_vertices.id(), GLsizeiptr(vertices.size() * sizeof(LitVertex)),
                       vertices.data(), 0);
  glNamedBufferStorage(r.shapes_indices.id(), GLsizeiptr(indices.size() * sizeof(uint32_t)),
                       indices.data(), 0);

  // vertex arrays: none for the screen-space passes, position + normal for lit meshes
  r.empty_vao = createVertexArray();
  auto makeLitVao = [](GLuint vertex_buffer, GLuint index_buffer) {
    GlVertexArray vao = createVertexArray();
    glVertexArrayVertexBuffer(vao.id(), 0, vertex_buffer, 0, sizeof(LitVertex));
    glVertexArrayAttribFormat(vao.id(), 0, 3, GL_FLOAT, GL_FALSE, offsetof(LitVertex, position));
    glVertexArrayAttribFormat(vao.id(), 1, 3, GL_FLOAT, GL_FALSE, offsetof(LitVertex, normal));
    glVertexArrayAttribBinding(vao.id(), 0, 0);
    glVertexArrayAttribBinding(vao.id(), 1, 0);
    glEnableVertexArrayAttrib(vao.id(), 0);
    glEnableVertexArrayAttrib(vao.id(), 1);
    glVertexArrayElementBuffer(vao.id(), index_buffer);
    return vao;
  };
  r.shapes_vao = makeLitVao(r.shapes_vertices.id(), r.shapes_indices.id());
  r.coil_vertices = createBuffer();
  r.coil_indices = createBuffer();
  r.coil_vao = makeLitVao(r.coil_vertices.id(), r.coil_indices.id());
  return checkGl("setting up the renderer");
}

Status Renderer::setScene(const Scene& scene) {
  Impl& r = *impl_;
  if (!r.background.id()) return Status::error("Renderer::setScene before Renderer::init");
  const size_t n = scene.state.x.size();
  if (n == 0 || scene.model.particleCount() != n) {
    return Status::error("the scene has no particles, or its model and state disagree");
  }

  // host copies of the topology
  r.triangles = scene.triangles;
  r.spring_ends = scene.model.spring_ends;
  r.pinned = scene.model.pinned;
  for (const glm::uvec3& t : r.triangles) {
    if (t.x >= n || t.y >= n || t.z >= n) {
      return Status::error("the scene has a triangle index out of range");
    }
  }
  for (const glm::uvec2& s : r.spring_ends) {
    if (s.x >= n || s.y >= n) return Status::error("the scene has a spring index out of range");
  }
  r.mode = !r.triangles.empty()                 ? Mode::kSurface
           : n <= Renderer::kMaxFigureParticles ? Mode::kFigure
                                                : Mode::kSprings;
  r.closed = r.mode == Mode::kSurface && isClosed(r.triangles);
  r.creased = r.mode == Mode::kSurface && hasCreases(r.triangles, scene.state.x);
  r.typical_spring_length = median(scene.model.rest_length);

  // the rest shape's size sets the pattern and figure scales
  Bounds rest;
  for (const glm::vec3& x : scene.state.x)
    rest.add(x);
  const glm::vec3 size = rest.size();
  r.rest_extent = std::max({size.x, size.y, size.z, 1e-3f});
  r.ball_radius = kBallPerSpringLength *
                  (r.typical_spring_length > 0.0f ? r.typical_spring_length : r.rest_extent);

  // the visual-state buffer, and per-particle rest position + pinned flag
  if (Status s = r.vertices.allocate(n); !s) return s;
  std::vector<MaterialGpu> material(n);
  for (size_t i = 0; i < n; ++i) {
    material[i] = {scene.state.x[i], r.pinned.size() == n && r.pinned[i] ? 1.0f : 0.0f};
  }
  r.material = createBuffer();
  glNamedBufferStorage(r.material.id(), GLsizeiptr(n * sizeof(MaterialGpu)), material.data(), 0);

  // triangles (possibly none) and springs (possibly none; storage needs a byte at least)
  r.triangle_indices = createBuffer();
  glNamedBufferStorage(r.triangle_indices.id(),
                       GLsizeiptr(std::max<size_t>(1, r.triangles.size()) * sizeof(glm::uvec3)),
                       r.triangles.empty() ? nullptr : r.triangles.data(), 0);
  std::vector<SpringGpu> springs(r.spring_ends.size());
  for (size_t s = 0; s < springs.size(); ++s) {
    springs[s] = {r.spring_ends[s].x, r.spring_ends[s].y, scene.model.rest_length[s], 0.0f};
  }
  r.spring_buffer = createBuffer();
  glNamedBufferStorage(r.spring_buffer.id(),
                       GLsizeiptr(std::max<size_t>(1, springs.size()) * sizeof(SpringGpu)),
                       springs.empty() ? nullptr : springs.data(), 0);

  // the body's vertex array: positions and normals from the two blocks, material beside them
  const VertexBufferLayout& layout = r.vertices.layout();
  r.body_vao = createVertexArray();
  const GLuint vao = r.body_vao.id();
  glVertexArrayVertexBuffer(vao, 0, layout.buffer, GLintptr(layout.position_offset),
                            GLsizei(layout.stride));
  glVertexArrayVertexBuffer(vao, 1, layout.buffer, GLintptr(layout.normal_offset),
                            GLsizei(layout.stride));
  glVertexArrayVertexBuffer(vao, 2, r.material.id(), 0, sizeof(MaterialGpu));
  glVertexArrayAttribFormat(vao, 0, 3, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribFormat(vao, 1, 3, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribFormat(vao, 2, 3, GL_FLOAT, GL_FALSE, offsetof(MaterialGpu, rest));
  glVertexArrayAttribFormat(vao, 3, 1, GL_FLOAT, GL_FALSE, offsetof(MaterialGpu, pinned));
  for (GLuint attrib : {0u, 1u, 2u, 3u}) {
    glVertexArrayAttribBinding(vao, attrib, std::min(attrib, 2u));
    glEnableVertexArrayAttrib(vao, attrib);
  }
  glVertexArrayElementBuffer(vao, r.triangle_indices.id());

  r.loaded = true;
  setPositions(scene.state.x);
  return checkGl("uploading the scene");
}

// [SECTION] positions: normals, figure coils, host copy

void Renderer::setPositions(std::span<const glm::vec3> positions) {
  Impl& r = *impl_;
  if (!r.loaded || positions.size() != r.vertices.layout().vertex_count) return;
  r.positions.assign(positions.begin(), positions.end());
  r.normals.resize(positions.size());
  computeVertexNormals(r.positions, r.triangles, r.normals);
  r.vertices.upload(r.positions, r.normals);
  r.host_current = true;
  if (r.mode == Mode::kFigure) r.rebuildFigure();
}

VertexBufferLayout Renderer::vertexBuffer() const {
  return impl_->vertices.layout();
}

std::span<const glm::uvec3> Renderer::triangles() const {
  return impl_->triangles;
}

void Renderer::positionsWritten() {
  Impl& r = *impl_;
  r.host_current = false;
  if (r.mode == Mode::kFigure) r.syncHost();
}

Bounds Renderer::bounds() {
  Impl& r = *impl_;
  Bounds b;
  if (!r.loaded) return b;
  r.syncHost();
  for (size_t i = 0; i < r.positions.size(); ++i) {
    if (!std::isfinite(r.positions[i].x + r.positions[i].y + r.positions[i].z)) continue;
    if (r.mode == Mode::kFigure) {
      // balls, and the anchor blocks that sit on top of pinned particles
      const bool pinned = r.pinned.size() > i && r.pinned[i];
      b.add(r.positions[i], pinned ? 1.6f * r.ball_radius : r.ball_radius);
    } else {
      b.add(r.positions[i]);
    }
  }
  return b;
}

float Renderer::figureBallRadius() const {
  return impl_->mode == Mode::kFigure ? impl_->ball_radius : 0.0f;
}

std::string Renderer::mode() const {
  switch (impl_->mode) {
    case Mode::kSurface:
      return "surface";
    case Mode::kFigure:
      return "figure";
    case Mode::kSprings:
      return "springs";
  }
  return "springs";
}

void Renderer::Impl::rebuildFigure() {
  figure.clear();
  const float r = ball_radius;

  // anchors: a flat block above each pinned particle; balls on the free ones
  for (size_t i = 0; i < positions.size(); ++i) {
    const glm::vec3 p = positions[i];
    if (pinned.size() > i && pinned[i]) {
      const glm::vec3 half(1.5f * r, 0.22f * r, 1.5f * r);
      glm::mat4 model = glm::translate(glm::mat4(1.0f), p + glm::vec3(0.0f, half.y, 0.0f));
      figure.push_back({glm::scale(model, half), kAnchorColor, box_first, box_count, 0.15f});
    } else {
      glm::mat4 model = glm::scale(glm::translate(glm::mat4(1.0f), p), glm::vec3(r));
      figure.push_back({model, kBallColor, sphere_first, sphere_count, 0.6f});
    }
  }

  // coils along the springs, ending on the balls' surfaces
  LitMesh coils;
  CoilShape shape;
  shape.coil_radius = 0.5f * r;
  shape.wire_radius = 0.075f * r;
  shape.turns = 12;
  for (const glm::uvec2& s : spring_ends) {
    glm::vec3 a = positions[s.x], b = positions[s.y];
    const glm::vec3 d = b - a;
    const float length = glm::length(d);
    if (!(length > 2.0f * r)) continue;
    const glm::vec3 dir = d / length;
    if (!(pinned.size() > s.x && pinned[s.x])) a += 0.9f * r * dir;
    if (!(pinned.size() > s.y && pinned[s.y])) b -= 0.9f * r * dir;
    appendCoil(a, b, shape, &coils);
  }
  coil_index_count = coils.indices.size();
  if (coil_index_count > 0) {
    glNamedBufferData(coil_vertices.id(), GLsizeiptr(coils.vertices.size() * sizeof(LitVertex)),
                      coils.vertices.data(), GL_STREAM_DRAW);
    glNamedBufferData(coil_indices.id(), GLsizeiptr(coils.indices.size() * sizeof(uint32_t)),
                      coils.indices.data(), GL_STREAM_DRAW);
  }
}

// [SECTION] drawing

void Renderer::Impl::drawBody(const ShaderProgram& program, bool lit, const glm::vec3& eye) const {
  program.use();
  const glm::mat4 identity(1.0f);
  program.set("u_model", identity);
  if (lit) {
    program.set("u_normal_matrix", glm::mat3(1.0f));
    program.set("u_eye", eye);
  }

  // the surface, from the visual-state buffer
  if (mode == Mode::kSurface) {
    if (lit) {
      program.set("u_front_color", closed ? kSolidColor : kClothFront);
      program.set("u_back_color", closed ? kSolidColor : kClothBack);
      program.set("u_pattern_scale", float(kPatternSquares) / rest_extent);
      program.set("u_pattern_amount", closed ? 0.06f : 0.14f);
      program.set("u_specular", closed ? 0.30f : 0.06f);
      program.set("u_shininess", closed ? 40.0f : 12.0f);
      program.set("u_flat", creased ? 1.0f : 0.0f);
    }
    glBindVertexArray(body_vao.id());
    glDrawElements(GL_TRIANGLES, GLsizei(triangles.size() * 3), GL_UNSIGNED_INT, nullptr);
  }
  if (mode != Mode::kFigure) return;

  // the figure: coils, then balls and anchors
  if (lit) {
    program.set("u_pattern_amount", 0.0f);
    program.set("u_flat", 0.0f);
    program.set("u_front_color", kCoilColor);
    program.set("u_back_color", kCoilColor);
    program.set("u_specular", 0.9f);
    program.set("u_shininess", 60.0f);
  }
  if (coil_index_count > 0) {
    glBindVertexArray(coil_vao.id());
    glDrawElements(GL_TRIANGLES, GLsizei(coil_index_count), GL_UNSIGNED_INT, nullptr);
  }
  glBindVertexArray(shapes_vao.id());
  for (const FigurePart& part : figure) {
    program.set("u_model", part.model);
    if (lit) {
      program.set("u_normal_matrix", glm::transpose(glm::inverse(glm::mat3(part.model))));
      program.set("u_front_color", part.color);
      program.set("u_back_color", part.color);
      program.set("u_specular", part.specular);
      program.set("u_shininess", 48.0f);
    }
    glDrawElements(GL_TRIANGLES, GLsizei(part.index_count), GL_UNSIGNED_INT,
                   reinterpret_cast<const void*>(size_t(part.first_index) * sizeof(uint32_t)));
  }
}

// the overlay's body: its nearest surface into the depth buffer first, then its colour blended
// where it is nearest, so a translucent body never shows its own back layers
void Renderer::Impl::drawGhost(const glm::mat4& view_projection, const glm::vec3& eye,
                               const DrawOptions& options) {
  Impl& r = *this;
  glEnable(GL_DEPTH_TEST);
  glDepthMask(GL_TRUE);
  glDepthFunc(GL_LESS);
  glDisable(GL_BLEND);
  if (options.body && r.mode != Mode::kSprings) {
    r.surface.set("u_view_projection", view_projection);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    r.drawBody(r.surface, true, eye);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_FALSE);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    r.drawBody(r.surface, true, eye);
  }
  glBindVertexArray(0);
  glUseProgram(0);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDepthMask(GL_TRUE);
  glDepthFunc(GL_LESS);
}

Status Renderer::draw(const OrbitCamera& camera, int width, int height,
                      const DrawOptions& options) {
  Impl& r = *impl_;
  if (!r.loaded) return Status::error("Renderer::draw before Renderer::setScene");
  if (width < 1 || height < 1) return Status::ok();  // a minimised window draws nothing
  if (r.mode == Mode::kFigure) r.syncHost();

  const float aspect = float(width) / float(height);
  const glm::mat4 view_projection = camera.projection(aspect) * camera.view();
  const glm::vec3 eye = camera.eye();
  const float scene_size = std::max(r.rest_extent, 4.0f * r.ball_radius);
  const glm::vec3 target = camera.target;

  // a clean slate
  glViewport(options.viewport_x, options.viewport_y, width, height);
  glDisable(GL_CULL_FACE);
  glDisable(GL_STENCIL_TEST);
  glDisable(GL_POLYGON_OFFSET_FILL);
  glEnable(GL_MULTISAMPLE);
  glDepthMask(GL_TRUE);
  glStencilMask(0xff);
  glClearColor(kBackgroundBottom.r, kBackgroundBottom.g, kBackgroundBottom.b, 1.0f);
  glClearDepth(1.0);
  glClearStencil(0);
  if (!options.clear_whole_framebuffer || options.overlay) {
    glEnable(GL_SCISSOR_TEST);
    glScissor(options.viewport_x, options.viewport_y, width, height);
  }
  glClear(options.overlay ? GL_DEPTH_BUFFER_BIT
                          : GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  r.surface.set("u_opacity", std::clamp(options.opacity, 0.0f, 1.0f));
  r.surface.set("u_tint", glm::vec4(options.tint, std::clamp(options.tint_amount, 0.0f, 1.0f)));
  if (options.overlay) {
    r.drawGhost(view_projection, eye, options);
    return checkGl("drawing the overlay");
  }

  // background: the gradient, no depth
  glDisable(GL_DEPTH_TEST);
  glDepthMask(GL_FALSE);
  glDisable(GL_BLEND);
  r.background.use();
  r.background.set("u_top_color", kBackgroundTop);
  r.background.set("u_bottom_color", kBackgroundBottom);
  glBindVertexArray(r.empty_vao.id());
  glDrawArrays(GL_TRIANGLES, 0, 3);

  // ground: blended over the background, fading out around the point looked at
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
  if (options.ground) {
    const float extent = std::max(4.0f * scene_size, 1.5f * camera.distance);
    const float spacing = std::pow(10.0f, std::floor(std::log10(scene_size))) * 0.2f;
    r.ground.use();
    r.ground.set("u_view_projection", view_projection);
    r.ground.set("u_center", glm::vec2(target.x, target.z));
    r.ground.set("u_extent", extent);
    r.ground.set("u_fade_start", 0.25f * extent);
    r.ground.set("u_fade_end", extent);
    r.ground.set("u_minor_spacing", spacing);
    r.ground.set("u_floor_color", kFloorColor);
    r.ground.set("u_line_color", kGridColor);
    glBindVertexArray(r.empty_vao.id());
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  }

  // shadow: the body flattened onto the ground, each pixel darkened once (stencil)
  if (options.shadow && options.body && r.mode != Mode::kSprings) {
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_EQUAL, 0, 0xff);
    glStencilOp(GL_KEEP, GL_KEEP, GL_INCR);
    r.shadow.set("u_view_projection", view_projection);
    r.shadow.set("u_opacity", kShadowOpacity);
    r.drawBody(r.shadow, false, eye);
    glDisable(GL_STENCIL_TEST);
  }

  // body: opaque and depth-tested; pushed back a little when lines go on top of it
  glDisable(GL_BLEND);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  if (options.body && r.mode != Mode::kSprings) {
    if (options.springs || options.particles) {
      glEnable(GL_POLYGON_OFFSET_FILL);
      glPolygonOffset(1.0f, 1.0f);
    }
    r.surface.set("u_view_projection", view_projection);
    if (options.opacity < 1.0f) {
      glEnable(GL_BLEND);
      glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    }
    r.drawBody(r.surface, true, eye);
    glDisable(GL_BLEND);
    glDisable(GL_POLYGON_OFFSET_FILL);
  }

  // overlays: springs as lines, particles as points (always, for scenes that are nothing else)
  const bool show_springs = options.springs || (options.body && r.mode == Mode::kSprings);
  const bool show_particles = options.particles || (options.body && r.mode == Mode::kSprings);
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
  glDepthFunc(GL_LEQUAL);
  const float pixels_per_metre =
      float(height) /
      (2.0f * camera.distance * std::tan(0.5f * glm::radians(camera.fov_y_degrees)));
  if (show_springs && !r.spring_ends.empty()) {
    GLfloat widths[2] = {1.0f, 1.0f};
    glGetFloatv(GL_ALIASED_LINE_WIDTH_RANGE, widths);
    glLineWidth(std::clamp(float(height) / 450.0f, 1.0f, std::max(1.0f, widths[1])));
    const VertexBufferLayout& layout = r.vertices.layout();
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, layout.buffer, GLintptr(layout.position_offset),
                      GLsizeiptr(layout.vertex_count * layout.stride));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, r.spring_buffer.id());
    r.springs.use();
    r.springs.set("u_view_projection", view_projection);
    r.springs.set("u_full_scale", std::max(options.strain_full_scale, 1e-6f));
    glBindVertexArray(r.empty_vao.id());
    glDrawArrays(GL_LINES, 0, GLsizei(2 * r.spring_ends.size()));
    glLineWidth(1.0f);
  }
  if (show_particles) {
    const float spacing_px = r.typical_spring_length * pixels_per_metre;
    glEnable(GL_PROGRAM_POINT_SIZE);
    r.particles.use();
    r.particles.set("u_view_projection", view_projection);
    r.particles.set("u_point_size", std::clamp(0.3f * spacing_px, 2.5f, 14.0f));
    glBindVertexArray(r.body_vao.id());
    glDrawArrays(GL_POINTS, 0, GLsizei(r.vertices.layout().vertex_count));
    glDisable(GL_PROGRAM_POINT_SIZE);
  }

  // leave the state as a caller (ImGui, the next frame) expects it
  glBindVertexArray(0);
  glUseProgram(0);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDepthMask(GL_TRUE);
  return checkGl("drawing the scene");
}

}  // namespace hooke
