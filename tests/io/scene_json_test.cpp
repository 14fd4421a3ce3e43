// Tests of io/scene_file's JSON side: bit-exact round trips of the built-in scenes, one-line errors
// naming the field or line for every kind of bad input, validateScene, overrides and loadSceneFile.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/scene_file.h"

namespace hooke {
namespace {

using json = nlohmann::json;

uint32_t bits(float f) {
  return std::bit_cast<uint32_t>(f);
}

// every float compared by its bits, every index exactly
void expectIdentical(const Scene& a, const Scene& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.driven_particle, b.driven_particle);
  for (int c = 0; c < 3; ++c)
    EXPECT_EQ(bits(a.model.gravity[c]), bits(b.model.gravity[c]));
  EXPECT_EQ(bits(a.model.drag), bits(b.model.drag));
  ASSERT_EQ(a.model.particleCount(), b.model.particleCount());
  ASSERT_EQ(a.state.x.size(), b.state.x.size());
  ASSERT_EQ(a.state.v.size(), b.state.v.size());
  for (size_t i = 0; i < a.model.particleCount(); ++i) {
    EXPECT_EQ(bits(a.model.mass[i]), bits(b.model.mass[i])) << "particle " << i;
    EXPECT_EQ(a.model.pinned[i], b.model.pinned[i]) << "particle " << i;
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(bits(a.state.x[i][c]), bits(b.state.x[i][c])) << "particle " << i;
      EXPECT_EQ(bits(a.state.v[i][c]), bits(b.state.v[i][c])) << "particle " << i;
    }
  }
  ASSERT_EQ(a.model.springCount(), b.model.springCount());
  for (size_t k = 0; k < a.model.springCount(); ++k) {
    EXPECT_EQ(a.model.spring_ends[k], b.model.spring_ends[k]) << "spring " << k;
    EXPECT_EQ(bits(a.model.rest_length[k]), bits(b.model.rest_length[k])) << "spring " << k;
    EXPECT_EQ(bits(a.model.stiffness[k]), bits(b.model.stiffness[k])) << "spring " << k;
    EXPECT_EQ(bits(a.model.damping[k]), bits(b.model.damping[k])) << "spring " << k;
  }
  EXPECT_EQ(a.triangles, b.triangles);
}

void expectRoundTrip(const Scene& scene) {
  std::string text = sceneToJson(scene);
  Scene back;
  Status s = parseSceneJson(text, "roundtrip.json", &back);
  ASSERT_TRUE(s) << s.message();
  expectIdentical(scene, back);
  EXPECT_EQ(sceneToJson(back), text);  // and writing again gives the same text
}

TEST(SceneJson, RoundTripOfClothIsBitExact) {
  Scene cloth = makeCloth(8, {});
  ASSERT_FALSE(cloth.triangles.empty());
  expectRoundTrip(cloth);
}

TEST(SceneJson, RoundTripOfVolumeIsBitExact) {
  expectRoundTrip(makeVolume(5, {}));
}

TEST(SceneJson, RoundTripOfSpring1dIsBitExact) {
  Scene spring = makeSpring1d({});
  ASSERT_EQ(spring.driven_particle, 1);
  expectRoundTrip(spring);
}

TEST(SceneJson, RoundTripOfAwkwardFloatsIsBitExact) {
  // values whose shortest decimal forms are long, tiny, huge, negative zero and random bit patterns
  Scene scene = makeSpring1d({});
  scene.name = "awkward \"floats\"\n\t\xc3\xa9";
  scene.model.gravity = {0.1f, -1.0f / 3.0f, std::numeric_limits<float>::denorm_min()};
  scene.model.drag = std::numeric_limits<float>::min();
  scene.state.x[0] = {-0.0f, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
  scene.state.x[1] = {16777217.0f, 1e-38f, 3.4028e38f};
  scene.state.v[1] = {-0.0f, 7e-45f, 123456789.0f};
  scene.model.rest_length[0] = std::nextafter(1.0f, 2.0f);
  scene.model.stiffness[0] = 0.0f;
  scene.model.damping[0] = 1e10f;
  std::mt19937 random(12345);
  for (int i = 0; i < 2000; ++i) {
    float f;
    do {
      f = std::bit_cast<float>(static_cast<uint32_t>(random()));
    } while (!std::isfinite(f) || !(f > 0.0f));
    scene.state.x.push_back({f, -f, f * 0.5f});
    scene.state.v.push_back({0.0f, 0.0f, 0.0f});
    scene.model.mass.push_back(f);
    scene.model.pinned.push_back(i % 2);
  }
  expectRoundTrip(scene);
}

TEST(SceneJson, RoundTripKeepsOptionalFieldsOut) {
  Scene scene = makeVolume(3, {});
  scene.triangles.clear();
  scene.name.clear();
  std::string text = sceneToJson(scene);
  json doc = json::parse(text);
  EXPECT_FALSE(doc.contains("triangles"));
  EXPECT_FALSE(doc.contains("name"));
  EXPECT_FALSE(doc.contains("driven_particle"));
  expectRoundTrip(scene);
}

TEST(SceneJson, WritesOneParticlePerLine) {
  Scene scene = makeCloth(4, {});
  std::string text = sceneToJson(scene);
  EXPECT_NE(text.find("\n    {\"x\": [-0.5, 2.0, 0.0], \"v\": [0.0, 0.0, 0.0], \"m\": 0.0625, "
                      "\"pinned\": true},\n"),
            std::string::npos)
      << text.substr(0, 400);
}

TEST(SceneJson, DefaultsForOptionalFields) {
  const char* text = R"({"format": "hooke-scene", "version": 1,
                         "particles": [{"x": [1, 2, 3], "m": 2}]})";
  Scene scene;
  Status s = parseSceneJson(text, "min.json", &scene);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(scene.model.gravity, glm::vec3(0.0f, -9.81f, 0.0f));
  EXPECT_EQ(scene.model.drag, 0.0f);
  EXPECT_EQ(scene.state.v[0], glm::vec3(0.0f));
  EXPECT_EQ(scene.model.pinned[0], 0);
  EXPECT_EQ(scene.model.springCount(), 0u);
  EXPECT_TRUE(scene.triangles.empty());
  EXPECT_EQ(scene.driven_particle, -1);
  EXPECT_EQ(scene.name, "");
}

// a small valid scene the bad-input cases each break in one place
json validDoc() {
  return json::parse(R"({
    "format": "hooke-scene", "version": 1, "name": "four", "gravity": [0, -9.81, 0], "drag": 0.5,
    "particles": [{"x": [0, 2, 0], "m": 1, "pinned": true}, {"x": [0, 1, 0], "v": [0, 0, 0], "m": 1},
                  {"x": [1, 1, 0], "m": 1}, {"x": [1, 2, 0], "m": 2}],
    "springs": [{"i": 0, "j": 1, "rest": 1, "k": 100, "c": 0.1},
                {"i": 1, "j": 2, "rest": 1, "k": 100, "c": 0.1},
                {"i": 2, "j": 3, "rest": 1, "k": 100, "c": 0.1}],
    "triangles": [[0, 1, 2]], "driven_particle": 1})");
}

TEST(SceneJson, ValidDocParses) {
  Scene scene;
  Status s = parseSceneJson(validDoc().dump(), "scene.json", &scene);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(scene.name, "four");
  EXPECT_EQ(scene.model.particleCount(), 4u);
  EXPECT_EQ(scene.model.springCount(), 3u);
  EXPECT_EQ(scene.model.drag, 0.5f);
  EXPECT_EQ(scene.model.mass[3], 2.0f);
  EXPECT_EQ(scene.driven_particle, 1);
}

struct BadCase {
  const char* what;
  std::function<void(json&)> edit;
  std::vector<std::string> expected;  // substrings of the message
};

TEST(SceneJson, EveryBadFieldIsNamedInAOneLineMessage) {
  const std::vector<BadCase> cases = {
      {"negative free mass",
       [](json& d) { d["particles"][3]["m"] = -1; },
       {"scene.json: particles[3].m: ", "finite number > 0 for a free particle", "got -1"}},
      {"zero free mass",
       [](json& d) { d["particles"][2]["m"] = 0.0; },
       {"particles[2].m: ", "> 0", "got 0"}},
      {"negative pinned mass",
       [](json& d) { d["particles"][0]["m"] = -2; },
       {"particles[0].m: ", ">= 0", "got -2"}},
      {"mass of the wrong type",
       [](json& d) { d["particles"][2]["m"] = "heavy"; },
       {"particles[2].m: must be a number, got string \"heavy\""}},
      {"mass missing",
       [](json& d) { d["particles"][1].erase("m"); },
       {"particles[1]: missing field \"m\""}},
      {"position missing",
       [](json& d) { d["particles"][1].erase("x"); },
       {"particles[1]: missing field \"x\""}},
      {"short position",
       [](json& d) {
         d["particles"][1]["x"] = {1, 2};
       },
       {"particles[1].x: must be an array of 3 numbers"}},
      {"position component of the wrong type",
       [](json& d) { d["particles"][1]["x"][2] = "a"; },
       {"particles[1].x[2]: must be a number"}},
      {"velocity beyond float range",
       [](json& d) { d["particles"][1]["v"][1] = 1e39; },
       {"particles[1].v[1]: ", "float range"}},
      {"pinned not a bool",
       [](json& d) { d["particles"][1]["pinned"] = 1; },
       {"particles[1].pinned: must be true or false"}},
      {"unknown particle field",
       [](json& d) { d["particles"][1]["mass"] = 1; },
       {"particles[1]: unknown field \"mass\""}},
      {"moving pinned particle",
       [](json& d) {
         d["particles"][0]["v"] = {0, 1, 0};
       },
       {"particles[0].v: must be 0 for a pinned particle"}},
      {"particle not an object",
       [](json& d) { d["particles"][2] = 5; },
       {"particles[2]: must be an object"}},
      {"empty particle list",
       [](json& d) { d["particles"] = json::array(); },
       {"scene.json: particles: empty particle list"}},
      {"particles missing",
       [](json& d) { d.erase("particles"); },
       {"scene.json: missing field \"particles\""}},
      {"particles not an array",
       [](json& d) { d["particles"] = json::object(); },
       {"particles: must be an array"}},
      {"spring end out of range",
       [](json& d) { d["springs"][2]["j"] = 10; },
       {"scene.json: springs[2].j: index 10 out of range (4 particles)"}},
      {"spring start out of range",
       [](json& d) { d["springs"][1]["i"] = 4; },
       {"springs[1].i: index 4 out of range (4 particles)"}},
      {"fractional index",
       [](json& d) { d["springs"][1]["i"] = 1.5; },
       {"springs[1].i: must be a non-negative integer index, got number 1.5"}},
      {"integral float index",
       [](json& d) { d["springs"][1]["i"] = 1.0; },
       {"springs[1].i: must be a non-negative integer index"}},
      {"negative index",
       [](json& d) { d["springs"][1]["i"] = -1; },
       {"springs[1].i: must be a non-negative integer index, got number -1"}},
      {"index of the wrong type",
       [](json& d) { d["springs"][1]["i"] = "1"; },
       {"springs[1].i: must be an integer index, got string"}},
      {"huge index",
       [](json& d) { d["springs"][1]["j"] = 99999999999ull; },
       {"springs[1].j: index 99999999999 is too large"}},
      {"self-spring",
       [](json& d) { d["springs"][1]["j"] = 1; },
       {"springs[1]: i == j (self-spring on particle 1)"}},
      {"zero rest length",
       [](json& d) { d["springs"][0]["rest"] = 0; },
       {"springs[0].rest: ", "rest must be a finite number > 0", "got 0"}},
      {"negative rest length",
       [](json& d) { d["springs"][2]["rest"] = -0.5; },
       {"springs[2].rest: ", "got -0.5"}},
      {"negative stiffness",
       [](json& d) { d["springs"][0]["k"] = -5; },
       {"springs[0].k: k must be a finite number >= 0, got -5"}},
      {"negative damping",
       [](json& d) { d["springs"][2]["c"] = -0.1; },
       {"springs[2].c: c must be a finite number >= 0, got -0.1"}},
      {"stiffness beyond float range",
       [](json& d) { d["springs"][0]["k"] = 1e300; },
       {"springs[0].k: ", "float range"}},
      {"spring field missing",
       [](json& d) { d["springs"][0].erase("c"); },
       {"springs[0]: missing field \"c\""}},
      {"unknown spring field",
       [](json& d) { d["springs"][0]["L"] = 1; },
       {"springs[0]: unknown field \"L\""}},
      {"duplicate spring, reversed",
       [](json& d) {
         d["springs"].push_back({{"i", 2}, {"j", 1}, {"rest", 1}, {"k", 1}, {"c", 0}});
       },
       {"springs[3]: duplicate spring: springs[1] already joins particles 2 and 1"}},
      {"duplicate spring, same order",
       [](json& d) { d["springs"].insert(d["springs"].begin(), d["springs"][2]); },
       {"springs[3]: duplicate spring: springs[0]"}},
      {"springs not an array", [](json& d) { d["springs"] = 3; }, {"springs: must be an array"}},
      {"unknown format",
       [](json& d) { d["format"] = "obj"; },
       {"scene.json: format: unknown format string \"obj\""}},
      {"format missing", [](json& d) { d.erase("format"); }, {"missing field \"format\""}},
      {"future version",
       [](json& d) { d["version"] = 2; },
       {"scene.json: version: unsupported version number 2"}},
      {"version as a string",
       [](json& d) { d["version"] = "1"; },
       {"version: unsupported version string \"1\""}},
      {"gravity component of the wrong type",
       [](json& d) { d["gravity"][1] = "down"; },
       {"scene.json: gravity[1]: must be a number"}},
      {"gravity too short",
       [](json& d) {
         d["gravity"] = {0, -9.81};
       },
       {"gravity: must be an array of 3 numbers"}},
      {"negative drag",
       [](json& d) { d["drag"] = -1; },
       {"scene.json: drag: must be a finite number >= 0, got -1"}},
      {"name of the wrong type", [](json& d) { d["name"] = 5; }, {"name: must be a string"}},
      {"triangle index out of range",
       [](json& d) {
         d["triangles"][0] = {0, 1, 9};
       },
       {"triangles[0][2]: index 9 out of range (4 particles)"}},
      {"short triangle",
       [](json& d) {
         d["triangles"][0] = {0, 1};
       },
       {"triangles[0]: must be an array of 3 indices"}},
      {"driven particle out of range",
       [](json& d) { d["driven_particle"] = 7; },
       {"driven_particle: index 7 out of range"}},
      {"driven particle below -1",
       [](json& d) { d["driven_particle"] = -2; },
       {"driven_particle: index -2 out of range"}},
      {"driven particle not an integer",
       [](json& d) { d["driven_particle"] = 0.5; },
       {"driven_particle: must be an integer"}},
      {"unknown top-level field",
       [](json& d) { d["gravitty"] = 1; },
       {"scene.json: unknown field \"gravitty\""}},
      {"top level not an object",
       [](json& d) {
         d = json::array({1, 2});
       },
       {"scene.json: expected a hooke-scene object at the top level, got array"}},
  };
  for (const BadCase& c : cases) {
    json doc = validDoc();
    c.edit(doc);
    Scene scene;
    scene.name = "untouched";
    Status s = parseSceneJson(doc.dump(2), "scene.json", &scene);
    ASSERT_FALSE(s) << c.what;
    EXPECT_EQ(s.message().find('\n'), std::string::npos) << c.what << ": " << s.message();
    for (const std::string& part : c.expected) {
      EXPECT_NE(s.message().find(part), std::string::npos)
          << c.what << ": '" << s.message() << "' lacks '" << part << "'";
    }
    EXPECT_EQ(scene.name, "untouched") << c.what << ": *out changed on failure";
  }
}

// the message of parsing text, which must fail
std::string failure(const std::string& text) {
  Scene scene;
  Status s = parseSceneJson(text, "scene.json", &scene);
  EXPECT_FALSE(s) << text;
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
  return s.message();
}

TEST(SceneJson, SyntaxErrorsGiveLineAndColumn) {
  // a missing comma: the error is at the '{' that starts line 4, column 3
  std::string m =
      failure("{\n  \"format\": \"hooke-scene\",\n  \"particles\": [{\"x\": [0,0,0]}\n  {}]\n}");
  EXPECT_NE(m.find("scene.json:4:3: "), std::string::npos) << m;
  EXPECT_NE(m.find("syntax error"), std::string::npos) << m;
  EXPECT_EQ(m.find("[json.exception"), std::string::npos) << m;

  // non-finite numbers are not json
  m = failure("{\"format\": \"hooke-scene\",\n \"version\": 1,\n \"drag\": NaN}");
  EXPECT_NE(m.find("scene.json:3:"), std::string::npos) << m;
  m = failure("{\"format\": \"hooke-scene\", \"version\": 1, \"drag\": Infinity}");
  EXPECT_NE(m.find("scene.json:1:"), std::string::npos) << m;

  // a number beyond double range is located by its text
  m = failure("{\"format\": \"hooke-scene\",\n\"version\": 1,\n  \"drag\": 1e999}");
  EXPECT_NE(m.find("scene.json:3:11: "), std::string::npos) << m;
  EXPECT_NE(m.find("1e999"), std::string::npos) << m;

  // the end of the input
  m = failure("{\"format\": \"hooke-scene\",\n");
  EXPECT_NE(m.find("scene.json:2:1: "), std::string::npos) << m;
  m = failure("");
  EXPECT_NE(m.find("scene.json:1:1: "), std::string::npos) << m;

  // trailing garbage and invalid UTF-8
  m = failure("{}\n\nx");
  EXPECT_NE(m.find("scene.json:3:1: "), std::string::npos) << m;
  m = failure("{\"name\": \"\xff\"}");
  EXPECT_NE(m.find("scene.json:1:"), std::string::npos) << m;
}

TEST(SceneJson, EveryTruncationFailsCleanly) {
  // no prefix of a valid document crashes or passes (the full text passes)
  const std::string text = sceneToJson(makeSpring1d({}));
  for (size_t length = 0; length < text.size(); ++length) {
    std::string prefix = text.substr(0, length);
    if (prefix.find_last_not_of(" \n") != std::string::npos &&
        prefix[prefix.find_last_not_of(" \n")] == '}' &&
        text.find_first_not_of(" \n", length) == std::string::npos) {
      continue;  // only whitespace cut off
    }
    Scene scene;
    Status s = parseSceneJson(prefix, "cut.json", &scene);
    EXPECT_FALSE(s) << "prefix of " << length << " bytes parsed";
    EXPECT_EQ(s.message().rfind("cut.json:", 0), 0u) << s.message();
  }
}

TEST(SceneJson, SyntaxErrorFixtureThroughLoadSceneFile) {
  const std::string path = std::string(HOOKE_TEST_DATA_DIR) + "/syntax_error.json";
  Scene scene;
  Status s = loadSceneFile(path, {}, &scene);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(path + ":7:5: "), std::string::npos) << s.message();
}

TEST(SceneJsonLoadFile, LoadsAHandWrittenScene) {
  Scene scene;
  Status s = loadSceneFile(std::string(HOOKE_TEST_DATA_DIR) + "/spring1d.json", {}, &scene);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(scene.name, "hand-written spring1d");
  EXPECT_EQ(scene.model.particleCount(), 2u);
  EXPECT_EQ(scene.state.v[1], glm::vec3(0.0f, -0.5f, 0.0f));
  EXPECT_EQ(scene.model.mass[1], 0.25f);
  EXPECT_EQ(scene.driven_particle, 1);
}

TEST(SceneJsonLoadFile, AppliesTheMaterialToJson) {
  Material material;
  material.stiffness = 50.0f;
  material.mass = 3.0f;
  Scene scene;
  Status s = loadSceneFile(std::string(HOOKE_TEST_DATA_DIR) + "/spring1d.json", material, &scene);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(scene.model.stiffness[0], 50.0f);
  EXPECT_EQ(scene.model.damping[0], 0.1f);  // unset: the file's value
  EXPECT_EQ(scene.model.mass[1], 3.0f);
  EXPECT_EQ(scene.model.mass[0], 1.0f);  // pinned: unchanged
}

TEST(SceneJsonLoadFile, DispatchesOnExtension) {
  Scene scene;
  Status s = loadSceneFile("scene.obj", {}, &scene);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("scene.obj: unknown scene file type '.obj'"), std::string::npos)
      << s.message();
  s = loadSceneFile("noextension", {}, &scene);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("expected .json or .node"), std::string::npos) << s.message();
  s = loadSceneFile(std::string(HOOKE_TEST_DATA_DIR) + "/cube.ele", {}, &scene);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(".node"), std::string::npos) << s.message();
  s = loadSceneFile(std::string(HOOKE_TEST_DATA_DIR) + "/cube.node", {}, &scene);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(scene.model.particleCount(), 8u);
}

TEST(SceneJsonLoadFile, MissingFileNamesThePath) {
  Scene scene;
  Status s = loadSceneFile("/nonexistent/dir/scene.json", {}, &scene);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("/nonexistent/dir/scene.json"), std::string::npos) << s.message();
}

TEST(SceneJsonValidate, BuiltInScenesAreValid) {
  for (const Scene& scene : {makeCloth(8, {}), makeVolume(5, {}), makeSpring1d({})}) {
    Status s = validateScene(scene, scene.name);
    EXPECT_TRUE(s) << s.message();
  }
}

TEST(SceneJsonValidate, ReportsMismatchedArraysAndBadValues) {
  Scene scene = makeCloth(4, {});
  scene.model.pinned.pop_back();
  Status s = validateScene(scene, "cloth");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cloth: particle arrays differ in size"), std::string::npos)
      << s.message();

  scene = makeCloth(4, {});
  scene.model.damping.push_back(0.0f);
  s = validateScene(scene, "cloth");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("spring arrays differ in size"), std::string::npos) << s.message();

  scene = makeCloth(4, {});
  scene.state.x[5].y = std::numeric_limits<float>::quiet_NaN();
  s = validateScene(scene, "cloth");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cloth: particles[5].x: must be finite"), std::string::npos)
      << s.message();

  scene = makeCloth(4, {});
  scene.model.stiffness[7] = std::numeric_limits<float>::infinity();
  s = validateScene(scene, "cloth");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cloth: springs[7].k: k must be a finite number >= 0, got inf"),
            std::string::npos)
      << s.message();

  scene = makeCloth(4, {});
  scene.model.gravity.x = std::numeric_limits<float>::infinity();
  s = validateScene(scene, "cloth");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cloth: gravity: must be finite"), std::string::npos) << s.message();

  Scene empty;
  s = validateScene(empty, "nothing");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("nothing: particles: empty particle list"), std::string::npos)
      << s.message();
}

TEST(SceneJsonValidate, FindsTheFirstDuplicateAmongMany) {
  Scene scene = makeVolume(4, {});
  const size_t m = scene.model.springCount();
  Scene copy = scene;
  // repeat spring 10 reversed at the end, and spring 3 twice after it
  glm::uvec2 ends = scene.model.spring_ends[10];
  addSpring(copy, ends.y, ends.x, 1.0f, 0.0f);
  ends = scene.model.spring_ends[3];
  addSpring(copy, ends.x, ends.y, 1.0f, 0.0f);
  addSpring(copy, ends.x, ends.y, 1.0f, 0.0f);
  Status s = validateScene(copy, "volume");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("springs[" + std::to_string(m) + "]: duplicate spring: springs[10]"),
            std::string::npos)
      << s.message();
}

TEST(SceneJson, MaterialOverridesChangeOnlyWhatIsSet) {
  Scene scene = makeCloth(4, {});
  Scene original = scene;
  applyMaterialOverrides({}, &scene);
  expectIdentical(scene, original);

  Material material;
  material.stiffness = 7.0f;
  material.damping = 0.5f;
  material.mass = 0.25f;
  material.drag = 0.125f;
  applyMaterialOverrides(material, &scene);
  for (float k : scene.model.stiffness)
    EXPECT_EQ(k, 7.0f);
  for (float c : scene.model.damping)
    EXPECT_EQ(c, 0.5f);
  for (size_t i = 0; i < scene.model.particleCount(); ++i) {
    EXPECT_EQ(scene.model.mass[i], scene.model.pinned[i] ? original.model.mass[i] : 0.25f);
  }
  EXPECT_EQ(scene.model.drag, 0.125f);
  Scene once = scene;
  applyMaterialOverrides(material, &scene);
  expectIdentical(scene, once);  // applying twice changes nothing more
  EXPECT_TRUE(validateScene(scene, "cloth"));
}

}  // namespace
}  // namespace hooke
