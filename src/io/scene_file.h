// Reading and writing scenes: hooke's JSON scene format and TetGen .node/.ele meshes. Every
// failure comes back as a one-line message naming the file, the line or field, and the problem.
#pragma once

#include <string>

#include "sim/model.h"
#include "sim/scenes.h"
#include "sim/status.h"

namespace hooke {

// Parses a hooke-scene JSON document (format "hooke-scene", version 1). `origin` names the source
// in error messages (usually the path): "origin:line:column: ..." for syntax errors,
// "origin: particles[3].m: ..." for bad fields. Unknown fields are errors. The result has passed
// validateScene; *out is left untouched on failure.
Status parseSceneJson(const std::string& text, const std::string& origin, Scene* out);

// Serialises a scene so that parseSceneJson gives back bit-identical floats: one particle, spring
// or triangle per line, each float in its shortest exact form. Non-finite values are written as
// null (which parseSceneJson rejects); returns an empty string only if memory runs out.
std::string sceneToJson(const Scene& scene);

// Loads path.node and the .ele beside it: one particle per node, one spring on every unique tet
// edge (rest length = initial length), lumped masses from tet volumes scaled to the material's
// total mass, and the top 5 % of the mesh's height pinned. Surface triangles are the tet faces
// used once, wound outwards. Unset material fields take builtinDefaults("volume"); the name is the
// file's stem. Indices may start at 0 or 1; 10-node tets use their first 4 nodes.
Status loadTetGen(const std::string& node_path, const Material& material, Scene* out);

// The same from the two files' text; the origins name them in error messages.
Status parseTetGen(const std::string& node_text, const std::string& node_origin,
                   const std::string& ele_text, const std::string& ele_origin,
                   const Material& material, Scene* out);

// Loads a scene file by extension: .json (hooke-scene) or .node (TetGen, with its .ele). A .json
// scene gets applyMaterialOverrides (its unset fields keep the file's values); a .node mesh is
// built with the material (mass = the body's total). The result has passed validateScene.
Status loadSceneFile(const std::string& path, const Material& material, Scene* out);

// Applies the CLI's overrides to a loaded scene file: every spring's k, every spring's c, every
// free particle's m (each only when set), and the air drag. Calling it twice changes nothing more.
// Note: on a TetGen mesh a set mass replaces the lumped masses by one mass per free particle.
void applyMaterialOverrides(const Material& material, Scene* scene);

// Checks a scene's consistency: array sizes, finite values, masses > 0 on free particles, spring
// indices in range, i != j, rest > 0, k >= 0, c >= 0, no duplicate springs, at least one particle;
// also pinned particles at rest, drag >= 0, triangle indices in range and driven_particle -1 or a
// particle. Messages name the field: "origin: springs[7].i: index 12 out of range (10 particles)".
Status validateScene(const Scene& scene, const std::string& origin);

// Writes text to path atomically (a temporary file beside it, then rename): the file either has
// the whole text or is left as it was. The temporary is path + ".tmp-" + 8 hex digits and is
// removed on any failure.
Status writeFileAtomic(const std::string& path, const std::string& text);

// Reads a whole file (at most 8 GiB); fails with a message naming the path.
Status readFile(const std::string& path, std::string* out);

}  // namespace hooke
