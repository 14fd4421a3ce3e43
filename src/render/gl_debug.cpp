// The GL error check and debug-message log. The log is process-wide (one context is current at a
// time in hooke's offscreen path); it holds a bounded number of messages.
#include "render/gl_debug.h"

#include <mutex>
#include <string>
#include <vector>

#include <glad/gl.h>

namespace hooke {

namespace {

constexpr size_t kMaxKeptMessages = 16;

std::mutex g_log_mutex;
std::vector<std::string> g_log;

std::string errorName(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    case GL_STACK_OVERFLOW:
      return "GL_STACK_OVERFLOW";
    case GL_STACK_UNDERFLOW:
      return "GL_STACK_UNDERFLOW";
    default:
      return "GL error " + std::to_string(error);
  }
}

void GLAD_API_PTR onDebugMessage(GLenum /*source*/, GLenum type, GLuint /*id*/, GLenum severity,
                                 GLsizei length, const GLchar* message, const void* /*user*/) {
  // keep errors and high-severity messages; performance notes and the like are dropped
  if (type != GL_DEBUG_TYPE_ERROR && severity != GL_DEBUG_SEVERITY_HIGH) return;
  std::lock_guard<std::mutex> lock(g_log_mutex);
  if (g_log.size() >= kMaxKeptMessages) return;
  std::string text = length >= 0 ? std::string(message, size_t(length)) : std::string(message);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  g_log.push_back(std::move(text));
}

}  // namespace

void installGlDebugLog() {
  if (!glDebugMessageCallback) return;
  glEnable(GL_DEBUG_OUTPUT);
  glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  glDebugMessageCallback(onDebugMessage, nullptr);
  glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
}

Status checkGl(std::string_view what) {
  // every pending error flag, then the debug messages that came with them
  std::string errors;
  for (int i = 0; i < 32; ++i) {
    const GLenum error = glGetError();
    if (error == GL_NO_ERROR) break;
    if (!errors.empty()) errors += ", ";
    errors += errorName(error);
  }
  std::vector<std::string> messages;
  {
    std::lock_guard<std::mutex> lock(g_log_mutex);
    messages.swap(g_log);
  }
  if (errors.empty() && messages.empty()) return Status::ok();
  std::string line(what);
  line += ": " + (errors.empty() ? std::string("GL debug error") : errors);
  if (!messages.empty()) line += "; debug: " + messages.front();
  return Status::error(line);
}

}  // namespace hooke
