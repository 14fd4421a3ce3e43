// Tests of io/scene_file's file helpers: writeFileAtomic replaces a file whole or leaves it as it
// was (no temporary left behind), and readFile names the path when it fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "io/scene_file.h"

namespace hooke {
namespace {

namespace fs = std::filesystem;

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hooke_atomic_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    for (const auto& entry : fs::recursive_directory_iterator(dir_, ec)) {
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(dir_, ec);
  }

  static std::string contents(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  // the names in a directory, to catch temporaries left behind
  static std::vector<std::string> names(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(dir))
      out.push_back(entry.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
};

TEST_F(AtomicWrite, CreatesAndReplacesAFile) {
  const fs::path path = dir_ / "scene.json";
  Status s = writeFileAtomic(path.string(), "first");
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(contents(path), "first");

  std::string binary("a\0b\r\n\xff", 6);
  s = writeFileAtomic(path.string(), binary);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(contents(path), binary);
  EXPECT_EQ(names(dir_), std::vector<std::string>{"scene.json"});

  s = writeFileAtomic(path.string(), "");
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(contents(path), "");
}

TEST_F(AtomicWrite, PathIsADirectoryLeavesItAlone) {
  const fs::path target = dir_ / "taken";
  fs::create_directories(target);
  std::ofstream(target / "inside.txt") << "keep";
  Status s = writeFileAtomic(target.string(), "text");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(target.string()), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s.message();
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_EQ(contents(target / "inside.txt"), "keep");
  EXPECT_EQ(names(dir_), std::vector<std::string>{"taken"});
}

TEST_F(AtomicWrite, UnwritableDirectoryLeavesTheOldFileIntact) {
  const fs::path sub = dir_ / "locked";
  fs::create_directories(sub);
  const fs::path path = sub / "scene.json";
  std::ofstream(path) << "old contents";
  fs::permissions(sub, fs::perms::owner_read | fs::perms::owner_exec);

  // root (and some CI sandboxes) may write anyway: then there is nothing to test here
  const fs::path probe = sub / "probe";
  if (std::ofstream(probe)) {
    fs::remove(probe);
    fs::permissions(sub, fs::perms::owner_all);
    GTEST_SKIP() << "this user can write into a read-only directory (root?)";
  }

  Status s = writeFileAtomic(path.string(), "new contents");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(path.string()), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
  fs::permissions(sub, fs::perms::owner_all);
  EXPECT_EQ(contents(path), "old contents");
  EXPECT_EQ(names(sub), std::vector<std::string>{"scene.json"});
}

TEST_F(AtomicWrite, MissingOrNonDirectoryParentFailsNamingThePath) {
  const fs::path missing = dir_ / "no" / "such" / "dir" / "scene.json";
  Status s = writeFileAtomic(missing.string(), "text");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(missing.string()), std::string::npos) << s.message();

  // a parent that is a file: fails for root too
  const fs::path file = dir_ / "plain.txt";
  std::ofstream(file) << "old";
  const fs::path below = file / "scene.json";
  s = writeFileAtomic(below.string(), "text");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(below.string()), std::string::npos) << s.message();
  EXPECT_EQ(contents(file), "old");
  EXPECT_EQ(names(dir_), std::vector<std::string>{"plain.txt"});

  s = writeFileAtomic("", "text");
  EXPECT_FALSE(s);
}

TEST_F(AtomicWrite, ReadFileReadsWhatWasWritten) {
  const fs::path path = dir_ / "data.bin";
  std::string text(200000, 'x');
  text[12345] = '\0';
  ASSERT_TRUE(writeFileAtomic(path.string(), text));
  std::string back;
  Status s = readFile(path.string(), &back);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(back, text);
}

TEST_F(AtomicWrite, ReadFileFailuresNameThePath) {
  std::string out = "untouched";
  const fs::path missing = dir_ / "missing.json";
  Status s = readFile(missing.string(), &out);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(missing.string()), std::string::npos) << s.message();
  EXPECT_EQ(out, "untouched");

  s = readFile(dir_.string(), &out);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(dir_.string() + ": cannot read: is a directory"), std::string::npos)
      << s.message();
  EXPECT_EQ(out, "untouched");
}

}  // namespace
}  // namespace hooke
