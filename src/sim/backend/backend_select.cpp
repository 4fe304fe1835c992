#include "sim/backend/backend_select.h"

#include <stdexcept>

namespace tp {

void throw_no_cuda_backend() {
  throw std::runtime_error(
      "this binary was built without the CUDA backend; install the CUDA toolkit (nvcc) and "
      "rebuild with -DTIDEPOOL_CUDA=ON");
}

std::vector<std::string> compiled_backends() {
#ifdef TP_HAVE_CUDA
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

bool parse_backend_request(const std::string& text, BackendRequest* out) {
  if (text == "auto") *out = BackendRequest::Auto;
  else if (text == "cpu") *out = BackendRequest::Cpu;
  else if (text == "cuda") *out = BackendRequest::Cuda;
  else return false;
  return true;
}

namespace {

// Why CUDA cannot be used, or "" when device 0 is usable (then *device names it).
std::string cuda_unusable_reason(CudaRuntime& rt, CudaDeviceInfo* device) {
  if (!rt.compiled()) {
    std::string e;
    rt.device_count(&e);
    return e;
  }
  std::string error;
  const int count = rt.device_count(&error);
  if (count <= 0) return error.empty() ? "no CUDA-capable device was found" : error;
  if (!rt.device_info(0, device, &error)) return "the CUDA device does not answer: " + error;
  if (!rt.probe_kernels(0, &error)) {
    return "the GPU '" + device->name + "' (compute capability " + std::to_string(device->major) +
           "." + std::to_string(device->minor) + ") cannot run this build's CUDA code (" + error +
           "); this binary has code for the architectures '" + cuda_architectures() +
           "'; rebuild with -DTIDEPOOL_CUDA_ARCHITECTURES=" + std::to_string(device->major) +
           std::to_string(device->minor) +
           (device->major * 10 + device->minor < 75
                ? " using a CUDA 12 toolkit (CUDA 13 starts at sm_75)"
                : "");
  }
  return "";
}

}  // namespace

BackendChoice choose_backend(BackendRequest request, CudaRuntime& rt) {
  BackendChoice choice;
  if (request == BackendRequest::Cpu) {
    choice.ok = true;
    choice.kind = BackendKind::Cpu;
    choice.describe("CPU (requested with --backend cpu)");
    return choice;
  }
  CudaDeviceInfo device;
  const std::string reason = cuda_unusable_reason(rt, &device);
  if (reason.empty()) {
    choice.ok = true;
    choice.kind = BackendKind::Cuda;
    choice.describe("CUDA on " + device.name + (request == BackendRequest::Auto ? " (auto: a CUDA device answered)" : ""));
    return choice;
  }
  if (request == BackendRequest::Cuda) {
    choice.ok = false;
    choice.message = "--backend cuda: " + reason;
    return choice;
  }
  choice.ok = true;
  choice.kind = BackendKind::Cpu;
  choice.describe("CPU (auto: " + reason + ")");
  return choice;
}

int interop_device(CudaRuntime& rt, int current, std::string* note) {
  note->clear();
  std::string error;
  const int gl = rt.gl_device(&error);
  if (gl < 0) {
    *note = "OpenGL runs on no CUDA device (" + error +
            "): particles are copied through the host each frame";
    return current;
  }
  if (gl == current) return current;
  CudaDeviceInfo info;
  if (!rt.device_info(gl, &info, &error) || !rt.probe_kernels(gl, &error)) {
    *note = "OpenGL runs on CUDA device " + std::to_string(gl) + ", which cannot run this "
            "build (" + error + "): simulating on device " + std::to_string(current) +
            " and copying the particles through the host";
    rt.use_device(current, &error);  // the probe made the other one current
    return current;
  }
  *note = "OpenGL runs on CUDA device " + std::to_string(gl) + " (" + info.name +
          "): simulating there, so that the particles reach OpenGL without a copy";
  return gl;
}

}  // namespace tp
