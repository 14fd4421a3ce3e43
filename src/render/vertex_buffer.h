// The GL buffer holding a scene's visual state (positions, then normals) as vertex_buffer_layout.h
// describes it; uploads host arrays. Knows nothing of who else writes it (CUDA–GL interop).
#pragma once

#include <cstddef>
#include <span>

#include <glm/glm.hpp>

#include "render/gl_handles.h"
#include "render/vertex_buffer_layout.h"
#include "sim/status.h"

namespace hooke {

class VertexBuffer {
 public:
  // (Re)allocates for `vertex_count` particles; the contents are undefined until written.
  Status allocate(size_t vertex_count);

  // The CPU path: one upload of host positions and normals (each vertex_count long).
  void upload(std::span<const glm::vec3> positions, std::span<const glm::vec3> normals);

  // Copies the positions back to the host (for writers other than upload()).
  void readPositions(std::span<glm::vec3> out) const;

  const VertexBufferLayout& layout() const { return layout_; }

 private:
  GlBuffer buffer_;
  VertexBufferLayout layout_;
};

}  // namespace hooke
