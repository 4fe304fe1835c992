// libFuzzer target for the scene loader (-DTIDEPOOL_FUZZ=ON with clang; see
// tests/fuzz/CMakeLists.txt): each input is parsed as a scene file and, when accepted,
// built into particles, with the same checks as the GoogleTest fuzz run
// (tests/scene_fuzz_check.h). A failed check aborts, so libFuzzer keeps the input; the
// address sanitizer finds overflows and, at exit, leaks.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "scene_fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tp::test::MutantOutcome outcome{};
  const std::string wrong = tp::test::check_scene_mutant(text, &outcome);
  if (!wrong.empty()) {
    std::fprintf(stderr, "scene fuzz: %s\n", wrong.c_str());
    std::abort();
  }
  return 0;
}
