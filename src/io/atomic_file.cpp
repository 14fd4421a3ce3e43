// Temporary-file-and-rename output, so a crash or an error never leaves a half-written file. The
// one place hooke creates output files.
#include "io/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <unistd.h>

namespace hooke {

namespace {

// path + ".tmp-XXXXXXXX" with a suffix that differs per call and per process
std::string temporaryName(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  uint64_t seed =
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  seed ^= counter.fetch_add(1) * 0x9e3779b97f4a7c15ull;
  seed ^= static_cast<uint64_t>(::getpid()) << 32;
  std::mt19937_64 random(seed);
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%08x", static_cast<unsigned>(random() & 0xffffffffu));
  return path + ".tmp-" + suffix;
}

}  // namespace

AtomicFile::~AtomicFile() {
  discard();
}

Status AtomicFile::open(const std::string& path) {
  discard();
  if (path.empty()) return Status::error("cannot write a file with an empty path");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::error(path + ": is a directory");

  // create a new temporary file beside the target, failing rather than reusing one that exists
  path_ = path;
  for (int attempt = 0; attempt < 16 && temp_path_.empty(); ++attempt) {
    std::string candidate = temporaryName(path);
    int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      ::close(fd);
      temp_path_ = candidate;
    } else if (errno != EEXIST) {
      return Status::error(path + ": cannot write (" + std::strerror(errno) + ")");
    }
  }
  if (temp_path_.empty()) return Status::error(path + ": cannot create a temporary file beside it");
  stream_.open(temp_path_, std::ios::binary | std::ios::trunc);
  if (!stream_) {
    discard();
    return Status::error(path + ": cannot write");
  }
  return Status::ok();
}

Status AtomicFile::commit() {
  if (!stream_.is_open()) return Status::error(path_ + ": not open");

  // flush to disk, then rename over the target
  stream_.flush();
  bool good = static_cast<bool>(stream_);
  stream_.close();
  int fd = ::open(temp_path_.c_str(), O_RDONLY);
  good = good && fd >= 0 && ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (!good) {
    discard();
    return Status::error(path_ + ": write failed");
  }
  std::error_code ec;
  std::filesystem::rename(temp_path_, path_, ec);
  if (ec) {
    discard();
    return Status::error(path_ + ": cannot replace (" + ec.message() + ")");
  }
  temp_path_.clear();
  // make the rename itself durable: sync the directory entry (best effort; the file is whole
  // either way, and a filesystem that cannot sync directories has nothing more to offer)
  std::filesystem::path directory = std::filesystem::path(path_).parent_path();
  if (directory.empty()) directory = ".";
  if (int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY); dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
  return Status::ok();
}

void AtomicFile::discard() {
  if (stream_.is_open()) stream_.close();
  if (!temp_path_.empty()) {
    std::error_code ec;
    std::filesystem::remove(temp_path_, ec);
    temp_path_.clear();
  }
}

Status OutputDirectory::create(const std::string& path, const std::string& flag) {
  std::error_code ec;
  path_ = path;
  created_ = !std::filesystem::exists(path, ec);
  std::filesystem::create_directories(path, ec);
  if (ec) {
    created_ = false;
    return Status::error(flag + " " + path + ": cannot create directory: " + ec.message());
  }
  return Status::ok();
}

void OutputDirectory::remove() {
  if (!created_) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  created_ = false;
}

}  // namespace hooke
