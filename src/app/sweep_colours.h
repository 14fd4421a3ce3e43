// The colours of a sweep cell's status, one table for `hooke sweep`'s heatmap PNGs
// (sweep_heatmap.cpp) and the desktop app's Sweep panel (gui/sweep_panel.cpp).
#pragma once

#include <cstdint>

#include "sim/sweep.h"

namespace hooke {

struct Rgb {
  uint8_t r, g, b;
};

inline constexpr Rgb kStableColour{46, 160, 67};       // green
inline constexpr Rgb kUnrealisticColour{255, 176, 0};  // amber
inline constexpr Rgb kDivergedColour{214, 39, 40};     // red

constexpr Rgb statusColour(CellStatus status) {
  switch (status) {
    case CellStatus::kStable:
      return kStableColour;
    case CellStatus::kUnrealistic:
      return kUnrealisticColour;
    case CellStatus::kDiverged:
      return kDivergedColour;
  }
  return Rgb{120, 120, 120};
}

}  // namespace hooke
