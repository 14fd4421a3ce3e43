// How each frame's visual state (DESIGN.md "One frame": lerp(prev, cur, alpha) + normals) gets
// into the renderer's vertex buffer. The CPU path writes host arrays and uploads them; a CUDA–GL
// interop writer (cuda/gl_interop.h) plugs in behind the same interface and writes the buffer
// that Renderer::vertexBuffer() describes on the device. No ImGui or GLFW here.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "render/renderer.h"
#include "sim/backend.h"
#include "sim/status.h"

namespace hooke {

class VisualWriter {
 public:
  virtual ~VisualWriter() = default;

  // "host upload", "CUDA-GL interop": for the Stats panel.
  virtual std::string_view name() const = 0;

  // Fills the renderer's vertex buffer from the backend's state at alpha, then tells the renderer
  // (setPositions on the host path; positionsWritten after a device write).
  virtual Status write(const Backend& backend, float alpha, Renderer* renderer) = 0;

  // The positions as last written, when the writer keeps them on the host (for picking); empty
  // otherwise (pick on the solved state instead).
  virtual std::span<const glm::vec3> hostPositions() const { return {}; }
};

// The CPU path: Backend::writeVisual into a host array, one upload (Renderer::setPositions).
class HostUploadWriter final : public VisualWriter {
 public:
  std::string_view name() const override { return "host upload"; }
  Status write(const Backend& backend, float alpha, Renderer* renderer) override;
  std::span<const glm::vec3> hostPositions() const override { return positions_; }

 private:
  std::vector<glm::vec3> positions_;  // (particles)
};

// The writer for this backend and this renderer's current scene. Today: the host upload for every
// backend (the CUDA backend's writeVisual copies to the host). The interop hook: when the backend
// is a CUDA one (cudaVisualSource() in cuda/cuda_backend.h succeeds) and hooke_cuda_gl is built,
// return a writer that attaches a GlInteropWriter to renderer->vertexBuffer() (copied field by
// field into GlVertexTarget, with the scene's triangles), calls GlInteropWriter::write(backend,
// alpha) each frame and then renderer->positionsWritten(); detach it before the next setScene.
std::unique_ptr<VisualWriter> makeVisualWriter(const Backend& backend, Renderer* renderer);

}  // namespace hooke
