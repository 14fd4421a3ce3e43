// Tests of io/scene_file's file helpers: writeFileAtomic replaces a file whole or leaves it as it
// was (no temporary left behind) — also when the place cannot be written or the write fails
// part-way, for root as for anyone — and readFile names the path when it fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <csignal>

#include <sys/resource.h>
#include <unistd.h>

#include "io/atomic_file.h"
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

TEST_F(AtomicWrite, UnwritablePlaceLeavesTheOldFileIntact) {
  // a target whose parent is a regular file: no temporary can be created there, for root too
  const fs::path blocker = dir_ / "blocker";
  std::ofstream(blocker) << "old contents";
  const fs::path path = blocker / "scene.json";
  Status s = writeFileAtomic(path.string(), "new contents");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(path.string()), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Not a directory"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
  EXPECT_EQ(contents(blocker), "old contents");
  EXPECT_EQ(names(dir_), std::vector<std::string>{"blocker"});

  // the same through AtomicFile: open fails, nothing is created
  AtomicFile file;
  EXPECT_FALSE(file.open(path.string()));
  EXPECT_FALSE(file.isOpen());
  EXPECT_EQ(names(dir_), std::vector<std::string>{"blocker"});
}

// Lowers the largest file this process may write (RLIMIT_FSIZE, which binds root too) and ignores
// SIGXFSZ, so a write past it fails with EFBIG as on a full disk; restores both when done.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ok_ = ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = nullptr;
  bool ok_ = false;
};

TEST_F(AtomicWrite, AWriteThatFailsMidFileLeavesTheOldFileIntact) {
  // the old file, then a new one that cannot be written whole (as when the disk fills up or the
  // process is stopped mid-write): the old one stays, byte for byte, and no temporary is left
  const fs::path path = dir_ / "settings.json";
  const std::string old_text = "{\"old\": true}\n";
  ASSERT_TRUE(writeFileAtomic(path.string(), old_text));
  const std::string big(1 << 20, 'n');
  Status s = Status::ok();
  {
    FileSizeLimit limit(64 * 1024);
    ASSERT_TRUE(limit.ok());
    s = writeFileAtomic(path.string(), big);
  }
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(path.string()), std::string::npos) << s.message();
  EXPECT_EQ(contents(path), old_text);
  EXPECT_EQ(names(dir_), std::vector<std::string>{"settings.json"});

  // and with the limit gone the same write succeeds (the failure was the limit's)
  ASSERT_TRUE(writeFileAtomic(path.string(), big));
  EXPECT_EQ(contents(path), big);
  EXPECT_EQ(names(dir_), std::vector<std::string>{"settings.json"});
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
