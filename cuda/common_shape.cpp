#include "cuda/common_shape.h"

#include <algorithm>
#include <climits>

namespace hooke::cuda {

KernelShape commonShape(const std::vector<int>& candidates, int variants,
                        const std::function<int(int variant, int block)>& resident) {
  KernelShape best{};
  long long best_threads = -1;
  for (int block : candidates) {
    int per_sm = INT_MAX;
    for (int v = 0; v < variants; ++v)
      per_sm = std::min(per_sm, resident(v, block));
    per_sm = std::max(per_sm, 1);
    const long long threads = 1LL * block * per_sm;
    if (threads > best_threads || (threads == best_threads && block > best.block)) {
      best = KernelShape{block, per_sm};
      best_threads = threads;
    }
  }
  return best;
}

}  // namespace hooke::cuda
