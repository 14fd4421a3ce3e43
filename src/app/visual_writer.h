// How each frame's visual state (DESIGN.md "One frame": lerp(prev, cur, alpha) + normals) gets
// into the renderer's vertex buffer. The CPU path writes host arrays and uploads them; with a CUDA
// backend the CUDA–GL interop writer (cuda/gl_interop.h) writes the buffer that
// Renderer::vertexBuffer() describes on the device, with no host copy. The renderer does not know
// which one filled it. Used by the desktop app and by `hooke render`; no ImGui or GLFW here.
#pragma once

#include <memory>
#include <span>
#include <string>
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

  // "host upload", "CUDA-GL interop": for the Stats panel and reports.
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

// The writer for this backend and the renderer's current scene: the CUDA–GL interop writer when
// the backend is a CUDA one, this build has hooke_cuda_gl and the buffer registers with CUDA (the
// GL context must be current and on the backend's device); the host upload otherwise, with the
// reason interop was not used in *why_host (empty when interop was not possible to begin with:
// a CPU backend, or a build without CUDA). An interop writer is registered on the renderer's
// current vertex buffer: destroy it before the next Renderer::setScene.
std::unique_ptr<VisualWriter> makeVisualWriter(const Backend& backend, Renderer* renderer,
                                               std::string* why_host = nullptr);

}  // namespace hooke
