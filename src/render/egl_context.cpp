// EGL display discovery and context creation through glad's run-time EGL loader. Tries each way
// of getting a display in turn and keeps a short reason per failed attempt. No window system.
#include "render/egl_context.h"

#include <cstdio>
#include <string>
#include <vector>

#include <glad/egl.h>
#include <glad/gl.h>

namespace hooke {

namespace {

std::string eglErrorName(EGLint error) {
  switch (error) {
    case EGL_SUCCESS:
      return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED:
      return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
      return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
      return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
      return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
      return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
      return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY:
      return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
      return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER:
      return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE:
      return "EGL_BAD_SURFACE";
    default: {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%04x", unsigned(error));
      return std::string("EGL error ") + hex;
    }
  }
}

std::string lastEglError() {
  return eglErrorName(eglGetError());
}

// A display that initialised, with the context and surface made on it.
struct Attempt {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
};

// On an initialised display: an OpenGL 4.5 core context, current, with a pbuffer or surfaceless.
bool makeContext(EGLDisplay display, bool debug, Attempt* out, std::string* why) {
  // display extensions (create_context, surfaceless) are known only once a display is up
  gladLoaderLoadEGL(display);
  if (!eglBindAPI(EGL_OPENGL_API)) {
    *why = "eglBindAPI(EGL_OPENGL_API) failed (" + lastEglError() + ")";
    return false;
  }

  // a config for desktop GL with a pbuffer; else any desktop GL config, used surfaceless
  const bool surfaceless_ok = GLAD_EGL_KHR_surfaceless_context != 0;
  EGLConfig config = nullptr;
  EGLint count = 0;
  bool pbuffer = true;
  const EGLint pbuffer_attribs[] = {EGL_SURFACE_TYPE,
                                    EGL_PBUFFER_BIT,
                                    EGL_RENDERABLE_TYPE,
                                    EGL_OPENGL_BIT,
                                    EGL_RED_SIZE,
                                    8,
                                    EGL_GREEN_SIZE,
                                    8,
                                    EGL_BLUE_SIZE,
                                    8,
                                    EGL_NONE};
  if (!eglChooseConfig(display, pbuffer_attribs, &config, 1, &count) || count < 1) {
    const EGLint any_attribs[] = {EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                  EGL_NONE};
    pbuffer = false;
    if (!surfaceless_ok || !eglChooseConfig(display, any_attribs, &config, 1, &count) ||
        count < 1) {
      *why = "no EGL config for desktop OpenGL";
      return false;
    }
  }

  // the context: 4.5 core, optionally a debug context
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                    4,
                                    EGL_CONTEXT_MINOR_VERSION,
                                    5,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                    EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                    EGL_CONTEXT_OPENGL_DEBUG,
                                    debug ? EGL_TRUE : EGL_FALSE,
                                    EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (context == EGL_NO_CONTEXT && debug) {
    // a driver without debug contexts still renders: ask again without the flag
    const EGLint plain_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                    4,
                                    EGL_CONTEXT_MINOR_VERSION,
                                    5,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                    EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                    EGL_NONE};
    context = eglCreateContext(display, config, EGL_NO_CONTEXT, plain_attribs);
  }
  if (context == EGL_NO_CONTEXT) {
    *why = "no OpenGL 4.5 core context (" + lastEglError() + ")";
    return false;
  }

  // a 1x1 pbuffer to be current on; rendering itself goes to framebuffer objects
  EGLSurface surface = EGL_NO_SURFACE;
  if (pbuffer) {
    const EGLint surface_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    surface = eglCreatePbufferSurface(display, config, surface_attribs);
    if (surface == EGL_NO_SURFACE && !surfaceless_ok) {
      *why = "no pbuffer surface (" + lastEglError() + ")";
      eglDestroyContext(display, context);
      return false;
    }
  }
  if (!eglMakeCurrent(display, surface, surface, context)) {
    *why = "eglMakeCurrent failed (" + lastEglError() + ")";
    if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
    eglDestroyContext(display, context);
    return false;
  }
  out->display = display;
  out->context = context;
  out->surface = surface;
  return true;
}

void release(const Attempt& attempt) {
  eglMakeCurrent(attempt.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (attempt.surface != EGL_NO_SURFACE) eglDestroySurface(attempt.display, attempt.surface);
  if (attempt.context != EGL_NO_CONTEXT) eglDestroyContext(attempt.display, attempt.context);
}

// Initialises the display and makes a context on it; on failure appends the reason to `why`.
bool tryDisplay(EGLDisplay display, const std::string& label, bool debug, Attempt* out,
                std::string* why) {
  if (display == EGL_NO_DISPLAY) {
    *why += (why->empty() ? "" : "; ") + label + ": no display (" + lastEglError() + ")";
    return false;
  }
  EGLint major = 0, minor = 0;
  if (!eglInitialize(display, &major, &minor)) {
    *why += (why->empty() ? "" : "; ") + label + ": eglInitialize failed (" + lastEglError() + ")";
    return false;
  }
  std::string reason;
  if (makeContext(display, debug, out, &reason)) return true;
  eglTerminate(display);
  *why += (why->empty() ? "" : "; ") + label + ": " + reason;
  return false;
}

}  // namespace

EglContext::~EglContext() {
  if (display_ == nullptr) return;
  release(Attempt{display_, context_, surface_});
  eglTerminate(display_);
}

Status EglContext::create(bool debug, std::unique_ptr<EglContext>* out) {
  // libEGL and its client extensions; no display yet
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) {
    return Status::error("no EGL: libEGL.so.1 could not be loaded (install libegl1 and Mesa)");
  }
  // device enumeration comes as EGL_EXT_device_enumeration (Mesa) or inside EGL_EXT_device_base
  // (NVIDIA); the entry points are looked up directly when glad did not load them
  const bool enumeration = GLAD_EGL_EXT_device_enumeration || GLAD_EGL_EXT_device_base;
  const bool device_platform = enumeration && GLAD_EGL_EXT_platform_device;
  const bool surfaceless_platform = GLAD_EGL_MESA_platform_surfaceless != 0;
  // kept here because gladLoaderLoadEGL(display) later reloads the extension flags
  PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display = eglGetPlatformDisplayEXT;
  if (!get_platform_display) {
    get_platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
        eglGetProcAddress("eglGetPlatformDisplayEXT"));
  }
  PFNEGLQUERYDEVICESEXTPROC query_devices = eglQueryDevicesEXT;
  if (!query_devices) {
    query_devices =
        reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  }

  Attempt attempt;
  std::string why, how;

  // 1. each EGL device (a GPU, or Mesa's software device)
  if (device_platform && get_platform_display && query_devices) {
    EGLint device_count = 0;
    EGLDeviceEXT devices[16];
    if (!query_devices(16, devices, &device_count) || device_count == 0) {
      why = "device platform: no EGL devices";
    }
    for (EGLint i = 0; i < device_count && how.empty(); ++i) {
      EGLDisplay display = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
      if (tryDisplay(display, "device " + std::to_string(i), debug, &attempt, &why)) {
        how = "EGL device " + std::to_string(i) + " of " + std::to_string(device_count);
      }
    }
  } else {
    why = "device platform: not supported by this libEGL";
  }

  // 2. Mesa's surfaceless platform
  if (how.empty() && surfaceless_platform && get_platform_display) {
    EGLDisplay display =
        get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (tryDisplay(display, "surfaceless platform", debug, &attempt, &why)) {
      how = "Mesa surfaceless platform";
    }
  }

  // 3. the default display
  if (how.empty()) {
    EGLDisplay display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (tryDisplay(display, "default display", debug, &attempt, &why)) how = "default EGL display";
  }
  if (how.empty()) return Status::error("no EGL display: " + why);

  std::unique_ptr<EglContext> context(new EglContext());
  context->display_ = attempt.display;
  context->context_ = attempt.context;
  context->surface_ = attempt.surface;

  // GL functions through eglGetProcAddress, then the version the context really gave
  const int version = gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress));
  if (version == 0) return Status::error("OpenGL functions could not be loaded through EGL");
  if (GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) < 45) {
    return Status::error("OpenGL 4.5 core is needed, the EGL context has " +
                         std::to_string(GLAD_VERSION_MAJOR(version)) + "." +
                         std::to_string(GLAD_VERSION_MINOR(version)));
  }
  auto text = [](GLenum name) {
    const GLubyte* s = glGetString(name);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
  };
  // the attempts that failed before this one, for whoever wonders why a fallback was taken
  if (!why.empty()) how += "; before that: " + why;
  context->description_ = text(GL_RENDERER) + ", OpenGL " + text(GL_VERSION) + " (" + how + ")";
  *out = std::move(context);
  return Status::ok();
}

Status EglContext::makeCurrent() {
  if (!eglMakeCurrent(display_, surface_, surface_, context_)) {
    return Status::error("eglMakeCurrent failed (" + lastEglError() + ")");
  }
  return Status::ok();
}

}  // namespace hooke
