// The comparison's UI (Dear ImGui): its controls in the sidebar, the two sessions' stats in two
// columns, and the labels that say which body or view is which. The logic is CompareSession.
#pragma once

#include "app/gui/compare_session.h"
#include "app/gui/panels.h"

namespace hooke {

// Ghost look: the second body in overlay mode (a translucent blue-tinted copy).
inline constexpr float kGhostOpacity = 0.5f;
inline constexpr float kGhostTintAmount = 0.7f;

// The "Compare and sweep" section of the controls: side by side on/off, the second integrator,
// overlay or split, and the Sweep panel's toggle. Raises requests->compare_changed.
void compareControls(PanelState& state, const PanelFacts& facts, PanelRequests* requests);

// The Stats panel's two-column table (facts.compare set): solver ms, CG and Newton iterations,
// max strain, energy, divergence, for each session; when only the second diverged, its revert
// button (requests->revert; the primary's is the divergence banner's).
void compareStats(const PanelFacts& facts, PanelRequests* requests);

// Labels over the 3D view: which body is the ghost (overlay), or which view is which (split;
// `left` and `right` are the two views, window pixels).
void compareLabels(const PanelState& state, const PanelFacts& facts, const Viewport& left,
                   const Viewport& right);

}  // namespace hooke
