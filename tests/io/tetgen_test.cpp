// Tests of io/scene_file's TetGen loader: the torus asset (springs, masses, pins, closed outward
// surface), small hand-made meshes, and one-line errors with file and line for bad files.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "io/scene_file.h"

namespace hooke {
namespace {

namespace fs = std::filesystem;

const std::string kData = HOOKE_TEST_DATA_DIR;
const std::string kTorus = std::string(HOOKE_ASSETS_DIR) + "/torus.node";

// the tets of a .ele file, read independently of the loader (first 4 nodes, 0-based)
std::vector<std::array<uint32_t, 4>> readTets(const std::string& path, uint32_t node_base) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::array<uint32_t, 4>> tets;
  size_t count = 0, per_tet = 0, attributes = 0;
  bool header = false;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    if (!header) {
      if (fields >> count >> per_tet >> attributes) header = true;
      continue;
    }
    size_t index;
    std::array<uint32_t, 4> tet;
    if (!(fields >> index >> tet[0] >> tet[1] >> tet[2] >> tet[3])) continue;
    for (uint32_t& node : tet)
      node -= node_base;
    tets.push_back(tet);
  }
  EXPECT_EQ(tets.size(), count);
  return tets;
}

double tetVolume(const Scene& scene, const std::array<uint32_t, 4>& t) {
  glm::dvec3 a(scene.state.x[t[0]]), b(scene.state.x[t[1]]), c(scene.state.x[t[2]]),
      d(scene.state.x[t[3]]);
  return std::fabs(glm::dot(b - a, glm::cross(c - a, d - a))) / 6.0;
}

// the volume enclosed by the surface triangles (divergence theorem); > 0 when wound outwards
double enclosedVolume(const Scene& scene) {
  double volume = 0.0;
  for (const glm::uvec3& t : scene.triangles) {
    glm::dvec3 a(scene.state.x[t.x]), b(scene.state.x[t.y]), c(scene.state.x[t.z]);
    volume += glm::dot(a, glm::cross(b, c)) / 6.0;
  }
  return volume;
}

// every directed surface edge appears once and its reverse once: closed and consistently wound
void expectClosedSurface(const Scene& scene) {
  std::map<std::pair<uint32_t, uint32_t>, int> directed;
  for (const glm::uvec3& t : scene.triangles) {
    ++directed[{t.x, t.y}];
    ++directed[{t.y, t.z}];
    ++directed[{t.z, t.x}];
  }
  for (const auto& [edge, count] : directed) {
    EXPECT_EQ(count, 1) << "edge " << edge.first << "-" << edge.second;
    auto reverse = directed.find({edge.second, edge.first});
    ASSERT_NE(reverse, directed.end()) << "edge " << edge.first << "-" << edge.second << " open";
    EXPECT_EQ(reverse->second, 1);
  }
}

float totalMass(const Scene& scene) {
  double sum = 0.0;
  for (float m : scene.model.mass)
    sum += m;
  return static_cast<float>(sum);
}

void expectRestLengthsAreInitialLengths(const Scene& scene) {
  for (size_t k = 0; k < scene.model.springCount(); ++k) {
    glm::uvec2 e = scene.model.spring_ends[k];
    EXPECT_EQ(scene.model.rest_length[k], glm::length(scene.state.x[e.y] - scene.state.x[e.x]))
        << "spring " << k;
  }
}

TEST(TetGen, TorusAssetLoads) {
  Scene scene;
  Status s = loadTetGen(kTorus, {}, &scene);
  ASSERT_TRUE(s) << s.message();
  const size_t n = scene.model.particleCount();
  ASSERT_GT(n, 0u);
  EXPECT_EQ(scene.name, "torus");
  EXPECT_EQ(scene.state.x.size(), n);
  EXPECT_EQ(scene.state.v, std::vector<glm::vec3>(n, glm::vec3(0.0f)));
  EXPECT_TRUE(validateScene(scene, "torus"));

  // springs: exactly the unique tet edges
  const auto tets = readTets(std::string(HOOKE_ASSETS_DIR) + "/torus.ele", 0);
  std::set<std::pair<uint32_t, uint32_t>> edges;
  for (const auto& t : tets) {
    for (int a = 0; a < 4; ++a) {
      for (int b = a + 1; b < 4; ++b)
        edges.insert(std::minmax(t[a], t[b]));
    }
  }
  ASSERT_EQ(scene.model.springCount(), edges.size());
  std::set<std::pair<uint32_t, uint32_t>> springs;
  for (glm::uvec2 e : scene.model.spring_ends)
    springs.insert(std::minmax(e.x, e.y));
  EXPECT_EQ(springs, edges);
  expectRestLengthsAreInitialLengths(scene);
  const SceneDefaults defaults = *builtinDefaults("volume");
  for (float k : scene.model.stiffness)
    EXPECT_EQ(k, defaults.stiffness);
  for (float c : scene.model.damping)
    EXPECT_EQ(c, defaults.damping);

  // masses: positive, summing to the volume scene's default
  for (float m : scene.model.mass)
    EXPECT_GT(m, 0.0f);
  EXPECT_NEAR(totalMass(scene), defaults.mass, 1e-4 * defaults.mass);

  // pins: some, all in the top 5 % of the height and none below it
  float lo = scene.state.x[0].y, hi = lo;
  for (glm::vec3 x : scene.state.x) {
    lo = std::min(lo, x.y);
    hi = std::max(hi, x.y);
  }
  size_t pinned = 0;
  for (size_t i = 0; i < n; ++i) {
    bool top = scene.state.x[i].y >= hi - 0.05f * (hi - lo);
    EXPECT_EQ(scene.model.pinned[i] != 0, top) << "particle " << i;
    pinned += scene.model.pinned[i];
  }
  EXPECT_GT(pinned, 0u);
  EXPECT_LT(pinned, n / 4);
  // the torus sits where the other scenes do: top at y = 2 m
  EXPECT_NEAR(hi, 2.0f, 1e-4f);

  // surface: closed, wound outwards, enclosing the tets' volume
  ASSERT_FALSE(scene.triangles.empty());
  expectClosedSurface(scene);
  double tet_volume = 0.0;
  for (const auto& t : tets)
    tet_volume += tetVolume(scene, t);
  const double surface_volume = enclosedVolume(scene);
  EXPECT_GT(surface_volume, 0.0);
  EXPECT_NEAR(surface_volume, tet_volume, 1e-6 * tet_volume);
  // close to the ideal torus 2 pi² R r² (R = 0.5, r = 0.2) the mesh approximates
  const double ideal = 2.0 * std::numbers::pi * std::numbers::pi * 0.5 * 0.2 * 0.2;
  EXPECT_NEAR(tet_volume, ideal, 0.1 * ideal);
}

TEST(TetGen, TorusUsesTheMaterial) {
  Material material;
  material.stiffness = 500.0f;
  material.damping = 2.0f;
  material.mass = 7.5f;
  material.drag = 0.25f;
  Scene scene;
  Status s = loadTetGen(kTorus, material, &scene);
  ASSERT_TRUE(s) << s.message();
  for (float k : scene.model.stiffness)
    EXPECT_EQ(k, 500.0f);
  for (float c : scene.model.damping)
    EXPECT_EQ(c, 2.0f);
  EXPECT_NEAR(totalMass(scene), 7.5f, 1e-4 * 7.5f);
  EXPECT_EQ(scene.model.drag, 0.25f);
}

TEST(TetGen, CubeOfFiveTetsNumberedFromOne) {
  Material material;
  material.mass = 3.0f;
  Scene scene;
  Status s = loadTetGen(kData + "/cube.node", material, &scene);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(scene.name, "cube");
  ASSERT_EQ(scene.model.particleCount(), 8u);
  EXPECT_EQ(scene.state.x[5], glm::vec3(1.0f, 0.0f, 1.0f));  // point 6 in the file
  EXPECT_EQ(scene.model.springCount(), 18u);                 // 12 edges + 6 face diagonals
  EXPECT_EQ(scene.triangles.size(), 12u);                    // 2 per face
  expectClosedSurface(scene);
  EXPECT_NEAR(enclosedVolume(scene), 1.0, 1e-12);
  expectRestLengthsAreInitialLengths(scene);

  // the central tet (points 2, 3, 5, 8; volume 1/3) adds to the corners of the diagonals, so
  // its nodes get (1/3 + 3/6) / 4 and the others 1/6 / 4, of a total volume 1 scaled to 3 kg
  for (size_t i = 0; i < 8; ++i) {
    bool central = i == 1 || i == 2 || i == 4 || i == 7;
    float expected = 3.0f * (central ? (1.0f / 3.0f + 0.5f) / 4.0f : (1.0f / 6.0f) / 4.0f);
    EXPECT_NEAR(scene.model.mass[i], expected, 1e-6f) << "particle " << i;
    EXPECT_EQ(scene.model.pinned[i] != 0, scene.state.x[i].y == 1.0f) << "particle " << i;
  }
}

TEST(TetGen, OneTetNumberedFromZeroWithCommentsAttributesAndMarkers) {
  Scene scene;
  Status s = loadTetGen(kData + "/tet_one.node", {}, &scene);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(scene.model.particleCount(), 4u);
  EXPECT_EQ(scene.state.x[3], glm::vec3(0.25f, 1.0f, 0.25f));
  EXPECT_EQ(scene.model.springCount(), 6u);
  EXPECT_EQ(scene.triangles.size(), 4u);
  expectClosedSurface(scene);
  EXPECT_NEAR(enclosedVolume(scene), 1.0 / 6.0, 1e-7);
  EXPECT_EQ(scene.model.pinned, (std::vector<uint8_t>{0, 0, 0, 1}));
  for (float m : scene.model.mass)
    EXPECT_NEAR(m, 0.5f, 1e-6f);  // default 2 kg / 4
}

TEST(TetGen, ExportedTorusRoundTripsThroughJson) {
  Scene scene;
  ASSERT_TRUE(loadTetGen(kTorus, {}, &scene));
  Scene back;
  Status s = parseSceneJson(sceneToJson(scene), "torus.json", &back);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(back.triangles, scene.triangles);
  EXPECT_EQ(back.model.spring_ends, scene.model.spring_ends);
  EXPECT_EQ(back.model.mass, scene.model.mass);
  EXPECT_EQ(back.state.x, scene.state.x);
}

TEST(TetGen, TruncatedFilesGiveTheLine) {
  Scene scene;
  Status s = loadTetGen(kData + "/truncated_points.node", {}, &scene);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("truncated_points.node:7: expected 8 points, file ends after 5"),
            std::string::npos)
      << s.message();

  s = loadTetGen(kData + "/short_line.node", {}, &scene);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("short_line.ele:5: expected 5 values, got 3"), std::string::npos)
      << s.message();

  s = loadTetGen(kData + "/short_file.node", {}, &scene);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("short_file.ele:4: expected 5 tetrahedra, file ends after 2"),
            std::string::npos)
      << s.message();
}

// writes name.node and name.ele into a fresh directory and loads them
class TetGenFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hooke_tetgen_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // the message of loading node/ele texts, which must fail
  std::string failure(const std::string& node, const std::string& ele) {
    std::string path = write("mesh.node", node);
    if (!ele.empty()) write("mesh.ele", ele);
    Scene scene;
    Status s = loadTetGen(path, {}, &scene);
    EXPECT_FALSE(s) << node << "\n--\n" << ele;
    EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
    return s.message();
  }

  fs::path dir_;
};

const char* kOneTetNode = "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n";
const char* kOneTetEle = "1 4 0\n0 0 1 2 3\n";

TEST_F(TetGenFiles, GoodFilesLoad) {
  std::string path = write("mesh.node", kOneTetNode);
  write("mesh.ele", kOneTetEle);
  Scene scene;
  Status s = loadTetGen(path, {}, &scene);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(scene.name, "mesh");
  EXPECT_EQ(scene.model.springCount(), 6u);
}

TEST_F(TetGenFiles, TenNodeTetsUseTheirCorners) {
  // 10 nodes per tet: corners first, then (here arbitrary) edge nodes
  std::string path =
      write("mesh.node", "5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 0.5 0.5 0.5\n");
  write("mesh.ele", "1 10 0\n1 1 2 3 4 5 5 5 5 5 5\n");
  Scene scene;
  Status s = loadTetGen(path, {}, &scene);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(scene.model.particleCount(), 5u);
  EXPECT_EQ(scene.model.springCount(), 6u);
  // the unused node gets the mean mass, and the total stays the material's
  EXPECT_NEAR(scene.model.mass[4], scene.model.mass[0], 1e-6f);
  EXPECT_NEAR(totalMass(scene), builtinDefaults("volume")->mass, 1e-5f);
}

TEST_F(TetGenFiles, MissingFilesNameThePath) {
  Scene scene;
  const std::string node = (dir_ / "absent.node").string();
  Status s = loadTetGen(node, {}, &scene);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(node), std::string::npos) << s.message();

  std::string path = write("lonely.node", kOneTetNode);
  s = loadTetGen(path, {}, &scene);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find((dir_ / "lonely.ele").string()), std::string::npos) << s.message();
}

TEST_F(TetGenFiles, BadNodeFilesGiveFileLineAndProblem) {
  EXPECT_NE(failure("", kOneTetEle).find("mesh.node:1: empty file"), std::string::npos);
  EXPECT_NE(failure("# only a comment\n\n", kOneTetEle).find("mesh.node:2: empty file"),
            std::string::npos);
  EXPECT_NE(failure("4 2 0 0\n", kOneTetEle).find("mesh.node:1: dimension must be 3, got 2"),
            std::string::npos);
  EXPECT_NE(failure("4 3 0 2\n", kOneTetEle).find("mesh.node:1: boundary marker count"),
            std::string::npos);
  EXPECT_NE(failure("0 3 0 0\n", kOneTetEle).find("mesh.node:1: no points"), std::string::npos);
  EXPECT_NE(failure("99999999999 3 0 0\n", kOneTetEle).find("mesh.node:1: too many points"),
            std::string::npos);
  EXPECT_NE(failure("four 3 0 0\n", kOneTetEle).find("mesh.node:1: 'four' is not an integer"),
            std::string::npos);
  EXPECT_NE(failure("4 3 0 0 7\n", kOneTetEle).find("mesh.node:1: header has 5 values"),
            std::string::npos);
  EXPECT_NE(failure("4 3 0 0\n0 0 0 0\n1 1 abc 0\n2 0 1 0\n3 0 0 1\n", kOneTetEle)
                .find("mesh.node:3: 'abc' is not a number"),
            std::string::npos);
  EXPECT_NE(failure("4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 nan 0\n3 0 0 1\n", kOneTetEle)
                .find("mesh.node:4: coordinate nan is not a finite float"),
            std::string::npos);
  EXPECT_NE(failure("4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1e39 0\n3 0 0 1\n", kOneTetEle)
                .find("mesh.node:4: coordinate 1e39 is not a finite float"),
            std::string::npos);
  EXPECT_NE(failure("4 3 0 0\n0 0 0 0\n1 1 0 0 0\n2 0 1 0\n3 0 0 1\n", kOneTetEle)
                .find("mesh.node:3: expected 4 values, got 5"),
            std::string::npos);
  EXPECT_NE(failure("4 3 0 0\n2 0 0 0\n3 1 0 0\n4 0 1 0\n5 0 0 1\n", kOneTetEle)
                .find("mesh.node:2: the first point index must be 0 or 1, got 2"),
            std::string::npos);
  EXPECT_NE(failure("4 3 0 0\n0 0 0 0\n1 1 0 0\n3 0 1 0\n2 0 0 1\n", kOneTetEle)
                .find("mesh.node:4: point index 3 out of sequence (expected 2)"),
            std::string::npos);
  EXPECT_NE(failure("4 3 1 1\n0 0 0 0 1.5 1\n1 1 0 0 x 1\n", kOneTetEle)
                .find("mesh.node:3: 'x' is not a number"),
            std::string::npos);
}

TEST_F(TetGenFiles, BadEleFilesGiveFileLineAndProblem) {
  EXPECT_NE(failure(kOneTetNode, "1 4 0\n0 0 1 2 4\n")
                .find("mesh.ele:2: node 4 out of range (nodes are numbered 0..3)"),
            std::string::npos);
  EXPECT_NE(failure("4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", "1 4 0\n1 0 1 2 3\n")
                .find("mesh.ele:2: node 0 out of range (nodes are numbered 1..4)"),
            std::string::npos);
  EXPECT_NE(failure(kOneTetNode, "1 4 0\n0 0 1 2 -1\n").find("mesh.ele:2: node -1 out of range"),
            std::string::npos);
  EXPECT_NE(failure(kOneTetNode, "1 4 0\n0 0 1 2 2.5\n")
                .find("mesh.ele:2: '2.5' is not an integer node index"),
            std::string::npos);
  EXPECT_NE(failure(kOneTetNode, "1 5 0\n0 0 1 2 3 3\n")
                .find("mesh.ele:1: nodes per tetrahedron must be 4 or 10, got 5"),
            std::string::npos);
  EXPECT_NE(failure(kOneTetNode, "1 4 0\n0 0 1 2 1\n")
                .find("mesh.ele:2: tetrahedron 0 uses node 1 twice"),
            std::string::npos);
  EXPECT_NE(failure("4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 1 0 0\n", kOneTetEle)
                .find("mesh.ele:2: tetrahedron 0: edge 1-3 has zero length"),
            std::string::npos);
  EXPECT_NE(failure(kOneTetNode, "2 4 0\n0 0 1 2 3\n2 0 1 2 3\n")
                .find("mesh.ele:3: tetrahedron index 2 out of sequence (expected 1)"),
            std::string::npos);
  EXPECT_NE(failure(kOneTetNode, "0 4 0\n").find("mesh.ele:1: no tetrahedra"), std::string::npos);
  EXPECT_NE(failure(kOneTetNode, "99999999999 4 0\n").find("mesh.ele:1: too many tetrahedra"),
            std::string::npos);
  EXPECT_NE(failure(kOneTetNode, "1 4 0\n# the end\n")
                .find("mesh.ele:2: expected 1 tetrahedra, file ends after 0"),
            std::string::npos);
  // a flat tet alone has no volume to share out
  EXPECT_NE(failure("4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 1 1 0\n", kOneTetEle)
                .find("mesh.ele: every tetrahedron has zero volume"),
            std::string::npos);
}

TEST_F(TetGenFiles, EveryTruncationFailsCleanly) {
  // any prefix of cube.ele (past its header) fails with a message, never a crash
  std::ifstream in(kData + "/cube.ele");
  std::string ele((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ifstream in_node(kData + "/cube.node");
  std::string node((std::istreambuf_iterator<char>(in_node)), std::istreambuf_iterator<char>());
  std::string path = write("mesh.node", node);
  for (size_t length = 0; length + 1 < ele.size(); ++length) {
    write("mesh.ele", ele.substr(0, length));
    Scene scene;
    Status s = loadTetGen(path, {}, &scene);
    EXPECT_FALSE(s) << "prefix of " << length << " bytes loaded";
    EXPECT_NE(s.message().find("mesh.ele"), std::string::npos) << s.message();
  }
  for (size_t length = 0; length + 1 < node.size(); ++length) {
    write("mesh.node", node.substr(0, length));
    write("mesh.ele", ele);
    Scene scene;
    Status s = loadTetGen(path, {}, &scene);
    EXPECT_FALSE(s) << "prefix of " << length << " bytes loaded";
  }
}

}  // namespace
}  // namespace hooke
