// A result type for failures a user can cause (a bad file, a bad value, no device): a message that
// travels back to the caller instead of an exception or an exit.
#pragma once

#include <string>
#include <utility>

namespace hooke {

class [[nodiscard]] Status {
 public:
  static Status ok() { return Status(); }
  static Status error(std::string message) { return Status(std::move(message)); }

  bool isOk() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string& message() const { return message_; }

 private:
  Status() = default;
  explicit Status(std::string message) : failed_(true), message_(std::move(message)) {}
  bool failed_ = false;
  std::string message_;
};

}  // namespace hooke
