// Which backend a simulation runs on, as the app, the tests and the simulations name it.
#pragma once

#include <string>
#include <vector>

namespace tp {

enum class BackendKind { Cpu, Cuda };

struct BackendInfo {
  BackendKind kind = BackendKind::Cpu;
  std::string description;  ///< "CPU (OpenMP, 2 threads)" or "CUDA: <device name>"
};

// Backends compiled into this binary, e.g. {"cpu", "cuda"}.
std::vector<std::string> compiled_backends();

// Throws std::runtime_error saying that this binary has no CUDA backend and how to get one
// (a simulation asked for on CUDA in a build without it).
[[noreturn]] void throw_no_cuda_backend();

}  // namespace tp
