// A linked GLSL program built from embedded shaders/ sources, with `#include "x.glsl"` resolved
// from the same set. Failures come back as a Status carrying the first line of the GL log.
#pragma once

#include <string_view>

#include <glm/glm.hpp>

#include "render/gl_handles.h"
#include "sim/status.h"

namespace hooke {

class ShaderProgram {
 public:
  // Compiles shaders/<vertex> and shaders/<fragment> and links them.
  static Status build(std::string_view vertex, std::string_view fragment, ShaderProgram* out);

  GLuint id() const { return program_.id(); }
  void use() const { glUseProgram(program_.id()); }

  // Uniform setters; a name the linker optimised away is ignored.
  void set(const char* name, float value) const;
  void set(const char* name, int value) const;
  void set(const char* name, const glm::vec2& value) const;
  void set(const char* name, const glm::vec3& value) const;
  void set(const char* name, const glm::vec4& value) const;
  void set(const char* name, const glm::mat3& value) const;
  void set(const char* name, const glm::mat4& value) const;

 private:
  GlProgram program_;
};

}  // namespace hooke
