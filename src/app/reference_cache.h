// The converged reference runs of `hooke sweep` and `hooke evaluate`, cached on disk so a sweep
// does not recompute them: DIR/reference-<key>.json, the key hashing the model, the initial state,
// the requested times and the reference's integrator, step and tolerances (sim/realism.h).
#pragma once

#include <span>
#include <string>

#include "sim/realism.h"
#include "sim/status.h"

namespace hooke {

// $HOOKE_CACHE_DIR; else $XDG_CACHE_HOME/hooke/references; else $HOME/.cache/hooke/references;
// empty (no cache) when none is set.
std::string defaultReferenceCacheDir();

// Loads the reference from dir when a file with its key exists and matches; otherwise computes it
// and, when dir is not empty, writes it there atomically (creating dir). A cache that cannot be
// read or written is ignored (the reference is computed). from_cache says which happened.
Status cachedReference(const std::string& dir, const Scene& scene, std::span<const double> times,
                       const ReferenceSpec& spec, Reference* out, bool* from_cache);

}  // namespace hooke
