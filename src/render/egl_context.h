// An offscreen OpenGL 4.5 core context through EGL: no window and no display server. For
// `hooke render` and the gl tests. Failures are a Status with a one-line reason; never exits.
#pragma once

#include <memory>
#include <string>

#include "sim/status.h"

namespace hooke {

class EglContext {
 public:
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;
  ~EglContext();

  // Loads libEGL at run time, finds a display (EGL_EXT_platform_device devices first, then
  // Mesa's surfaceless platform, then EGL_DEFAULT_DISPLAY), creates an OpenGL 4.5 core context
  // (with a 1x1 pbuffer, or surfaceless), makes it current on this thread and loads the GL
  // functions. `debug` asks for a debug context. The reason on failure names every attempt.
  static Status create(bool debug, std::unique_ptr<EglContext>* out);

  // Makes the context current on the calling thread again.
  Status makeCurrent();

  // "GL_RENDERER, GL_VERSION (how the display was found)", for logs and reports.
  const std::string& description() const { return description_; }

 private:
  EglContext() = default;

  void* display_ = nullptr;  // EGLDisplay
  void* context_ = nullptr;  // EGLContext
  void* surface_ = nullptr;  // EGLSurface; null when surfaceless
  std::string description_;
};

}  // namespace hooke
