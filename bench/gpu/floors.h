// The benchmark's two floors, measured on the device at hand: the latency of one CG iteration's
// three dependent phases as graph-launched kernels on a tiny system, and the device-to-device copy
// rate. Benchmark only; must not depend on hooke's kernels.
#pragma once

#include "sim/status.h"

namespace hooke::bench {

struct Floors {
  double copy_gb_per_s = 0.0;      // device-to-device copy, bytes read + written per second / 1e9
  double latency_graph_us = 0.0;   // one iteration (3 dependent kernels), CUDA graph replay
  double latency_stream_us = 0.0;  // the same chain launched one kernel at a time
  double latency_cooperative_us = 0.0;  // the same 3 phases in one cooperative kernel, grid.sync
  double graph_node_us = 0.0;           // latency_graph_us / 3
};

Status measureFloors(Floors* out);

}  // namespace hooke::bench
