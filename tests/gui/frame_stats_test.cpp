// Tests of app/gui/frame_stats and app/gui/solve_history: FPS, real-time factor and energy drift.
#include <gtest/gtest.h>

#include "app/gui/frame_stats.h"
#include "app/gui/solve_history.h"

namespace hooke {
namespace {

TEST(FrameStats, FpsFrameTimeAndRealTimeFactor) {
  FrameStats stats;
  EXPECT_EQ(stats.fps(), 0.0);
  EXPECT_FALSE(stats.realTimeFactor().has_value());
  for (int i = 0; i < 120; ++i)
    stats.addFrame(0.02, 0.01, true);  // 50 fps, half real time
  EXPECT_NEAR(stats.fps(), 50.0, 1.0);
  EXPECT_NEAR(stats.frameMs(), 20.0, 1e-9);
  EXPECT_NEAR(*stats.realTimeFactor(), 0.5, 1e-9);
  // paused frames do not count against the real-time factor
  for (int i = 0; i < 10; ++i)
    stats.addFrame(0.02, 0.0, false);
  EXPECT_NEAR(*stats.realTimeFactor(), 0.5, 1e-9);
}

TEST(SolveHistory, DriftIsTheFittedSlopeOfTheTotal) {
  SolveHistory history(5.0);
  EXPECT_FALSE(history.totalEnergyDrift(10.0).has_value());
  for (int i = 0; i <= 300; ++i) {
    SolveSample s;
    s.time = 0.03 * i;
    s.total = 10.0 - 0.25 * s.time + (i % 2 ? 0.01 : -0.01);
    history.add(s);
  }
  // only the last 5 s are kept
  EXPECT_GE(history.samples().front().time, history.newest().time - 5.0 - 1e-9);
  EXPECT_NEAR(*history.totalEnergyDrift(10.0), -0.25, 1e-3);
  // a restart (time going back) clears the history
  SolveSample restart;
  restart.time = 0.03;
  history.add(restart);
  EXPECT_EQ(history.samples().size(), 1u);
}

}  // namespace
}  // namespace hooke
