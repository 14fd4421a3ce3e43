// A kernel's launch shape from the occupancy API (no CUDA header: host logic and tests use it).
#pragma once

namespace hooke::cuda {

// What the occupancy API says about one kernel on this device.
struct KernelShape {
  int block = 0;          // threads per block
  int blocks_per_sm = 0;  // resident blocks per multiprocessor at that block size
};

}  // namespace hooke::cuda
