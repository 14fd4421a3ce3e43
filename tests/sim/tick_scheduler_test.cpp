// Tests of sim/tick_scheduler: the worked example of DESIGN.md and simulated time = ticks × dt.
#include "sim/tick_scheduler.h"

#include <gtest/gtest.h>

namespace hooke {
namespace {

TEST(TickScheduler, WorkedExampleDt001SolvesEveryThirdTick) {
  ASSERT_EQ(autoSkip(0.01), 2);
  TickScheduler scheduler(0.01, autoSkip(0.01));
  EXPECT_DOUBLE_EQ(scheduler.h(), 0.03);

  const bool expected_solve[] = {true, false, false, true, false, false};
  const double expected_alpha[] = {1.0 / 3.0, 2.0 / 3.0, 1.0, 1.0 / 3.0, 2.0 / 3.0, 1.0};
  for (int i = 0; i < 6; ++i) {
    Tick tick = scheduler.next();
    EXPECT_EQ(tick.solve, expected_solve[i]) << "tick " << i;
    EXPECT_DOUBLE_EQ(tick.alpha, expected_alpha[i]) << "tick " << i;
  }
  EXPECT_EQ(scheduler.solves(), 2);
}

TEST(TickScheduler, AutoRuleMatchesItsDocumentation) {
  EXPECT_EQ(autoSkip(1.0 / 60.0), 1);
  EXPECT_EQ(autoSkip(1.0 / 30.0), 0);
  EXPECT_EQ(autoSkip(0.05), 0);
  EXPECT_EQ(autoSkip(0.1), 0);
  EXPECT_EQ(autoSkip(0.005), 6);
  EXPECT_EQ(autoSkip(1e-4), kMaxAutoSkip);
}

TEST(TickScheduler, SimulatedTimeIsTicksTimesDtForEverySkip) {
  for (int skip = 0; skip <= 10; ++skip) {
    TickScheduler scheduler(0.004, skip);
    double solved_time = 0.0;  // physical time of the newest solved state
    double previous_time = 0.0;
    for (int tick = 1; tick <= 97; ++tick) {
      Tick t = scheduler.next();
      if (t.solve) {
        previous_time = solved_time;
        solved_time += scheduler.h();
      }
      // the interpolated state lerp(prev, cur, alpha) sits exactly at ticks × dt
      double visual_time = previous_time + t.alpha * (solved_time - previous_time);
      EXPECT_NEAR(visual_time, tick * 0.004, 1e-12) << "skip " << skip << " tick " << tick;
      EXPECT_DOUBLE_EQ(scheduler.simTime(), tick * 0.004);
    }
    EXPECT_EQ(scheduler.solves(), (97 + skip) / (skip + 1)) << "skip " << skip;
  }
}

TEST(TickScheduler, AccumulatorCapsTicksPerFrameAndDropsTheBacklog) {
  TickScheduler scheduler(0.01, 0);
  EXPECT_EQ(scheduler.ticksDue(0.025, 8), 2);
  EXPECT_EQ(scheduler.ticksDue(0.006, 8), 1);  // 0.005 carried over + 0.006
  EXPECT_EQ(scheduler.ticksDue(1.0, 8), 8);    // a long frame: capped
  EXPECT_NEAR(scheduler.droppedSeconds(), 0.92, 1e-9);
  EXPECT_EQ(scheduler.ticksDue(0.0, 8), 0);  // the backlog is gone, not replayed
}

}  // namespace
}  // namespace hooke
