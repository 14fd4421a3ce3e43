// An output file that appears whole or not at all: written to a temporary file beside the target
// and renamed over it on commit(); removed if never committed. For reports, traces and exports.
#pragma once

#include <fstream>
#include <string>

#include "sim/status.h"

namespace hooke {

class AtomicFile {
 public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  // Creates the temporary file; fails (naming the path) when the directory is not writable.
  Status open(const std::string& path);

  std::ostream& stream() { return stream_; }
  bool isOpen() const { return stream_.is_open(); }

  // Flushes, closes and renames onto the target path.
  Status commit();

  // Closes and removes the temporary file; the target is left as it was.
  void discard();

 private:
  std::string path_;
  std::string temp_path_;
  std::ofstream stream_;
};

// The directory a command writes its files into: created (with its parents) if missing, and
// removed again by remove() only when this object created it, so a command that fails midway
// leaves the file system as it found it.
class OutputDirectory {
 public:
  // Creates `path` if it does not exist; the error names `flag` (e.g. "--out") and the path.
  Status create(const std::string& path, const std::string& flag);
  // Removes the directory and what is in it, if create() made it; otherwise nothing.
  void remove();

 private:
  std::string path_;
  bool created_ = false;
};

}  // namespace hooke
