// Runs the hooke executable as a child process and captures its exit code and output, so the CLI
// tests exercise exactly what a user types.
#pragma once

#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hooke::testing {

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string readAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A fresh scratch directory per test, removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hooke-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs `hooke <args>` (args are passed through the shell; quote as needed) with an optional
// environment prefix such as "CUDA_VISIBLE_DEVICES=".
inline ProcessResult runHooke(const std::string& args, const std::string& env = "") {
  ScratchDir scratch;
  std::string cmd = env + (env.empty() ? "" : " ") + "'" + std::string(HOOKE_EXECUTABLE) + "' " +
                    args + " >'" + (scratch / "out").string() + "' 2>'" +
                    (scratch / "err").string() + "'";
  int status = std::system(cmd.c_str());
  ProcessResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = readAll(scratch / "out");
  result.err = readAll(scratch / "err");
  return result;
}

inline int lineCount(const std::string& text) {
  int lines = 0;
  for (char c : text)
    lines += c == '\n';
  return lines;
}

}  // namespace hooke::testing
