// Move-only owners of OpenGL object names (buffers, vertex arrays, framebuffers, renderbuffers),
// so GL objects are freed exactly once. They must be destroyed while their context is current.
#pragma once

#include <utility>

#include <glad/gl.h>

namespace hooke {

template <void (*kDelete)(GLuint)>
class GlHandle {
 public:
  GlHandle() = default;
  explicit GlHandle(GLuint id) : id_(id) {}
  GlHandle(const GlHandle&) = delete;
  GlHandle& operator=(const GlHandle&) = delete;
  GlHandle(GlHandle&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
  GlHandle& operator=(GlHandle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, 0);
    }
    return *this;
  }
  ~GlHandle() { reset(); }

  GLuint id() const { return id_; }
  explicit operator bool() const { return id_ != 0; }
  void reset() {
    if (id_ != 0) kDelete(id_);
    id_ = 0;
  }

 private:
  GLuint id_ = 0;
};

namespace gl_detail {
inline void deleteBuffer(GLuint id) {
  glDeleteBuffers(1, &id);
}
inline void deleteVertexArray(GLuint id) {
  glDeleteVertexArrays(1, &id);
}
inline void deleteFramebuffer(GLuint id) {
  glDeleteFramebuffers(1, &id);
}
inline void deleteRenderbuffer(GLuint id) {
  glDeleteRenderbuffers(1, &id);
}
inline void deleteProgram(GLuint id) {
  glDeleteProgram(id);
}
}  // namespace gl_detail

using GlBuffer = GlHandle<gl_detail::deleteBuffer>;
using GlVertexArray = GlHandle<gl_detail::deleteVertexArray>;
using GlFramebuffer = GlHandle<gl_detail::deleteFramebuffer>;
using GlRenderbuffer = GlHandle<gl_detail::deleteRenderbuffer>;
using GlProgram = GlHandle<gl_detail::deleteProgram>;

inline GlBuffer createBuffer() {
  GLuint id = 0;
  glCreateBuffers(1, &id);
  return GlBuffer(id);
}
inline GlVertexArray createVertexArray() {
  GLuint id = 0;
  glCreateVertexArrays(1, &id);
  return GlVertexArray(id);
}
inline GlFramebuffer createFramebuffer() {
  GLuint id = 0;
  glCreateFramebuffers(1, &id);
  return GlFramebuffer(id);
}
inline GlRenderbuffer createRenderbuffer() {
  GLuint id = 0;
  glCreateRenderbuffers(1, &id);
  return GlRenderbuffer(id);
}

}  // namespace hooke
