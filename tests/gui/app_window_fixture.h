// The desktop app in a real window on the private Xvfb (xvfb_display.h), for the
// *_window_test.cpp files: SetUp skips where there is no display; openApp() creates the window
// (debug context, no vsync) and a GuiApp on a CPU session of the scene; frames() runs frames of
// 1/60 s of wall time each. Callers check HasFatalFailure() || IsSkipped() after openApp().
#pragma once

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "app/gui/gui_app.h"
#include "app/gui/gui_window.h"
#include "gui/xvfb_display.h"

namespace hooke::testing {

class AppWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!XvfbDisplay::ensure(&why)) GTEST_SKIP() << why;
  }
  void TearDown() override {
    app_.reset();
    window_.reset();
  }

  void openApp(const SceneOptions& scene, const TimeSettings& time, const PanelState& state,
               int width, int height) {
    bool no_display = false;
    WindowOptions options;
    options.width = width;
    options.height = height;
    options.debug_context = true;
    options.vsync = false;
    Status s = GuiWindow::create(options, &window_, &no_display);
    if (!s && no_display) GTEST_SKIP() << s.message();
    ASSERT_TRUE(s.isOk()) << s.message();
    auto session = std::make_unique<SimSession>();
    ASSERT_TRUE(session->load(scene, "cpu", SolverSettings{}, time).isOk());
    app_ = std::make_unique<GuiApp>(window_.get(), std::move(session), state);
    Status init = app_->init();
    ASSERT_TRUE(init.isOk()) << init.message();
  }

  void frames(int count) {
    for (int i = 0; i < count; ++i) {
      window_->pollEvents();
      ASSERT_TRUE(app_->frame(app_->currentSize(), 1.0 / 60.0).isOk());
    }
  }

  std::unique_ptr<GuiWindow> window_;
  std::unique_ptr<GuiApp> app_;
};

}  // namespace hooke::testing
