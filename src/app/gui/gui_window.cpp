// GLFW window and context creation, glad loading, Dear ImGui set-up and the event callbacks. The
// callbacks are installed before ImGui's, which chains to them (both 1.86 and newer do).
//
// [SECTION] GLFW errors and key mapping
// [SECTION] callbacks
// [SECTION] creation and teardown
// [SECTION] per frame
#include "app/gui/gui_window.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include "app/gui/ui_style.h"

namespace hooke {

namespace {

// [SECTION] GLFW errors and key mapping

std::string g_last_glfw_error;  // GLFW reports errors through a callback; kept for Status lines

void onGlfwError(int /*code*/, const char* description) {
  g_last_glfw_error = description ? description : "unknown GLFW error";
  while (!g_last_glfw_error.empty() && g_last_glfw_error.back() == ' ')
    g_last_glfw_error.pop_back();
}

Key keyFromGlfw(int key) {
  switch (key) {
    case GLFW_KEY_SPACE:
      return Key::kSpace;
    case GLFW_KEY_S:
      return Key::kS;
    case GLFW_KEY_R:
      return Key::kR;
    case GLFW_KEY_1:
    case GLFW_KEY_KP_1:
      return Key::k1;
    case GLFW_KEY_2:
    case GLFW_KEY_KP_2:
      return Key::k2;
    case GLFW_KEY_3:
    case GLFW_KEY_KP_3:
      return Key::k3;
    case GLFW_KEY_F:
      return Key::kF;
    case GLFW_KEY_H:
      return Key::kH;
    case GLFW_KEY_F12:
      return Key::kF12;
    default:
      return Key::kOther;
  }
}

glm::vec2 cursorOf(GLFWwindow* window) {
  double x = 0.0, y = 0.0;
  glfwGetCursorPos(window, &x, &y);
  return {float(x), float(y)};
}

}  // namespace

// [SECTION] callbacks

namespace {

WindowEvents* eventsOf(GLFWwindow* window) {
  auto* self = static_cast<GuiWindow*>(glfwGetWindowUserPointer(window));
  return self ? self->events() : nullptr;
}

void onMouseButton(GLFWwindow* window, int button, int action, int /*mods*/) {
  WindowEvents* events = eventsOf(window);
  if (!events || (action != GLFW_PRESS && action != GLFW_RELEASE)) return;
  MouseButton which = button == GLFW_MOUSE_BUTTON_LEFT    ? MouseButton::kLeft
                      : button == GLFW_MOUSE_BUTTON_RIGHT ? MouseButton::kRight
                                                          : MouseButton::kMiddle;
  if (button > GLFW_MOUSE_BUTTON_MIDDLE) return;
  events->onMouseButton(which, action == GLFW_PRESS, cursorOf(window));
}

void onCursorPos(GLFWwindow* window, double x, double y) {
  if (WindowEvents* events = eventsOf(window)) {
    events->onCursor({float(x), float(y)});
  }
}

void onScroll(GLFWwindow* window, double /*dx*/, double dy) {
  if (WindowEvents* events = eventsOf(window)) events->onScroll(float(dy));
}

void onKey(GLFWwindow* window, int key, int /*scancode*/, int action, int /*mods*/) {
  WindowEvents* events = eventsOf(window);
  if (!events || action != GLFW_PRESS) return;
  const Key mapped = keyFromGlfw(key);
  if (mapped != Key::kOther) events->onKey(mapped);
}

void onDrop(GLFWwindow* window, int count, const char** paths) {
  WindowEvents* events = eventsOf(window);
  if (!events) return;
  std::vector<std::string> list(paths, paths + count);
  events->onDrop(list);
}

}  // namespace

// [SECTION] creation and teardown

Status GuiWindow::create(const WindowOptions& options, std::unique_ptr<GuiWindow>* out,
                         bool* no_display) {
  *no_display = false;
  glfwSetErrorCallback(onGlfwError);
  g_last_glfw_error.clear();
  if (!glfwInit()) {
    *no_display = true;
    return Status::error("cannot open a window: no display (GLFW: " + g_last_glfw_error + ")");
  }
  std::unique_ptr<GuiWindow> self(new GuiWindow());

  // an OpenGL 4.5 core context, multisampled, with depth and stencil for the renderer; not
  // forward-compatible where that is optional, as wide strain lines need glLineWidth > 1
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
#ifdef __APPLE__
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);  // macOS offers core profiles only so
#endif
  glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, options.debug_context ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_SAMPLES, 4);
  glfwWindowHint(GLFW_DEPTH_BITS, 24);
  glfwWindowHint(GLFW_STENCIL_BITS, 8);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  self->window_ =
      glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
  if (!self->window_) {
    return Status::error("no OpenGL 4.5 core window (" + g_last_glfw_error + ")");
  }
  glfwSetWindowUserPointer(self->window_, self.get());
  glfwMakeContextCurrent(self->window_);
  glfwSwapInterval(options.vsync ? 1 : 0);

  // GL functions through glad, and the version the context really has
  const int version = gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress));
  if (version == 0) return Status::error("the OpenGL functions could not be loaded");
  if (GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) < 45) {
    return Status::error("OpenGL 4.5 core is needed, the window's context has " +
                         std::to_string(GLAD_VERSION_MAJOR(version)) + "." +
                         std::to_string(GLAD_VERSION_MINOR(version)));
  }
  auto text = [](GLenum name) {
    const GLubyte* s = glGetString(name);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
  };
  self->gl_description_ = text(GL_RENDERER) + ", OpenGL " + text(GL_VERSION);

  // our callbacks first: ImGui's chain to them
  glfwSetMouseButtonCallback(self->window_, onMouseButton);
  glfwSetCursorPosCallback(self->window_, onCursorPos);
  glfwSetScrollCallback(self->window_, onScroll);
  glfwSetKeyCallback(self->window_, onKey);
  glfwSetDropCallback(self->window_, onDrop);

  // Dear ImGui: no ini file (the layout is fixed), hooke's look, the two backends
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  applyUiStyle(self->contentScale());
  self->imgui_glfw_ = ImGui_ImplGlfw_InitForOpenGL(self->window_, true);
  self->imgui_opengl_ = ImGui_ImplOpenGL3_Init("#version 450 core");
  if (!self->imgui_glfw_ || !self->imgui_opengl_) {
    return Status::error("Dear ImGui's GLFW or OpenGL3 backend failed to start");
  }
  *out = std::move(self);
  return Status::ok();
}

GuiWindow::~GuiWindow() {
  if (imgui_opengl_) ImGui_ImplOpenGL3_Shutdown();
  if (imgui_glfw_) ImGui_ImplGlfw_Shutdown();
  if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

// [SECTION] per frame

void GuiWindow::pollEvents(double wait_seconds) {
  if (wait_seconds > 0.0) {
    glfwWaitEventsTimeout(wait_seconds);
  } else {
    glfwPollEvents();
  }
}

bool GuiWindow::closeRequested() const {
  return glfwWindowShouldClose(window_) != 0;
}

void GuiWindow::requestClose() {
  glfwSetWindowShouldClose(window_, GLFW_TRUE);
}

glm::ivec2 GuiWindow::framebufferSize() const {
  int width = 0, height = 0;
  glfwGetFramebufferSize(window_, &width, &height);
  return {width, height};
}

glm::ivec2 GuiWindow::windowSize() const {
  int width = 0, height = 0;
  glfwGetWindowSize(window_, &width, &height);
  return {width, height};
}

float GuiWindow::contentScale() const {
  float x = 1.0f, y = 1.0f;
  glfwGetWindowContentScale(window_, &x, &y);
  return std::max(1.0f, std::max(x, y));
}

void GuiWindow::setSize(int width, int height) {
  glfwSetWindowSize(window_, width, height);
}

void GuiWindow::setTitle(const std::string& title) {
  glfwSetWindowTitle(window_, title.c_str());
}

void GuiWindow::beginUiFrame() {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void GuiWindow::endUiFrame() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool GuiWindow::uiWantsMouse() const {
  return ImGui::GetIO().WantCaptureMouse;
}

bool GuiWindow::uiWantsKeyboard() const {
  return ImGui::GetIO().WantCaptureKeyboard || ImGui::GetIO().WantTextInput;
}

void GuiWindow::swapBuffers() {
  glfwSwapBuffers(window_);
}

}  // namespace hooke
