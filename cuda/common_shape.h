// One launch shape for several variants of a kernel that the backend launches alike (item 4), as
// host-only logic so it can be tested without a device; pcg_kernels.cu feeds it the occupancy API.
#pragma once

#include <functional>
#include <vector>

#include "cuda/kernel_shape.h"

namespace hooke::cuda {

// candidates: block sizes to consider (each variant's own best); resident(variant, block): blocks
// of `variant` (0 .. variants - 1) one multiprocessor holds at that block size. Returns the
// candidate that keeps the most threads of the least resident variant on a multiprocessor (ties:
// the larger block) with that least residency, at least 1. Combining one variant's smaller block
// with another variant's residency at its own, larger, block size would claim a shape neither
// variant runs best, and can leave fewer threads resident than either.
KernelShape commonShape(const std::vector<int>& candidates, int variants,
                        const std::function<int(int variant, int block)>& resident);

}  // namespace hooke::cuda
