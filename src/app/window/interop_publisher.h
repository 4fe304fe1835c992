// Publishing particles into the renderer's GL buffer from the CUDA backend without a host
// copy (CUDA-GL interop), and falling back to the host copy, once and for good, when the
// driver refuses. GL-free: the GL buffer is seen through PublishBuffer and CUDA through the
// CudaRuntime seam, so tests drive every path with fakes. gl_publish_target.h adapts the
// renderer's ParticleBuffer and puts both behind the simulation's PublishTarget.
#pragma once

#include <cstddef>
#include <string>

#include "gpu/cuda_runtime.h"
#include "kernels/common.h"

namespace tp {

// A GL buffer that CUDA may write into: elements of element_bytes() each (a particle's
// Vec4; the mesh's vertex Vec4 pairs and index triples).
class InteropBuffer {
 public:
  virtual ~InteropBuffer() = default;
  virtual unsigned gl_name() const = 0;      ///< the GL buffer object
  virtual size_t capacity() const = 0;       ///< elements the GL store holds
  virtual void reserve(size_t count) = 0;    ///< grows the store to `count` without mapping
  virtual void set_count(size_t count) = 0;  ///< elements to draw after a device write
  virtual size_t element_bytes() const { return sizeof(Vec4); }
};

// The GL vertex buffer particles are published into (one Vec4 per particle).
class PublishBuffer : public InteropBuffer {
 public:
  virtual Vec4* map_host(size_t count) = 0;  ///< host path; nullptr on failure
  virtual void unmap_host() = 0;             ///< after a non-null map_host
};

// The interop half of the publish target. The first map registers the buffer with CUDA
// (after making it large enough); a growth later unregisters, grows and registers again,
// because a registered buffer's store must not be reallocated. When CUDA refuses to
// register or map (no interop between this GL driver and the CUDA device, e.g. GL on
// another GPU or in software), it prints one line to stderr and from then on map() returns
// nullptr without asking again: the caller copies through the host instead.
class InteropPublisher {
 public:
  // `what` names the data in the one line said on giving up ("particles", "the mesh").
  InteropPublisher(CudaRuntime& runtime, InteropBuffer& buffer, std::string what = "particles");
  ~InteropPublisher();  ///< unmaps and unregisters (needs the GL context still current)
  InteropPublisher(const InteropPublisher&) = delete;
  InteropPublisher& operator=(const InteropPublisher&) = delete;

  // A device pointer to room for `count` elements in the buffer, or nullptr (count 0, or
  // interop unavailable): then publish through the host. A non-null map needs unmap().
  void* map(size_t count);
  // Gives the buffer back to GL; it then draws the `count` elements of the last map.
  void unmap();
  // Gives up for good without a word (a partner buffer's interop was refused), as if
  // refused: unmapped and unregistered.
  void abandon();

  bool unavailable() const { return unavailable_; }  ///< interop was refused; never retried
  bool mapped() const { return mapped_; }

 private:
  void give_up(const std::string& reason);
  void unregister();

  CudaRuntime& runtime_;
  InteropBuffer& buffer_;
  std::string what_;
  void* handle_ = nullptr;       ///< the CUDA registration, or null
  unsigned registered_name_ = 0;  ///< the GL buffer registered
  size_t pending_ = 0;           ///< count of the map in progress
  bool mapped_ = false;
  bool unavailable_ = false;
};

}  // namespace tp
