// libFuzzer target: the TetGen .node/.ele parser must return a Status, never crash, hang or trip a
// sanitizer. The input is the .node text, a NUL byte, then the .ele text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/scene_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const std::string node = input.substr(0, split);
  const std::string ele = split == std::string::npos ? std::string() : input.substr(split + 1);
  hooke::Scene scene;
  (void)hooke::parseTetGen(node, "fuzz.node", ele, "fuzz.ele", {}, &scene);
  return 0;
}
