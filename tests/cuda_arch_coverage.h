// Which GPUs a set of CUDA code entries runs on: the rule the architecture tests apply to
// the default CMake list, to the configured list and to the entries found in a binary's
// fat binary. Pure C++ (no CUDA), so it is tested in every build.
//
// The rule (CUDA C++ Programming Guide, "Binary compatibility" and "PTX compatibility"):
// - device code (a cubin) for sm_XY runs on a GPU of compute capability X.Z with Z >= Y:
//   same major only (sm_80 runs on 8.6 and 8.9, never on 9.0; sm_86 not on 8.0);
// - PTX for compute_XY is compiled by the driver (JIT) for any GPU of compute capability
//   >= X.Y, of any major (compute_90 runs on 10.0 and 12.0; compute_120 not on 10.0);
// - "a" (architecture-specific) entries such as sm_90a / compute_90a run on X.Y only.
// The driver prefers device code; PTX is the fallback (first launch pays the JIT).
#pragma once

// Both files that include this are compiled with the lists CMake passes.
#ifndef TP_DEFAULT_CUDA_ARCHITECTURES
#error "CMake passes TP_DEFAULT_CUDA_ARCHITECTURES (tests/CMakeLists.txt)"
#endif
#ifndef TP_NVCC_ARCHITECTURES
#define TP_NVCC_ARCHITECTURES ""
#endif

#include <cctype>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace tp::cuda_arch {

struct CodeEntry {
  int arch = 0;         ///< 10 * major + minor: 75, 86, 100, 121
  bool ptx = false;     ///< PTX (compute_XY) rather than device code (sm_XY)
  bool specific = false;  ///< the "a" variant: this exact architecture only
  bool operator<(const CodeEntry& o) const {
    if (arch != o.arch) return arch < o.arch;
    if (ptx != o.ptx) return ptx < o.ptx;
    return specific < o.specific;
  }
  bool operator==(const CodeEntry& o) const {
    return arch == o.arch && ptx == o.ptx && specific == o.specific;
  }
  std::string name() const {
    return (ptx ? "compute_" : "sm_") + std::to_string(arch) + (specific ? "a" : "");
  }
};

inline int major_of(int arch) { return arch / 10; }

// Whether one entry runs on a GPU of architecture `gpu` (10 * major + minor).
inline bool runs_on(const CodeEntry& e, int gpu) {
  if (e.specific) return e.arch == gpu;
  if (e.ptx) return gpu >= e.arch;
  return major_of(e.arch) == major_of(gpu) && gpu >= e.arch;
}

enum class How { None, Native, Ptx };

struct Coverage {
  How how = How::None;
  CodeEntry entry;  ///< the entry the driver would pick (meaningful unless how == None)
  bool covered() const { return how != How::None; }
  std::string describe() const {
    if (how == How::None) return "nothing (falls back to the CPU)";
    return entry.name() + (how == How::Native ? " (device code)" : " (PTX, JIT-compiled)");
  }
};

// How a GPU of architecture `gpu` runs a binary holding `entries`: device code if any
// cubin runs there (the newest such, as the driver picks), else the newest PTX at or below
// it, else nothing.
inline Coverage coverage(const std::vector<CodeEntry>& entries, int gpu) {
  Coverage best;
  for (const CodeEntry& e : entries) {
    if (e.ptx || !runs_on(e, gpu)) continue;
    if (best.how != How::Native || e.arch > best.entry.arch) best = Coverage{How::Native, e};
  }
  if (best.covered()) return best;
  for (const CodeEntry& e : entries) {
    if (!e.ptx || !runs_on(e, gpu)) continue;
    if (best.how != How::Ptx || e.arch > best.entry.arch) best = Coverage{How::Ptx, e};
  }
  return best;
}

// The entries of a CMake CUDA_ARCHITECTURES list: "86" is device code and PTX, "86-real"
// device code only, "86-virtual" PTX only, "90a-real" the architecture-specific variant.
// Returns false (and says why) on anything else, including CMake's special values "all",
// "all-major" and "native", whose entries only the build knows.
inline bool parse_cmake_list(const std::string& list, std::vector<CodeEntry>* out,
                             std::string* error) {
  out->clear();
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ';');) {
    if (item.empty()) continue;
    size_t digits = 0;
    while (digits < item.size() && std::isdigit(static_cast<unsigned char>(item[digits]))) ++digits;
    if (digits == 0) {
      *error = "'" + item + "' is not an architecture number";
      return false;
    }
    const int arch = std::stoi(item.substr(0, digits));
    std::string rest = item.substr(digits);
    bool specific = false;
    if (!rest.empty() && rest[0] == 'a') {
      specific = true;
      rest = rest.substr(1);
    }
    const bool real = rest.empty() || rest == "-real";
    const bool virt = rest.empty() || rest == "-virtual";
    if (!real && !virt) {
      *error = "'" + item + "': unknown suffix '" + rest + "'";
      return false;
    }
    if (real) out->push_back(CodeEntry{arch, false, specific});
    if (virt) out->push_back(CodeEntry{arch, true, specific});
  }
  if (out->empty()) {
    *error = "the list is empty";
    return false;
  }
  return true;
}

// The architectures nvcc 13.0 accepts (nvcc --list-gpu-code): the floor of what the
// default list must cover, whatever the nvcc at hand lists beside it.
inline const std::vector<int>& nvcc13_architectures() {
  static const std::vector<int> archs = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
  return archs;
}

// Architecture numbers from a list such as "75;80;86" (the configure step's reading of
// nvcc --list-gpu-code); empty when it had none.
inline std::vector<int> parse_arch_numbers(const std::string& list) {
  std::vector<int> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ';');)
    if (!item.empty() && std::isdigit(static_cast<unsigned char>(item[0]))) out.push_back(std::stoi(item));
  return out;
}

// The architectures to check: nvcc 13's, plus any other >= 75 that the nvcc of this
// build lists (a newer nvcc's new architecture then fails the test until the default
// list covers it).
inline std::vector<int> architectures_to_check(const std::vector<int>& nvcc_listed) {
  std::set<int> all(nvcc13_architectures().begin(), nvcc13_architectures().end());
  for (int a : nvcc_listed)
    if (a >= 75) all.insert(a);
  return std::vector<int>(all.begin(), all.end());
}

// One line per architecture, "sm_86 -> sm_80 (device code)", for the test output.
inline std::string coverage_table(const std::vector<CodeEntry>& entries, const std::vector<int>& archs) {
  std::string out;
  for (int a : archs) out += "  sm_" + std::to_string(a) + " -> " + coverage(entries, a).describe() + "\n";
  return out;
}

}  // namespace tp::cuda_arch
