// libFuzzer target: hooke's scene JSON parser and validator must return a Status, never crash,
// hang or trip a sanitizer, on any input bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/scene_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  hooke::Scene scene;
  if (hooke::parseSceneJson(text, "fuzz.json", &scene).isOk()) {
    // what parses must serialise and parse back
    hooke::Scene again;
    if (!hooke::parseSceneJson(hooke::sceneToJson(scene), "again.json", &again).isOk())
      __builtin_trap();
    if (again.model.particleCount() != scene.model.particleCount()) __builtin_trap();
  }
  return 0;
}
