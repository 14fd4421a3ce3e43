// The visual-state buffer: immutable storage (which CUDA–GL interop can register) updated with
// sub-data uploads on the CPU path.
#include "render/vertex_buffer.h"

#include "render/gl_debug.h"

namespace hooke {

Status VertexBuffer::allocate(size_t vertex_count) {
  if (vertex_count == 0) return Status::error("a vertex buffer needs at least one particle");
  const size_t block = vertex_count * sizeof(glm::vec3);
  buffer_ = createBuffer();
  glNamedBufferStorage(buffer_.id(), GLsizeiptr(2 * block), nullptr, GL_DYNAMIC_STORAGE_BIT);
  layout_ = VertexBufferLayout{buffer_.id(), vertex_count, 0, block, sizeof(glm::vec3), 2 * block};
  return checkGl("allocating the vertex buffer (" + std::to_string(2 * block) + " bytes)");
}

void VertexBuffer::upload(std::span<const glm::vec3> positions,
                          std::span<const glm::vec3> normals) {
  const size_t block = layout_.vertex_count * sizeof(glm::vec3);
  if (positions.size() == layout_.vertex_count) {
    glNamedBufferSubData(buffer_.id(), GLintptr(layout_.position_offset), GLsizeiptr(block),
                         positions.data());
  }
  if (normals.size() == layout_.vertex_count) {
    glNamedBufferSubData(buffer_.id(), GLintptr(layout_.normal_offset), GLsizeiptr(block),
                         normals.data());
  }
}

void VertexBuffer::readPositions(std::span<glm::vec3> out) const {
  if (out.size() != layout_.vertex_count) return;
  glGetNamedBufferSubData(buffer_.id(), GLintptr(layout_.position_offset),
                          GLsizeiptr(out.size_bytes()), out.data());
}

}  // namespace hooke
