#include "render/body_pass.h"

#include <cmath>
#include <cstddef>
#include <glm/gtc/type_ptr.hpp>
#include <utility>

namespace tp {

namespace {

// A unit-shape vertex: the shader places it at position * scale + (0, cap * half_height, 0)
// (cap: +1 on a capsule's upper half, -1 on its lower half, 0 elsewhere).
struct BodyVertex {
  glm::vec3 position;
  glm::vec3 normal;
  float cap;
};

// Where a vertex lies on a reference shape of half height 1, for the winding test only.
glm::vec3 reference(const BodyVertex& v) { return v.position + glm::vec3(0.0f, v.cap, 0.0f); }

// Appends a triangle, wound counter-clockwise seen from outside (where `outward` points).
void add_triangle(std::vector<BodyVertex>& out, BodyVertex a, BodyVertex b, BodyVertex c,
                  glm::vec3 outward) {
  const glm::vec3 face = glm::cross(reference(b) - reference(a), reference(c) - reference(a));
  if (glm::dot(face, face) < 1e-14f) return;  // degenerate (a pole)
  if (glm::dot(face, outward) < 0.0f) std::swap(b, c);
  out.push_back(a);
  out.push_back(b);
  out.push_back(c);
}

// The cube [-1, 1]^3, six faces with flat normals.
void add_cube(std::vector<BodyVertex>& out) {
  for (int axis = 0; axis < 3; ++axis) {
    for (float side : {-1.0f, 1.0f}) {
      glm::vec3 n(0.0f);
      n[axis] = side;
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      BodyVertex corner[4];
      for (int k = 0; k < 4; ++k) {
        glm::vec3 p = n;
        p[u] = (k == 1 || k == 2) ? 1.0f : -1.0f;
        p[v] = k >= 2 ? 1.0f : -1.0f;
        corner[k] = BodyVertex{p, n, 0.0f};
      }
      add_triangle(out, corner[0], corner[1], corner[2], n);
      add_triangle(out, corner[0], corner[2], corner[3], n);
    }
  }
}

// The unit sphere in latitude and longitude bands (`stacks` even). With `capsule`, the
// rings of the upper half carry cap +1 and those of the lower half -1, and the equator is
// there twice, once with each: the band between them becomes the cylinder.
void add_round(std::vector<BodyVertex>& out, int slices, int stacks, bool capsule) {
  const float pi = 3.14159265f;
  struct Ring {
    float theta;
    float cap;
  };
  std::vector<Ring> rings;
  for (int i = 0; i <= stacks; ++i) {
    const float theta = pi * float(i) / float(stacks);  // from +y
    if (!capsule) {
      rings.push_back({theta, 0.0f});
    } else if (2 * i == stacks) {
      rings.push_back({theta, 1.0f});
      rings.push_back({theta, -1.0f});
    } else {
      rings.push_back({theta, 2 * i < stacks ? 1.0f : -1.0f});
    }
  }
  auto vertex = [&](const Ring& r, int j) {
    const float phi = 2.0f * pi * float(j) / float(slices);
    const glm::vec3 p(std::sin(r.theta) * std::cos(phi), std::cos(r.theta),
                      std::sin(r.theta) * std::sin(phi));
    return BodyVertex{p, p, r.cap};
  };
  for (size_t i = 0; i + 1 < rings.size(); ++i) {
    for (int j = 0; j < slices; ++j) {
      const BodyVertex a = vertex(rings[i], j), b = vertex(rings[i + 1], j),
                       c = vertex(rings[i + 1], j + 1), d = vertex(rings[i], j + 1);
      glm::vec3 outward = a.position + b.position + c.position + d.position;
      outward.y *= capsule && rings[i].cap != rings[i + 1].cap ? 0.0f : 1.0f;  // the cylinder
      add_triangle(out, a, b, c, outward);
      add_triangle(out, a, c, d, outward);
    }
  }
}

// A vertex array of its own over a new buffer holding `v`, in BodyVertex's layout (left
// bound; the array buffer unbound).
void upload_vertices(const std::vector<BodyVertex>& v, GLuint* vao, GLuint* vbo) {
  glGenVertexArrays(1, vao);
  glGenBuffers(1, vbo);
  glBindVertexArray(*vao);
  glBindBuffer(GL_ARRAY_BUFFER, *vbo);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(v.size() * sizeof(BodyVertex)), v.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(BodyVertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(BodyVertex),
                        reinterpret_cast<void*>(offsetof(BodyVertex, normal)));
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(BodyVertex),
                        reinterpret_cast<void*>(offsetof(BodyVertex, cap)));
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

}  // namespace

BodyPass::BodyPass(const std::string& shader_dir)
    : program_(GlProgram::load(shader_dir, "body.vert", "body.frag")) {
  std::vector<BodyVertex> v;
  box_first_ = GLint(v.size());
  add_cube(v);
  box_count_ = GLint(v.size()) - box_first_;
  sphere_first_ = GLint(v.size());
  add_round(v, 64, 32, false);
  sphere_count_ = GLint(v.size()) - sphere_first_;
  capsule_first_ = GLint(v.size());
  add_round(v, 64, 32, true);
  capsule_count_ = GLint(v.size()) - capsule_first_;

  upload_vertices(v, &vao_, &vbo_);
  glBindVertexArray(0);
}

BodyPass::~BodyPass() {
  for (auto& [key, m] : meshes_) {
    glDeleteBuffers(1, &m.vbo);
    glDeleteVertexArrays(1, &m.vao);
  }
  glDeleteBuffers(1, &vbo_);
  glDeleteVertexArrays(1, &vao_);
}

const BodyPass::MeshBuffers& BodyPass::mesh_buffers(
    const std::shared_ptr<const std::vector<glm::vec3>>& triangles) const {
  MeshBuffers& m = meshes_[triangles.get()];
  m.unused_frames = 0;
  if (m.vao != 0) return m;
  // (position, normal) pairs become BodyVertex (cap 0) in the layout of the shapes' buffer.
  std::vector<BodyVertex> v;
  v.reserve(triangles->size() / 2);
  for (size_t i = 0; i + 1 < triangles->size(); i += 2) v.push_back(BodyVertex{(*triangles)[i], (*triangles)[i + 1], 0.0f});
  m.triangles = triangles;
  m.count = GLsizei(v.size() / 3 * 3);
  upload_vertices(v, &m.vao, &m.vbo);
  glBindVertexArray(vao_);
  return m;
}

void BodyPass::forget_unused_meshes() const {
  for (auto it = meshes_.begin(); it != meshes_.end();) {
    if (++it->second.unused_frames > 120) {
      glDeleteBuffers(1, &it->second.vbo);
      glDeleteVertexArrays(1, &it->second.vao);
      it = meshes_.erase(it);
    } else {
      ++it;
    }
  }
}

void BodyPass::draw(const CameraView& camera, const std::vector<BodyDraw>& bodies) const {
  forget_unused_meshes();
  if (bodies.empty()) return;
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  glFrontFace(GL_CCW);
  program_.use();
  const glm::mat4 view_projection = camera.projection * camera.view;
  glUniformMatrix4fv(program_.uniform("u_view_projection"), 1, GL_FALSE, glm::value_ptr(view_projection));
  // The eye: the view matrix is a rotation and a translation.
  const glm::vec3 eye = -glm::transpose(glm::mat3(camera.view)) * glm::vec3(camera.view[3]);
  glUniform3fv(program_.uniform("u_eye"), 1, glm::value_ptr(eye));
  const glm::vec3 light = glm::normalize(glm::vec3(-0.4f, 1.0f, 0.55f));  // as the obstacles'
  glUniform3fv(program_.uniform("u_light_dir"), 1, glm::value_ptr(light));
  glUniform3fv(program_.uniform("u_color"), 1, kColor);
  const GLint model = program_.uniform("u_model"), scale = program_.uniform("u_scale"),
              half_height = program_.uniform("u_half_height"), kind = program_.uniform("u_kind"),
              highlight = program_.uniform("u_highlight");
  glBindVertexArray(vao_);
  for (const BodyDraw& b : bodies) {
    const bool mesh = b.kind == int(BodyKind::Mesh);
    if (mesh && (!b.mesh || b.mesh->size() < 6)) continue;
    const glm::vec3 s = mesh ? glm::vec3(1.0f) : b.kind == int(BodyKind::Box) ? b.half_extent : glm::vec3(b.radius);
    if (!(s.x > 0.0f && s.y > 0.0f && s.z > 0.0f)) continue;
    // The pose as a matrix: the quaternion's rotation, then the translation to the centre.
    const float w = b.orientation.x, x = b.orientation.y, y = b.orientation.z, z = b.orientation.w;
    const float norm = std::sqrt(w * w + x * x + y * y + z * z);
    if (!(norm > 0.0f)) continue;
    const float qw = w / norm, qx = x / norm, qy = y / norm, qz = z / norm;
    glm::mat4 m(1.0f);  // column-major: m[column][row]
    m[0] = glm::vec4(1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy + qw * qz), 2 * (qx * qz - qw * qy), 0);
    m[1] = glm::vec4(2 * (qx * qy - qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz + qw * qx), 0);
    m[2] = glm::vec4(2 * (qx * qz + qw * qy), 2 * (qy * qz - qw * qx), 1 - 2 * (qx * qx + qy * qy), 0);
    m[3] = glm::vec4(b.position, 1.0f);
    glUniformMatrix4fv(model, 1, GL_FALSE, glm::value_ptr(m));
    glUniform3fv(scale, 1, glm::value_ptr(s));
    glUniform1f(half_height, b.kind == int(BodyKind::Capsule) ? b.half_height : 0.0f);
    glUniform1i(kind, b.kind);
    glUniform1i(highlight, b.highlighted ? 1 : 0);
    if (mesh) {
      const MeshBuffers& buffers = mesh_buffers(b.mesh);
      glBindVertexArray(buffers.vao);
      glDrawArrays(GL_TRIANGLES, 0, buffers.count);
      glBindVertexArray(vao_);
    } else if (b.kind == int(BodyKind::Box))
      glDrawArrays(GL_TRIANGLES, box_first_, box_count_);
    else if (b.kind == int(BodyKind::Capsule))
      glDrawArrays(GL_TRIANGLES, capsule_first_, capsule_count_);
    else
      glDrawArrays(GL_TRIANGLES, sphere_first_, sphere_count_);
  }
  glBindVertexArray(0);
  glDisable(GL_CULL_FACE);
}

}  // namespace tp
