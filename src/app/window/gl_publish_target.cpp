#include "app/window/gl_publish_target.h"

namespace tp {

GlPublishTarget::GlPublishTarget(PublishBuffer& buffer, BackendKind backend,
                                 CudaRuntime& runtime, const std::string& what)
    : buffer_(buffer) {
  // Constructing the publisher touches nothing; it registers on the first map_device.
  if (backend == BackendKind::Cuda) interop_ = std::make_unique<InteropPublisher>(runtime, buffer, what);
}

GlPublishTarget::~GlPublishTarget() { unmap(); }

Vec4* GlPublishTarget::map_host(size_t count) {
  unmap();
  Vec4* memory = buffer_.map_host(count);
  if (memory) mapped_ = Mapped::Host;
  return memory;
}

void* GlPublishTarget::map_device(size_t count) {
  unmap();
  if (!interop_) return nullptr;
  void* memory = interop_->map(count);
  if (memory) mapped_ = Mapped::Device;
  return memory;
}

void GlPublishTarget::unmap() {
  if (mapped_ == Mapped::Host) buffer_.unmap_host();
  if (mapped_ == Mapped::Device) interop_->unmap();
  mapped_ = Mapped::None;
}

void GlMeshBuffers::upload(const TriangleMesh& mesh) {
  const size_t n = mesh.position.size();
  staging_.resize(2 * n);
  for (size_t i = 0; i < n; ++i) {
    staging_[i] = make_vec4(mesh.position[i], 0.0f);
    staging_[n + i] = make_vec4(i < mesh.normal.size() ? mesh.normal[i] : Vec3{0.0f, 1.0f, 0.0f}, 0.0f);
  }
  mesh_.upload(staging_.data(), n, mesh.index.data(), mesh.triangle_count());
}

GlMeshTarget::GlMeshTarget(MeshPublishBuffers& buffers, BackendKind backend, CudaRuntime& runtime)
    : buffers_(buffers) {
  if (backend != BackendKind::Cuda) return;
  vertices_ = std::make_unique<InteropPublisher>(runtime, buffers.vertices(), "the mesh");
  triangles_ = std::make_unique<InteropPublisher>(runtime, buffers.triangles(), "the mesh");
}

GlMeshTarget::~GlMeshTarget() { unmap(); }

bool GlMeshTarget::map_device(size_t vertices, size_t triangles, Vec4** vertex_out, uint32_t** index_out) {
  unmap();
  if (!vertices_ || vertices_->unavailable() || triangles_->unavailable() || vertices == 0 || triangles == 0)
    return false;
  void* v = vertices_->map(vertices);
  if (!v) {  // said why; the indices alone are no use
    triangles_->abandon();
    return false;
  }
  void* t = triangles_->map(triangles);
  if (!t) {
    vertices_->abandon();
    return false;
  }
  *vertex_out = static_cast<Vec4*>(v);
  *index_out = static_cast<uint32_t*>(t);
  return true;
}

void GlMeshTarget::unmap() {
  if (vertices_) vertices_->unmap();
  if (triangles_) triangles_->unmap();
}

void GlMeshTarget::upload(const TriangleMesh& mesh) {
  unmap();
  buffers_.upload(mesh);
}

}  // namespace tp
