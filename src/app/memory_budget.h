// Host memory checked before a scene is built or loaded into a backend: an estimate of the bytes a
// run of so many particles and springs needs at its peak, against what this process may still
// allocate (the smallest of the system's available memory, the cgroup's limit and the process's
// address-space limit). Too large a scene is refused with one line instead of failing to allocate
// part-way (or being killed by the kernel) minutes later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/status.h"

namespace hooke {

// Bytes per particle and per spring, at the peak of a run: the scene, the Simulation's copies of
// the model and the state, and the CPU backend's work arrays (implicit system and CG included),
// with room for the vectors' growth while a scene is built and for the app's vertex buffers.
// About 1.8 times the measured peak of `hooke run` on the CPU (a 512 x 512 cloth: 218 MB
// resident, 402 MB estimated; docs/RELIABILITY.md).
inline constexpr uint64_t kHostBytesPerParticle = 512;
inline constexpr uint64_t kHostBytesPerSpring = 128;
inline constexpr uint64_t kHostBytesBase = uint64_t{64} << 20;  // the program itself

uint64_t estimateHostBytes(uint64_t particles, uint64_t springs);

// Bytes this process can still allocate, or nullopt when nothing says (then nothing is refused).
std::optional<uint64_t> availableHostBytes();

// Fails with "<what>: <P> particles and <S> springs need about X GiB of memory, only Y GiB is
// available" when the estimate exceeds `available` (by default availableHostBytes()).
Status checkHostMemory(std::string_view what, uint64_t particles, uint64_t springs,
                       std::optional<uint64_t> available = availableHostBytes());

// Before a scene file is read: its text and what parsing it builds (a JSON document takes about
// kJsonBytesPerFileByte times the file's size; TetGen files are parsed straight into arrays) must
// fit. Fails like checkHostMemory, naming the file and its size. Missing files pass (the loader
// says what is wrong with them).
inline constexpr uint64_t kJsonBytesPerFileByte = 10;  // measured: 8.2 (99 MB -> 816 MB)
inline constexpr uint64_t kTetGenBytesPerFileByte = 4;
Status checkSceneFileMemory(const std::string& path,
                            std::optional<uint64_t> available = availableHostBytes());

// Upper bounds of a built-in scene's counts at a resolution, without building it (cloth: res²
// particles, at most 6 springs each; volume: res · max(2, res/2)² particles, at most 13 springs
// each; spring1d: 2 and 1).
void builtinSceneCounts(std::string_view name, int res, uint64_t* particles, uint64_t* springs);

}  // namespace hooke
