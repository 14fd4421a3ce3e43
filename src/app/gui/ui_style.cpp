// The style and font set-up. Looks for a system UI font in a few well-known places and falls back
// to ImGui's built-in one, so the app runs the same without any font installed.
#include "app/gui/ui_style.h"

#include <filesystem>

#include <imgui.h>

namespace hooke {

namespace {

constexpr float kFontPixels = 15.0f;

const char* const kFontCandidates[] = {
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",  // Debian fonts-dejavu-core
    "/usr/share/fonts/TTF/DejaVuSans.ttf",              // Arch, Fedora
    "C:/Windows/Fonts/segoeui.ttf",                     // Windows
};

}  // namespace

void applyUiStyle(float content_scale) {
  ImGuiIO& io = ImGui::GetIO();
  ImGuiStyle& style = ImGui::GetStyle();
  ImGui::StyleColorsDark(&style);

  // calm, slightly rounded panels over the 3D view
  style.WindowRounding = 6.0f;
  style.ChildRounding = 4.0f;
  style.FrameRounding = 4.0f;
  style.GrabRounding = 4.0f;
  style.PopupRounding = 4.0f;
  style.ScrollbarRounding = 6.0f;
  style.WindowBorderSize = 0.0f;
  style.FrameBorderSize = 0.0f;
  style.WindowPadding = ImVec2(10.0f, 10.0f);
  style.FramePadding = ImVec2(6.0f, 4.0f);
  style.ItemSpacing = ImVec2(8.0f, 6.0f);
  style.ItemInnerSpacing = ImVec2(6.0f, 4.0f);
  style.IndentSpacing = 14.0f;
  style.GrabMinSize = 10.0f;

  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.12f, 0.14f, 0.96f);
  c[ImGuiCol_ChildBg] = ImVec4(0.08f, 0.09f, 0.10f, 0.60f);
  c[ImGuiCol_PopupBg] = ImVec4(0.10f, 0.11f, 0.13f, 0.98f);
  c[ImGuiCol_Header] = ImVec4(0.20f, 0.25f, 0.32f, 1.00f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.34f, 0.44f, 1.00f);
  c[ImGuiCol_HeaderActive] = ImVec4(0.30f, 0.40f, 0.52f, 1.00f);
  c[ImGuiCol_FrameBg] = ImVec4(0.18f, 0.20f, 0.23f, 1.00f);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.24f, 0.27f, 0.31f, 1.00f);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.28f, 0.32f, 0.37f, 1.00f);
  c[ImGuiCol_SliderGrab] = ImVec4(0.86f, 0.42f, 0.30f, 1.00f);
  c[ImGuiCol_SliderGrabActive] = ImVec4(0.95f, 0.52f, 0.38f, 1.00f);
  c[ImGuiCol_CheckMark] = ImVec4(0.95f, 0.55f, 0.40f, 1.00f);
  c[ImGuiCol_Button] = ImVec4(0.22f, 0.26f, 0.31f, 1.00f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.30f, 0.36f, 0.43f, 1.00f);
  c[ImGuiCol_ButtonActive] = ImVec4(0.86f, 0.42f, 0.30f, 1.00f);
  c[ImGuiCol_TitleBg] = ImVec4(0.11f, 0.12f, 0.14f, 1.00f);
  c[ImGuiCol_TitleBgActive] = ImVec4(0.14f, 0.16f, 0.19f, 1.00f);
  c[ImGuiCol_Separator] = ImVec4(0.28f, 0.30f, 0.34f, 1.00f);
  c[ImGuiCol_PlotLines] = ImVec4(0.95f, 0.55f, 0.40f, 1.00f);
  style.ScaleAllSizes(content_scale);

  // the font: a real sans-serif when there is one
  io.Fonts->Clear();
  const float pixels = kFontPixels * content_scale;
  bool loaded = false;
  for (const char* path : kFontCandidates) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    if (io.Fonts->AddFontFromFileTTF(path, pixels)) {
      loaded = true;
      break;
    }
  }
  if (!loaded) {
    ImFontConfig config;
    config.SizePixels = 13.0f * content_scale;
    io.Fonts->AddFontDefault(&config);
  }
}

}  // namespace hooke
