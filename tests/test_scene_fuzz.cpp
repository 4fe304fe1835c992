// Fuzzing the scene parser from every shipped scene: byte mutations of the text and
// mutations of the parsed JSON. Each mutant is either a scene within every documented
// range, whose particles build (or are refused for memory) without crashing, or a
// SceneError with a one-line message; nothing else may come out.
#include <gtest/gtest.h>

#include <algorithm>
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

#include "alloc_counter.h"
#include "scene_fuzz_check.h"
#include "sim/scene/scene.h"

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

struct Tally {
  int run = 0, accepted = 0, syntax = 0, validation = 0, built = 0, refused_to_build = 0;
};

void check(const std::string& text, Tally& tally) {
  ++tally.run;
  test::MutantOutcome outcome{};
  const std::string wrong = test::check_scene_mutant(text, &outcome);
  ASSERT_EQ(wrong, "") << "\n" << text.substr(0, 2000);
  switch (outcome) {
    case test::MutantOutcome::SyntaxError: ++tally.syntax; break;
    case test::MutantOutcome::ValidationError: ++tally.validation; break;
    case test::MutantOutcome::Built: ++tally.accepted, ++tally.built; break;
    case test::MutantOutcome::RefusedForMemory: ++tally.accepted, ++tally.refused_to_build; break;
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

struct FuzzRun {
  Tally bytes, structure;
  double seconds = 0.0;
  double slowest_ms = 0.0;  ///< the slowest single pair of inputs
  long long leaked = 0;     ///< blocks alive after the inputs minus before them
};

// `per_kind` byte mutants and as many structure mutants, from the shipped scenes in turn.
// Each kind has its own generator, so a longer run begins with the same inputs as a
// shorter one. Every input must free every block it allocated.
void run_fuzz(int per_kind, uint32_t seed, FuzzRun* out) {
  const std::vector<std::string> names = list_scenes(kScenes);
  ASSERT_GE(names.size(), 7u);
  std::vector<std::string> texts;
  std::vector<json> docs;
  for (const std::string& name : names) {
    texts.push_back(read_text(std::string(kScenes) + "/" + name + ".json"));
    docs.push_back(json::parse(texts.back()));
  }
  // Once through the shipped scenes first: what lives for the whole process (the parameter
  // tables, OpenMP's threads for a gas scene's step) is made here, not charged to an input.
  {
    Tally warm_up;
    for (const std::string& text : texts) check(text, warm_up);
  }
  std::mt19937 byte_rng(seed), structure_rng(seed ^ 0x9e3779b9u);
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < per_kind; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int kind = 0; kind < 2; ++kind) {
      const std::string text = kind == 0
                                   ? mutate_bytes(texts[size_t(k) % texts.size()], byte_rng)
                                   : mutate_structure(docs[size_t(k) % docs.size()], structure_rng);
      const long long before = test::live_blocks();
      check(text, kind == 0 ? out->bytes : out->structure);
      if (testing::Test::HasFatalFailure()) return;
      const long long leaked = test::live_blocks() - before;
      out->leaked += leaked;
      ASSERT_EQ(leaked, 0) << "blocks left allocated by this input:\n" << text.substr(0, 2000);
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    out->slowest_ms = std::max(out->slowest_ms, ms);
  }
  out->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& [kind, t] : {std::pair<const char*, const Tally&>{"byte", out->bytes},
                                {"structure", out->structure}})
    std::printf(
        "%-9s mutations: %d run, %d accepted (%d built, %d refused for memory), %d syntax errors, "
        "%d validation errors\n",
        kind, t.run, t.accepted, t.built, t.refused_to_build, t.syntax, t.validation);
  std::printf("%d inputs in %.1f s, the slowest pair %.1f ms, %lld blocks leaked\n", 2 * per_kind,
              out->seconds, out->slowest_ms, out->leaked);
}

void expect_coverage(const FuzzRun& run, int per_kind) {
  for (const Tally* t : {&run.bytes, &run.structure}) {
    EXPECT_EQ(t->run, per_kind);
    // Both kinds reach the validation, not only the JSON syntax check, and some pass it.
    EXPECT_GE(t->validation, per_kind / 20);
    EXPECT_GE(t->accepted, per_kind / 20);
  }
  EXPECT_GE(run.bytes.syntax, per_kind / 4);
}

}  // namespace

// 60,000 mutants (30,000 of each kind) in the default run: about 20 s on 2 cores (the
// soak below runs a million).
TEST(SceneFuzz, MutatedScenesAreValidOrRefusedWithOneLine) {
  // TIDEPOOL_SCENE_FUZZ=N runs N of each kind instead (longer runs by hand).
  const int per_kind = count_from_env("TIDEPOOL_SCENE_FUZZ", 30000);
  FuzzRun run;
  run_fuzz(per_kind, 20240611u, &run);
  if (HasFatalFailure()) return;
  expect_coverage(run, per_kind);
}

// The allocation count sees a leak (the check above would miss one otherwise).
std::string* volatile g_kept;  // escapes, so the compiler cannot drop the allocation
TEST(SceneFuzz, TheLeakCheckSeesALeak) {
  const long long before = test::live_blocks();
  g_kept = new std::string(100, 'x');
  const long long with_leak = test::live_blocks();
  delete g_kept;
  const long long after = test::live_blocks();
  EXPECT_EQ(with_leak - before, 2);  // the string and its characters
  EXPECT_EQ(after - before, 0);
}

// A million mutants from another seed (label soak).
TEST(Soak, SceneFuzzAMillionMutants) {
  const int per_kind = 500000;
  FuzzRun run;
  run_fuzz(per_kind, 77001u, &run);
  if (HasFatalFailure()) return;
  expect_coverage(run, per_kind);
}
