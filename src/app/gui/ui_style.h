// hooke's Dear ImGui look: colours, spacing and the UI font, scaled for the monitor. Touches only
// ImGui's style and font atlas; call once after ImGui::CreateContext().
#pragma once

namespace hooke {

// Sets the style and loads the UI font (a system sans-serif when one is found, else ImGui's
// built-in font) for a content scale (1 on a 96 dpi monitor).
void applyUiStyle(float content_scale);

// The colours the plots and banners share (ImU32, ABGR as ImGui packs them).
namespace ui_colors {
inline constexpr unsigned kKinetic = 0xff4fb0f5u;    // orange
inline constexpr unsigned kPotential = 0xfff0a040u;  // blue
inline constexpr unsigned kTotal = 0xffe8e8e8u;      // near white
inline constexpr unsigned kSimulated = 0xff5a5ae8u;  // red: the simulated height
inline constexpr unsigned kExact = 0xff80e080u;      // green: the closed form
}  // namespace ui_colors

}  // namespace hooke
