// The desktop window: GLFW with an OpenGL 4.5 core context (glad), Dear ImGui on its GLFW and
// OpenGL3 backends, and the window's events turned into hooke's own (input_controller.h). Knows
// nothing of the simulation or the panels; never exits the process.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "app/gui/input_controller.h"
#include "sim/status.h"

struct GLFWwindow;

namespace hooke {

// Receives the window's input, in window pixels (y down), before Dear ImGui sees it.
class WindowEvents {
 public:
  virtual ~WindowEvents() = default;
  virtual void onMouseButton(MouseButton button, bool pressed, const glm::vec2& pixel) = 0;
  virtual void onCursor(const glm::vec2& pixel) = 0;
  virtual void onScroll(float steps) = 0;
  virtual void onKey(Key key) = 0;  // presses only, no repeats
  virtual void onDrop(const std::vector<std::string>& paths) = 0;
};

struct WindowOptions {
  int width = 1280;  // window size before content scaling, screen units
  int height = 800;
  std::string title = "hooke";
  bool debug_context = false;  // a GL debug context (KHR_debug messages)
  bool vsync = true;
};

class GuiWindow {
 public:
  GuiWindow(const GuiWindow&) = delete;
  GuiWindow& operator=(const GuiWindow&) = delete;
  ~GuiWindow();  // shuts Dear ImGui down, destroys the window, terminates GLFW

  // Opens the window and makes its context current, loads GL through glad and starts Dear ImGui.
  // *no_display is set when it failed because there is no display to open a window on.
  static Status create(const WindowOptions& options, std::unique_ptr<GuiWindow>* out,
                       bool* no_display);

  void setEvents(WindowEvents* events) { events_ = events; }
  WindowEvents* events() const { return events_; }

  // Processes pending events; waits up to wait_seconds for one when > 0 (a minimised window).
  void pollEvents(double wait_seconds = 0.0);
  bool closeRequested() const;
  void requestClose();

  glm::ivec2 framebufferSize() const;  // pixels; 0 x 0 while minimised
  glm::ivec2 windowSize() const;       // screen units (what cursor positions are in)
  float contentScale() const;          // the monitor's UI scale (1 on a 96 dpi screen)
  void setSize(int width, int height);
  void setTitle(const std::string& title);

  // Dear ImGui's frame: begin before building panels, end to draw them into the back buffer.
  void beginUiFrame();
  void endUiFrame();
  bool uiWantsMouse() const;     // a panel is under the cursor or being used
  bool uiWantsKeyboard() const;  // a text field has the keyboard

  void swapBuffers();

  // "GL_RENDERER, OpenGL GL_VERSION", for the log and the Stats panel.
  const std::string& glDescription() const { return gl_description_; }
  GLFWwindow* handle() const { return window_; }

 private:
  GuiWindow() = default;

  GLFWwindow* window_ = nullptr;
  bool imgui_glfw_ = false;
  bool imgui_opengl_ = false;
  WindowEvents* events_ = nullptr;
  std::string gl_description_;
};

}  // namespace hooke
