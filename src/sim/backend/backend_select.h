// Choosing the backend at start-up: `--backend auto|cpu|cuda`.
#pragma once

#include <memory>
#include <string>

#include "gpu/cuda_runtime.h"
#include "sim/backend/backend_kind.h"

namespace tp {

enum class BackendRequest { Auto, Cpu, Cuda };

struct BackendChoice {
  bool ok = false;           ///< false: the request cannot be met (only for --backend cuda)
  BackendKind kind = BackendKind::Cpu;
  std::string description;   ///< which backend and why, "CPU (auto: ...)", as reports name it
  std::string message;       ///< one line for the log and the panel: "backend: " + description, or the error
  void describe(const std::string& text) {
    description = text;
    message = "backend: " + text;
  }
};

// Decides where to run. Auto: CUDA when a device answers and can run this binary's code,
// else the CPU with the reason. Cpu: always the CPU. Cuda: CUDA or an error (ok = false).
BackendChoice choose_backend(BackendRequest request, CudaRuntime& runtime);

// Once the window exists (its OpenGL context current): the CUDA device to simulate on so
// that the particles reach OpenGL through the interop, without a copy. The device OpenGL
// runs on when CUDA can use it and it differs from `current` (the one chosen at start,
// device 0), else `current`. `note` gets one line for the log when the choice moves or
// when OpenGL is on no CUDA device ("" otherwise).
int interop_device(CudaRuntime& runtime, int current, std::string* note);

// Parses "auto", "cpu" or "cuda".
bool parse_backend_request(const std::string& text, BackendRequest* out);

}  // namespace tp
