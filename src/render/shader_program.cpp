// Shader compilation and linking: include resolution over the embedded sources, then GL compile
// and link with their logs turned into one-line Status messages.
#include "render/shader_program.h"

#include <string>

#include <glm/gtc/type_ptr.hpp>

#include "render/shader_sources.h"

namespace hooke {

namespace {

constexpr int kMaxIncludeDepth = 4;

// the first non-empty line of a GL info log
std::string firstLine(const std::string& log) {
  size_t start = log.find_first_not_of(" \r\n\t");
  if (start == std::string::npos) return "no log";
  size_t end = log.find_first_of("\r\n", start);
  return log.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// the shader's text with each `#include "name"` line replaced by that embedded file
Status expandIncludes(std::string_view name, int depth, std::string* out) {
  std::optional<std::string_view> text = embeddedShader(name);
  if (!text) return Status::error("shader '" + std::string(name) + "' is not embedded");
  if (depth > kMaxIncludeDepth)
    return Status::error("shader includes nest too deep at " + std::string(name));
  size_t pos = 0;
  while (pos < text->size()) {
    size_t end = text->find('\n', pos);
    std::string_view line = text->substr(pos, end == std::string_view::npos ? end : end - pos);
    pos = end == std::string_view::npos ? text->size() : end + 1;
    if (line.starts_with("#include \"")) {
      size_t close = line.find('"', 10);
      if (close == std::string_view::npos) {
        return Status::error(std::string(name) + ": malformed #include");
      }
      if (Status s = expandIncludes(line.substr(10, close - 10), depth + 1, out); !s) return s;
      continue;
    }
    out->append(line);
    out->push_back('\n');
  }
  return Status::ok();
}

Status compile(std::string_view name, GLenum stage, GLuint* shader) {
  std::string source;
  if (Status s = expandIncludes(name, 0, &source); !s) return s;
  *shader = glCreateShader(stage);
  const char* text = source.c_str();
  glShaderSource(*shader, 1, &text, nullptr);
  glCompileShader(*shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(*shader, GL_COMPILE_STATUS, &ok);
  if (ok == GL_TRUE) return Status::ok();
  GLint length = 0;
  glGetShaderiv(*shader, GL_INFO_LOG_LENGTH, &length);
  std::string log(size_t(std::max(length, 1)), '\0');
  glGetShaderInfoLog(*shader, length, nullptr, log.data());
  glDeleteShader(*shader);
  *shader = 0;
  return Status::error("shader " + std::string(name) + " does not compile: " + firstLine(log));
}

}  // namespace

Status ShaderProgram::build(std::string_view vertex, std::string_view fragment,
                            ShaderProgram* out) {
  GLuint vs = 0, fs = 0;
  if (Status s = compile(vertex, GL_VERTEX_SHADER, &vs); !s) return s;
  if (Status s = compile(fragment, GL_FRAGMENT_SHADER, &fs); !s) {
    glDeleteShader(vs);
    return s;
  }

  // link, then the stages are no longer needed
  GlProgram program(glCreateProgram());
  glAttachShader(program.id(), vs);
  glAttachShader(program.id(), fs);
  glLinkProgram(program.id());
  glDetachShader(program.id(), vs);
  glDetachShader(program.id(), fs);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    GLint length = 0;
    glGetProgramiv(program.id(), GL_INFO_LOG_LENGTH, &length);
    std::string log(size_t(std::max(length, 1)), '\0');
    glGetProgramInfoLog(program.id(), length, nullptr, log.data());
    return Status::error("shaders " + std::string(vertex) + " + " + std::string(fragment) +
                         " do not link: " + firstLine(log));
  }
  out->program_ = std::move(program);
  return Status::ok();
}

void ShaderProgram::set(const char* name, float value) const {
  glProgramUniform1f(id(), glGetUniformLocation(id(), name), value);
}
void ShaderProgram::set(const char* name, int value) const {
  glProgramUniform1i(id(), glGetUniformLocation(id(), name), value);
}
void ShaderProgram::set(const char* name, const glm::vec2& value) const {
  glProgramUniform2fv(id(), glGetUniformLocation(id(), name), 1, glm::value_ptr(value));
}
void ShaderProgram::set(const char* name, const glm::vec3& value) const {
  glProgramUniform3fv(id(), glGetUniformLocation(id(), name), 1, glm::value_ptr(value));
}
void ShaderProgram::set(const char* name, const glm::vec4& value) const {
  glProgramUniform4fv(id(), glGetUniformLocation(id(), name), 1, glm::value_ptr(value));
}
void ShaderProgram::set(const char* name, const glm::mat3& value) const {
  glProgramUniformMatrix3fv(id(), glGetUniformLocation(id(), name), 1, GL_FALSE,
                            glm::value_ptr(value));
}
void ShaderProgram::set(const char* name, const glm::mat4& value) const {
  glProgramUniformMatrix4fv(id(), glGetUniformLocation(id(), name), 1, GL_FALSE,
                            glm::value_ptr(value));
}

}  // namespace hooke
