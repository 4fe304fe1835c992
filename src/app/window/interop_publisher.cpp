#include "app/window/interop_publisher.h"

#include <cstdio>
#include <utility>

namespace tp {

InteropPublisher::InteropPublisher(CudaRuntime& runtime, InteropBuffer& buffer, std::string what)
    : runtime_(runtime), buffer_(buffer), what_(std::move(what)) {}

InteropPublisher::~InteropPublisher() {
  if (mapped_) runtime_.unmap_gl_buffer(handle_);
  unregister();
}

void InteropPublisher::unregister() {
  if (handle_) runtime_.unregister_gl_buffer(handle_);
  handle_ = nullptr;
  registered_name_ = 0;
}

void InteropPublisher::give_up(const std::string& reason) {
  unregister();  // the host path may reallocate the store, which a registration forbids
  unavailable_ = true;
  std::fprintf(stderr,
               "tidepool: CUDA-GL interop unavailable (%s); copying %s through the host "
               "each frame\n",
               reason.empty() ? "the CUDA runtime gave no reason" : reason.c_str(), what_.c_str());
}

void* InteropPublisher::map(size_t count) {
  if (mapped_) unmap();
  if (unavailable_ || count == 0) return nullptr;
  // A registered buffer's store must not be reallocated: unregister, grow, register again.
  if (handle_ && (count > buffer_.capacity() || buffer_.gl_name() != registered_name_))
    unregister();
  if (!handle_) {
    buffer_.reserve(count);
    std::string error;
    void* handle = nullptr;
    if (!runtime_.register_gl_buffer(buffer_.gl_name(), &handle, &error) || !handle) {
      give_up(error);
      return nullptr;
    }
    handle_ = handle;
    registered_name_ = buffer_.gl_name();
  }
  std::string error;
  size_t bytes = 0;
  void* pointer = runtime_.map_gl_buffer(handle_, &bytes, &error);
  if (!pointer) {
    give_up(error);
    return nullptr;
  }
  if (bytes < count * buffer_.element_bytes()) {
    runtime_.unmap_gl_buffer(handle_);
    give_up("the mapped GL buffer holds " + std::to_string(bytes) + " bytes, " +
            std::to_string(count * buffer_.element_bytes()) + " needed");
    return nullptr;
  }
  mapped_ = true;
  pending_ = count;
  return pointer;
}

void InteropPublisher::abandon() {
  if (mapped_) runtime_.unmap_gl_buffer(handle_);
  mapped_ = false;
  unregister();
  unavailable_ = true;
}

void InteropPublisher::unmap() {
  if (!mapped_) return;
  runtime_.unmap_gl_buffer(handle_);
  mapped_ = false;
  buffer_.set_count(pending_);
}

}  // namespace tp
