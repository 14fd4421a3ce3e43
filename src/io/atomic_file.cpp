// Temporary-file-and-rename output, so a crash or an error never leaves a half-written file.
#include "io/atomic_file.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

namespace hooke {

AtomicFile::~AtomicFile() {
  discard();
}

Status AtomicFile::open(const std::string& path) {
  discard();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::error(path + ": is a directory");
  }
  std::random_device entropy;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, ".tmp-%08x", static_cast<unsigned>(entropy()));
  path_ = path;
  temp_path_ = path + suffix;
  stream_.open(temp_path_, std::ios::binary | std::ios::trunc);
  if (!stream_) {
    std::string reason = std::strerror(errno);
    temp_path_.clear();
    return Status::error(path + ": cannot write (" + reason + ")");
  }
  return Status::ok();
}

Status AtomicFile::commit() {
  if (!stream_.is_open()) return Status::error(path_ + ": not open");
  stream_.flush();
  bool good = static_cast<bool>(stream_);
  stream_.close();
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

}  // namespace hooke
