// Strict number arguments for the benchmark executables (hooke-bench-gpu, hooke-interop-bench,
// hooke-cg-rounding, hooke-bank-model, hooke-cg-forms).
#pragma once

#include <cerrno>
#include <cstdlib>

namespace hooke::bench {

// A whole decimal number in [lo, hi] making up all of `text`; false otherwise (empty, trailing
// characters, out of range), *out then untouched.
inline bool parseWholeNumber(const char* text, long lo, long hi, int* out) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace hooke::bench
