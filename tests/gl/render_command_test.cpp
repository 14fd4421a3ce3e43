// Tests of `hooke render` as a user runs it: a valid PNG of the requested size on success, exit 2
// with one line and no file on bad input. Skipped where no EGL display exists.
#include <gtest/gtest.h>

#include <filesystem>

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

}  // namespace
}  // namespace hooke
