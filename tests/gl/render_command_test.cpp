// Tests of `hooke render` as a user runs it: a valid PNG of the requested size on success, exit 2
// with one line and no file on bad input. Skipped where no EGL display exists.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/hooke_process.h"
#include "gl/gl_test_support.h"

namespace hooke {
namespace {

using testing::lineCount;
using testing::readAll;
using testing::runHooke;
using testing::ScratchDir;

class RenderCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (testing::sharedContext(&why) == nullptr) GTEST_SKIP() << why;
  }
};

uint32_t bigEndian(const std::string& bytes, size_t at) {
  return uint32_t(uint8_t(bytes[at])) << 24 | uint32_t(uint8_t(bytes[at + 1])) << 16 |
         uint32_t(uint8_t(bytes[at + 2])) << 8 | uint32_t(uint8_t(bytes[at + 3]));
}

// the PNG signature, then an IHDR chunk of 13 bytes with the size, 8-bit RGB
void expectPng(const std::filesystem::path& path, uint32_t width, uint32_t height) {
  const std::string png = readAll(path);
  ASSERT_GT(png.size(), 64u) << path;
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(bigEndian(png, 8), 13u);
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(bigEndian(png, 16), width);
  EXPECT_EQ(bigEndian(png, 20), height);
  EXPECT_EQ(uint8_t(png[24]), 8);  // bit depth
  EXPECT_EQ(uint8_t(png[25]), 2);  // colour type: RGB
  EXPECT_EQ(png.substr(png.size() - 8, 4), "IEND");
}

TEST_F(RenderCommand, WritesAPngOfTheRequestedSize) {
  ScratchDir dir;
  const auto out = dir / "spring.png";
  auto r = runHooke("render --scene spring1d --time 0.5 --width 320 --height 240 --out '" +
                    out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lineCount(r.out), 1) << r.out;
  EXPECT_NE(r.out.find("spring1d"), std::string::npos) << r.out;
  expectPng(out, 320, 240);

  // the initial state, a file scene with overlays, from another angle
  const auto torus = dir / "torus.PNG";
  r = runHooke("render --scene '" + std::string(HOOKE_ASSETS_DIR) +
               "/torus.node' --time 0 --width 160 --height 200 --springs --particles --yaw -30 "
               "--pitch 40 --out '" +
               torus.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expectPng(torus, 160, 200);
  // no temporary files left beside the outputs
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 2);
}

TEST_F(RenderCommand, RejectsBadInputWithOneLineAndNoFile) {
  ScratchDir dir;
  const std::string out = (dir / "x.png").string();
  struct Case {
    std::string args;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {"--time 1 --width 0", "--width must be an integer 16..8192"},
           {"--time 1 --width -5", "--width"},
           {"--time 1 --width abc", "--width"},
           {"--time 1 --width 100000", "--width"},
           {"--time 1 --height 8", "--height must be an integer 16..8192"},
           {"--time -1", "--time must be a finite number"},
           {"--time nan", "--time"},
           {"--time inf", "--time"},
           {"--time soon", "--time"},
           {"--time 0.001", "--time"},  // rounds to zero ticks of --dt
           {"", "--time"},
           {"--time 1 --pitch 95", "--pitch"},
           {"--time 1 --samples 0", "--samples"},
           {"--time 1 --scene nowhere.json", "nowhere.json"},
           {"--time 1 --dt 0", "--dt"},
           {"--time 1 --integrator rk4", "--integrator"},
           {"--time 1 --backend opencl", "--backend"},
           {"--time 1 --frames -1", "--frames must be an integer 0..100000"},
           {"--time 1 --frames 100001", "--frames"},
           {"--time 1 --frame-report f.json", "--frame-report needs --frames"},
       }) {
    SCOPED_TRACE(c.args);
    auto r = runHooke("render " + c.args + " --out '" + out + "'");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(lineCount(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(std::filesystem::exists(out));
  }

  // the output itself: not a .png, missing, or in a directory that does not exist
  for (const Case& c : std::vector<Case>{
           {"--out '" + (dir / "x.jpg").string() + "'", "--out must name a .png file"},
           {"", "--out"},
           {"--out '" + (dir / "no/such/dir/x.png").string() + "'", "x.png"},
       }) {
    SCOPED_TRACE(c.args);
    auto r = runHooke("render --scene spring1d --time 0.1 " + c.args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(lineCount(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 0);
}

// The app's loop timed frame by frame: every phase measured, the frames add up, a frame with a
// solve exists (dt 0.01, skip auto = 2: a solve every 3 ticks, 1.67 ticks per 1/60 s frame).
void expectFrameReport(const std::filesystem::path& path, int frames, const std::string& visual) {
  const nlohmann::json report = nlohmann::json::parse(readAll(path));
  EXPECT_EQ(report["frames"], frames);
  EXPECT_EQ(report["visual_path"], visual);
  EXPECT_EQ(report["skip"], 2);
  EXPECT_GT(int(report["frames_with_solve"]), frames / 3);
  EXPECT_LT(int(report["frames_with_solve"]), frames);
  for (const char* phase : {"advance_ms", "write_ms", "draw_ms", "frame_ms"}) {
    SCOPED_TRACE(phase);
    const auto& p = report[phase];
    EXPECT_GT(double(p["median"]), 0.0);
    EXPECT_LE(double(p["median"]), double(p["p95"]));
    EXPECT_LE(double(p["p95"]), double(p["max"]));
  }
  // a frame is its phases plus a few clock reads
  EXPECT_GE(double(report["frame_ms"]["mean"]),
            0.99 * (double(report["advance_ms"]["mean"]) + double(report["write_ms"]["mean"]) +
                    double(report["draw_ms"]["mean"])));
}

TEST_F(RenderCommand, TimesFramesOfTheAppLoop) {
  ScratchDir dir;
  const auto out = dir / "cloth.png";
  const auto report = dir / "frames.json";
  auto r = runHooke(
      "render --scene cloth --res 16 --dt 0.01 --time 0.2 --frames 30 --width 96 "
      "--height 64 --samples 1 --out '" +
      out.string() + "' --frame-report '" + report.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("30 frames"), std::string::npos) << r.out;
  expectPng(out, 96, 64);
  expectFrameReport(report, 30, "host upload");
}

// With a CUDA backend the frames are written through CUDA–GL interop, as in the app. Runs where
// the CUDA backend and an EGL display on the same GPU exist (the H200); skipped elsewhere.
TEST_F(RenderCommand, CudaBackendWritesThroughInterop) {
  if (runHooke("run --scene spring1d --steps 1 --backend cuda").exit_code != 0) {
    GTEST_SKIP() << "no CUDA backend here";
  }
  ScratchDir dir;
  const auto out = dir / "cloth.png";
  const auto report = dir / "frames.json";
  auto r = runHooke(
      "render --scene cloth --res 16 --dt 0.01 --time 0.2 --frames 30 --width 96 "
      "--height 64 --samples 1 --backend cuda --out '" +
      out.string() + "' --frame-report '" + report.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CUDA-GL interop"), std::string::npos) << r.out;
  expectPng(out, 96, 64);
  expectFrameReport(report, 30, "CUDA-GL interop");
}

}  // namespace
}  // namespace hooke
