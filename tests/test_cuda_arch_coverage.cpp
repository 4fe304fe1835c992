// The default CUDA architecture list (CMakeLists.txt, TIDEPOOL_CUDA_ARCHITECTURES's default)
// runs on every GPU architecture nvcc accepts from sm_75 up: each through device code or
// through PTX the driver compiles (tests/cuda_arch_coverage.h states the rule). This checks
// the DEFAULT list, passed by CMake as TP_DEFAULT_CUDA_ARCHITECTURES whatever list this build
// was configured with (CI builds one, "75-real"); CudaBuild.* in
// test_cuda_build.cpp checks the configured list against the binary. Pure logic: it runs in
// every build, CUDA or not.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "cuda_arch_coverage.h"

using namespace tp::cuda_arch;

namespace {

std::vector<CodeEntry> parse(const std::string& list) {
  std::vector<CodeEntry> entries;
  std::string error;
  EXPECT_TRUE(parse_cmake_list(list, &entries, &error)) << list << ": " << error;
  return entries;
}

How how(const std::string& list, int gpu) { return coverage(parse(list), gpu).how; }

}  // namespace

TEST(CudaArchCoverage, DeviceCodeRunsOnLaterMinorsOfItsMajorOnly) {
  EXPECT_EQ(how("80-real", 80), How::Native);
  EXPECT_EQ(how("80-real", 86), How::Native);
  EXPECT_EQ(how("80-real", 89), How::Native);
  EXPECT_EQ(how("80-real", 90), How::None);   // another major
  EXPECT_EQ(how("86-real", 80), How::None);   // an earlier minor
  EXPECT_EQ(how("100-real", 103), How::Native);
  EXPECT_EQ(how("100-real", 110), How::None);
  EXPECT_EQ(how("120-real", 121), How::Native);
  EXPECT_EQ(how("90a-real", 90), How::Native);
  EXPECT_EQ(how("86a-real", 89), How::None);  // architecture-specific: 8.6 only
}

TEST(CudaArchCoverage, PtxRunsOnEveryLaterArchitectureOfAnyMajor) {
  EXPECT_EQ(how("90-virtual", 90), How::Ptx);
  EXPECT_EQ(how("90-virtual", 100), How::Ptx);
  EXPECT_EQ(how("90-virtual", 121), How::Ptx);
  EXPECT_EQ(how("90-virtual", 89), How::None);
  EXPECT_EQ(how("120-virtual", 110), How::None);
  // Device code wins over PTX where both run; the newest fitting entry is the one picked.
  const Coverage c = coverage(parse("75;80-real;86-real"), 89);
  EXPECT_EQ(c.how, How::Native);
  EXPECT_EQ(c.entry.arch, 86);
  EXPECT_EQ(coverage(parse("75;80-real;86-real"), 90).entry, (CodeEntry{75, true, false}));
}

TEST(CudaArchCoverage, ParsesCMakeSyntaxAndRefusesTheSpecialValues) {
  EXPECT_EQ(parse("86"), (std::vector<CodeEntry>{{86, false, false}, {86, true, false}}));
  EXPECT_EQ(parse("75-real;120-virtual"), (std::vector<CodeEntry>{{75, false, false}, {120, true, false}}));
  std::vector<CodeEntry> entries;
  std::string error;
  for (const char* special : {"native", "all", "all-major", "86-fast", ""})
    EXPECT_FALSE(parse_cmake_list(special, &entries, &error)) << special;
}

// The lists that must fail: the rule is not so loose that anything passes.
TEST(CudaArchCoverage, TheOldDefaultMissedSm100Sm103AndSm110) {
  const std::vector<CodeEntry> old = parse("75-real;80-real;86-real;89-real;90-real;120");
  for (int gpu : {100, 103, 110})
    EXPECT_FALSE(coverage(old, gpu).covered()) << "sm_" << gpu << ": " << coverage(old, gpu).describe();
  for (int gpu : {75, 80, 86, 87, 88, 89, 90, 120, 121})
    EXPECT_TRUE(coverage(old, gpu).covered()) << "sm_" << gpu;
}

TEST(CudaArchCoverage, PtxFor120AloneDoesNotRunOnHopper) {
  EXPECT_FALSE(coverage(parse("120"), 90).covered());
  EXPECT_FALSE(coverage(parse("120"), 100).covered());
  EXPECT_TRUE(coverage(parse("120"), 121).covered());
}

TEST(CudaArchCoverage, DefaultListRunsOnEveryArchitectureNvccAccepts) {
  const std::string default_list = TP_DEFAULT_CUDA_ARCHITECTURES;
  const std::vector<int> nvcc_listed = parse_arch_numbers(TP_NVCC_ARCHITECTURES);
  const std::vector<int> archs = architectures_to_check(nvcc_listed);
  const std::vector<CodeEntry> entries = parse(default_list);
  std::cout << "default CUDA list (CMakeLists.txt): " << default_list << "\n"
            << "architectures checked: nvcc 13's"
            << (nvcc_listed.empty() ? " (this build ran no nvcc --list-gpu-code)"
                                    : " and this nvcc's (" + std::string(TP_NVCC_ARCHITECTURES) + ")")
            << "\n" << coverage_table(entries, archs);
  for (int gpu : archs)
    EXPECT_TRUE(coverage(entries, gpu).covered())
        << "the default list " << default_list << " has no code that runs on sm_" << gpu;
  // Every architecture the default list names is one nvcc accepts.
  for (const CodeEntry& e : entries)
    EXPECT_TRUE(std::count(archs.begin(), archs.end(), e.arch)) << e.name() << " is not an nvcc architecture";
  // And PTX for GPUs newer than any nvcc here knows (sm_130 stands for them).
  EXPECT_EQ(coverage(entries, 130).how, How::Ptx) << "no PTX for GPUs newer than the list";
}

// The default's policy, checked so that a later edit keeps it: device code for every
// architecture (no GPU in the range pays a JIT of the whole backend at its first launch,
// and CUB keeps its tuning for the generation), with no entry another one makes redundant.
TEST(CudaArchCoverage, DefaultListIsDeviceCodeEverywhereWithNoRedundantEntry) {
  const std::vector<CodeEntry> entries = parse(TP_DEFAULT_CUDA_ARCHITECTURES);
  const std::vector<int> archs = architectures_to_check(parse_arch_numbers(TP_NVCC_ARCHITECTURES));
  for (int gpu : archs)
    EXPECT_EQ(coverage(entries, gpu).how, How::Native) << "sm_" << gpu << " runs " << coverage(entries, gpu).describe();
  for (size_t i = 0; i < entries.size(); ++i) {
    std::vector<CodeEntry> without = entries;
    without.erase(without.begin() + long(i));
    bool needed = coverage(without, 130).how != How::Ptx;  // the PTX for newer GPUs
    for (int gpu : archs) needed = needed || coverage(without, gpu).how != How::Native;
    EXPECT_TRUE(needed) << entries[i].name() << " is redundant: the other entries run natively "
                        << "everywhere it does";
  }
}
