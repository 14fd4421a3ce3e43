// OpenGL errors as Status values: glGetError plus the error messages of a KHR_debug context,
// checked after a block of GL calls. Never aborts or exits.
#pragma once

#include <string_view>

#include "sim/status.h"

namespace hooke {

// Turns on synchronous debug output for the current context (core in GL 4.3+) and keeps its
// error-type messages for checkGl. Safe to call more than once.
void installGlDebugLog();

// Drains glGetError and the kept debug messages. OK when there were none; otherwise one line:
// "<what>: GL_INVALID_OPERATION; debug: <first message>".
Status checkGl(std::string_view what);

}  // namespace hooke
