// Gives the window tests an X display: starts a private Xvfb (which picks a free display number
// and reports it through -displayfd) once per test process and points DISPLAY at it; stops it at
// exit. Without Xvfb it falls back to an existing DISPLAY, else reports why there is none.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace hooke::testing {

inline std::string findProgram(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    const std::string dir = dirs.substr(start, end == std::string::npos ? end : end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

class XvfbDisplay {
 public:
  // DISPLAY names a usable display when this returns true; otherwise *why says what is missing.
  // HOOKE_TEST_USE_DISPLAY=1 uses the caller's own DISPLAY instead of a private Xvfb.
  static bool ensure(std::string* why) {
    static XvfbDisplay display;
    *why = display.why_;
    return display.ok_;
  }

  ~XvfbDisplay() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }

 private:
  XvfbDisplay() {
    const char* own = std::getenv("DISPLAY");
    const char* use_own = std::getenv("HOOKE_TEST_USE_DISPLAY");
    if (use_own && std::string(use_own) == "1" && own && *own) {
      ok_ = true;
      return;
    }
    const std::string xvfb = findProgram("Xvfb");
    if (xvfb.empty()) {
      ok_ = own && *own;
      why_ = ok_ ? "" : "no Xvfb (apt install xvfb) and no DISPLAY";
      return;
    }

    // Xvfb writes the display number it chose to the pipe, then keeps running
    int fds[2];
    if (pipe(fds) != 0) {
      why_ = "pipe() failed";
      return;
    }
    pid_ = fork();
    if (pid_ == 0) {
      close(fds[0]);
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      dup2(null, 2);
      const std::string fd = std::to_string(fds[1]);
      std::vector<const char*> args = {xvfb.c_str(), "-displayfd",   fd.c_str(),  "-screen",
                                       "0",          "1920x1200x24", "-nolisten", "tcp",
                                       "-noreset",   nullptr};
      execv(xvfb.c_str(), const_cast<char* const*>(args.data()));
      _exit(127);
    }
    close(fds[1]);
    std::string number;
    pollfd wait{fds[0], POLLIN, 0};
    char c = 0;
    while (poll(&wait, 1, 10000) > 0 && read(fds[0], &c, 1) == 1 && c != '\n')
      number += c;
    close(fds[0]);
    if (number.empty()) {
      why_ = "Xvfb did not start (no display number within 10 s)";
      return;
    }
    setenv("DISPLAY", (":" + number).c_str(), 1);
    ok_ = true;
  }

  pid_t pid_ = -1;
  bool ok_ = false;
  std::string why_;
};

}  // namespace hooke::testing
