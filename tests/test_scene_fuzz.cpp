// Fuzzing the scene parser from every shipped scene: byte mutations of the text and
// mutations of the parsed JSON. Each mutant is either a scene within every documented
// range, whose particles build (or are refused for memory) without crashing, or a
// SceneError with a one-line message; nothing else may come out.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sim/scene.h"

using namespace tp;
using nlohmann::json;

namespace {

const char* kScenes = TIDEPOOL_SOURCE_DIR "/assets/scenes";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool less(Vec3 a, Vec3 b) { return a.x < b.x && a.y < b.y && a.z < b.z; }
bool within(Vec3 p, Vec3 lo, Vec3 hi) {
  return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
}
bool bounded(Vec3 v, float limit) {
  return finite(v) && std::fabs(v.x) <= limit && std::fabs(v.y) <= limit && std::fabs(v.z) <= limit;
}

// Why an accepted scene breaks a documented range, or "" when it is valid.
std::string invalid(const Scene& s) {
  if (!bounded(s.tank_lo, 1e4f) || !bounded(s.tank_hi, 1e4f) || !less(s.tank_lo, s.tank_hi))
    return "tank";
  if (!(s.spacing >= 1e-4f && s.spacing <= 10.0f)) return "particle_spacing";
  if (s.blocks.size() > kMaxSceneItems || s.spheres.size() > kMaxSceneItems)
    return "too many shapes";
  for (const FluidBlock& b : s.blocks)
    if (!bounded(b.lo, 1e4f) || !bounded(b.hi, 1e4f) || !less(b.lo, b.hi) ||
        !bounded(b.velocity, 100))
      return "block";
  for (const FluidSphere& b : s.spheres)
    if (!bounded(b.center, 1e4f) || !(b.radius > 0 && b.radius <= 1e4f) ||
        !bounded(b.velocity, 100))
      return "sphere";
  const Vec3 e = s.tank_hi - s.tank_lo;
  const float largest = std::max({e.x, e.y, e.z});
  if (s.emitters.size() > kMaxEmitters) return "too many emitters";
  for (const Emitter& m : s.emitters) {
    if (!finite(m.position) || !within(m.position, s.tank_lo, s.tank_hi)) return "emitter position";
    const float speed = length(m.velocity);
    if (!(speed >= kMinEmitterSpeed && speed <= kMaxEmitterSpeed)) return "emitter speed";
    if (m.shape == 0 && !(m.radius > 0 && m.radius <= largest)) return "emitter radius";
    if (m.shape == 1 && !(m.width > 0 && m.width <= largest && m.height > 0 && m.height <= largest))
      return "emitter size";
    if (m.shape != 0 && m.shape != 1) return "emitter shape";
    if (!(m.rate >= 0 && m.rate <= 1e9f)) return "emitter rate";
    if (!(m.start >= 0 && m.start <= 1e6f)) return "emitter start";
    if (!(m.stop == -1.0f || (m.stop > m.start && m.stop <= 1e6f))) return "emitter stop";
  }
  if (s.outflows.size() > kMaxOutflows) return "too many outflows";
  for (const Outflow& o : s.outflows)
    if (!bounded(o.lo, 1e4f) || !bounded(o.hi, 1e4f) || !less(o.lo, o.hi) ||
        !less(o.lo, s.tank_hi) || !less(s.tank_lo, o.hi))
      return "outflow";
  if (s.obstacles.size() > size_t(kMaxObstacles)) return "too many obstacles";
  for (const ObstacleShape& o : s.obstacles) {
    if (!finite(o.center) || !within(o.center, s.tank_lo, s.tank_hi)) return "obstacle center";
    if (o.kind == int(ShapeKind::Sphere) && !(o.radius > 0 && o.radius <= largest))
      return "obstacle radius";
    if (o.kind == int(ShapeKind::Box) && !(o.half_extent.x > 0 && o.half_extent.y > 0 &&
                                           o.half_extent.z > 0 && bounded(o.half_extent, largest)))
      return "obstacle size";
    if (o.kind != int(ShapeKind::Sphere) && o.kind != int(ShapeKind::Box)) return "obstacle kind";
    if (!(o.velocity.x == 0 && o.velocity.y == 0 && o.velocity.z == 0)) return "obstacle velocity";
  }
  if (s.max_particles != 0 &&
      (s.max_particles < kMinMaxParticles || s.max_particles > kMaxParticles))
    return "max_particles";
  if (s.emitters.empty() && !(fluid_volume(s) > 0)) return "no water";
  if (!bounded(s.camera.target, 1e4f) ||
      !(s.camera.distance >= 0.01f && s.camera.distance <= 1e4f) ||
      !(s.camera.yaw >= -360 && s.camera.yaw <= 360) ||
      !(s.camera.pitch >= -89 && s.camera.pitch <= 89))
    return "camera";
  return "";
}

struct Tally {
  int run = 0, accepted = 0, syntax = 0, validation = 0, built = 0, refused_to_build = 0;
};

// Parses one mutant and checks what comes out; builds the particles of an accepted scene
// at twice its spacing (to keep the test fast) in a 64 MB budget.
void check(const std::string& text, Tally& tally) {
  ++tally.run;
  Scene scene;
  try {
    scene = parse_scene(text, "fuzz.json");
  } catch (const SceneError& e) {
    const std::string what = e.what();
    ASSERT_EQ(what.rfind("scene file 'fuzz.json'", 0), 0u) << what;
    ASSERT_GT(what.size(), std::string("scene file 'fuzz.json': ").size()) << what;
    ASSERT_EQ(what.find_first_of("\n\r"), std::string::npos) << what;
    ASSERT_EQ(what.find("unexpected JSON content"), std::string::npos)
        << "a wrong type reached nlohmann instead of the Reader: " << what << "\n"
        << text.substr(0, 2000);
    const bool syntax =
        what.find("': JSON ") != std::string::npos || what.find("' is ") != std::string::npos;
    ++(syntax ? tally.syntax : tally.validation);
    return;
  } catch (const std::exception& e) {
    FAIL() << "parse_scene threw something else than SceneError: " << e.what() << "\n"
           << text.substr(0, 2000);
  }
  ++tally.accepted;
  const std::string why = invalid(scene);
  ASSERT_EQ(why, "") << "accepted an invalid scene:\n" << text.substr(0, 2000);
  const float spacing = 2.0f * scene.spacing;
  InitialState st;
  try {
    st = build_initial_state(scene, spacing, 64'000'000);
  } catch (const SceneError& e) {
    ++tally.refused_to_build;
    return;
  } catch (const std::exception& e) {
    FAIL() << "build_initial_state threw something else than SceneError: " << e.what();
  }
  ++tally.built;
  ASSERT_TRUE(!st.fluid.empty() || !scene.emitters.empty());
  ASSERT_LE(estimate_memory_bytes(st.fluid.size(), st.boundary.size(), 0), 64'000'000u);
  ASSERT_EQ(st.emitters.size(), scene.emitters.size());
  ASSERT_EQ(st.outflows.size(), scene.outflows.size());
  ASSERT_EQ(st.obstacles.size(), scene.obstacles.size());
  for (const Vec4& p : st.fluid) {
    ASSERT_TRUE(finite(xyz(p)) && within(xyz(p), st.tank_lo, st.tank_hi));
    for (const ObstacleShape& o : st.obstacles)
      ASSERT_GE(obstacle_distance(o, xyz(p)), 0.49f * spacing);
  }
}

// ---- byte mutations ---------------------------------------------------------------------

std::string mutate_bytes(std::string text, std::mt19937& rng) {
  auto pick = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  static const std::string kInteresting = "0123456789-+.eE\"[]{},:\\ \n\ttfn";
  const int ops = 1 + int(rng() % 3);
  for (int op = 0; op < ops; ++op) {
    const size_t at = pick(text.size() + 1);
    switch (rng() % 6) {
      case 0:  // flip one bit or write an interesting byte
        if (!text.empty()) {
          const size_t k = pick(text.size());
          text[k] = rng() % 2 ? char(text[k] ^ (1 << (rng() % 8)))
                              : kInteresting[pick(kInteresting.size())];
        }
        break;
      case 1: {  // insert a few bytes
        const int n = 1 + int(rng() % 4);
        for (int k = 0; k < n; ++k)
          text.insert(at, 1,
                      rng() % 2 ? char(rng() % 256) : kInteresting[pick(kInteresting.size())]);
        break;
      }
      case 2:  // delete a range
        text.erase(std::min(at, text.size()), 1 + pick(24));
        break;
      case 3: {  // duplicate a range somewhere else
        if (text.empty()) break;
        const size_t from = pick(text.size());
        const std::string piece = text.substr(from, 1 + pick(64));
        const int copies = rng() % 8 == 0 ? 80 : 1;
        for (int c = 0; c < copies; ++c) text.insert(std::min(at, text.size()), piece);
        break;
      }
      case 4:  // truncate
        text.resize(at);
        break;
      default: {  // replace a digit run with another number
        const size_t k = text.find_first_of("0123456789", at);
        if (k == std::string::npos) break;
        const size_t end = text.find_first_not_of("0123456789.", k);
        static const char* kNumbers[] = {
            "0", "1e30", "99999999999999999999", "5e-324", "1e-9", "-7", "3.5", "1e5"};
        text.replace(k, (end == std::string::npos ? text.size() : end) - k, kNumbers[pick(8)]);
      }
    }
  }
  return text;
}

// ---- structure-aware mutations ----------------------------------------------------------

void collect(json& node, std::vector<json*>& out) {
  out.push_back(&node);
  if (node.is_object() || node.is_array())
    for (json& child : node) collect(child, out);
}

json replacement(std::mt19937& rng, const json& old) {
  switch (rng() % 16) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return "NaN";
    case 3:
      return "Infinity";
    case 4:
      return json::array();
    case 5:
      return json::object();
    case 6:
      return 0;
    case 7:
      return old.is_number() ? json(-old.get<double>()) : json(-1.5);
    case 8:
      return 1e30;
    case 9:
      return std::numeric_limits<uint64_t>::max();
    case 10:
      return std::numeric_limits<int64_t>::min();
    case 11:
      return old.is_number() ? json(old.get<double>() * double(int(rng() % 21) - 10) / 3.0)
                             : json(7);
    case 12:
      return json::array({1, 2, 3});
    case 13:
      return "box";
    case 14:
      return 1e-7;
    default:
      return old.is_number() ? json(std::to_string(old.get<double>())) : json("rectangle");
  }
}

std::string mutate_structure(const json& original, std::mt19937& rng) {
  json doc = original;
  static const char* kKeys[] = {"radius",    "width",         "height",    "size",     "shape",
                                "rate",      "start",         "stop",      "velocity", "emitters",
                                "obstacles", "max_particles", "frobnicate"};
  const int ops = 1 + int(rng() % 2);
  for (int op = 0; op < ops; ++op) {
    std::vector<json*> nodes;
    collect(doc, nodes);
    json& node = *nodes[rng() % nodes.size()];
    switch (rng() % 8) {
      case 0:
      case 1:
      case 2:  // replace the value
        node = replacement(rng, node);
        break;
      case 3:  // delete a key or an element
        if (node.is_object() && !node.empty()) {
          auto it = node.begin();
          std::advance(it, long(rng() % node.size()));
          node.erase(it);
        } else if (node.is_array() && !node.empty()) {
          node.erase(node.begin() + long(rng() % node.size()));
        }
        break;
      case 4:  // add a key, known somewhere or unknown
        if (node.is_object()) node[kKeys[rng() % 13]] = replacement(rng, json(1.0));
        break;
      case 5:  // duplicate elements, sometimes into a long array
        if (node.is_array() && !node.empty()) {
          const json element = node[rng() % node.size()];
          const size_t copies = rng() % 10 == 0 ? 12000 : 1 + rng() % 12;
          for (size_t k = 0; k < copies; ++k) node.push_back(element);
        }
        break;
      case 6: {  // nest deeply
        const int depth = 1 + int(rng() % 100);
        for (int k = 0; k < depth; ++k) node = rng() % 2 ? json::array({node}) : json{{"x", node}};
        break;
      }
      default:  // move every number of this node a little (near the ends of ranges)
        if (node.is_array())
          for (json& v : node)
            if (v.is_number()) v = v.get<double>() + double(int(rng() % 5) - 2) * 0.5;
    }
  }
  return doc.dump(rng() % 2 ? -1 : 2, ' ', false, json::error_handler_t::replace);
}

int count_from_env(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

}  // namespace

TEST(SceneFuzz, MutatedScenesAreValidOrRefusedWithOneLine) {
  const std::vector<std::string> names = list_scenes(kScenes);
  ASSERT_GE(names.size(), 7u);
  // TIDEPOOL_SCENE_FUZZ=N runs N of each kind instead (longer runs by hand).
  const int per_kind = count_from_env("TIDEPOOL_SCENE_FUZZ", 20000);
  std::mt19937 rng(20240611u);
  Tally bytes, structure;
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < per_kind; ++k) {
    const std::string text =
        read_text(std::string(kScenes) + "/" + names[size_t(k) % names.size()] + ".json");
    check(mutate_bytes(text, rng), bytes);
    if (testing::Test::HasFatalFailure()) return;
  }
  for (int k = 0; k < per_kind; ++k) {
    const json doc = json::parse(
        read_text(std::string(kScenes) + "/" + names[size_t(k) % names.size()] + ".json"));
    check(mutate_structure(doc, rng), structure);
    if (testing::Test::HasFatalFailure()) return;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& [kind, t] :
       {std::pair<const char*, const Tally&>{"byte", bytes}, {"structure", structure}})
    std::printf(
        "%-9s mutations: %d run, %d accepted (%d built, %d refused for memory), %d syntax errors, "
        "%d validation errors\n",
        kind, t.run, t.accepted, t.built, t.refused_to_build, t.syntax, t.validation);
  std::printf("%.1f s\n", seconds);
  for (const Tally* t : {&bytes, &structure}) {
    EXPECT_EQ(t->run, per_kind);
    // Both kinds reach the validation, not only the JSON syntax check, and some pass it.
    EXPECT_GE(t->validation, per_kind / 20);
    EXPECT_GE(t->accepted, per_kind / 20);
  }
  EXPECT_GE(bytes.syntax, per_kind / 4);
}
