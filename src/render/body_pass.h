// Rigid bodies as solid, lit shapes: a box (the cube [-1, 1]^3 scaled to its half
// extents), a sphere (the unit sphere scaled to its radius) and a capsule (the unit
// sphere cut at its equator, the halves moved apart by the cylinder's length, a band
// joining them), each generated once, and a mesh body's own triangles (uploaded the first
// time it is drawn, freed when no body has drawn it for a second's frames); drawn per body
// with its pose (rotation, then its centre). Opaque, depth-tested and writing depth. As the obstacles (ObstaclePass), the
// renderer draws them twice in the surface modes: into the scene texture the water
// refracts (whose depth hides the particles behind them), and into the window before the
// water's shading.
#pragma once

#include <glad/gl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "render/gl_program.h"
#include "render/render_types.h"

namespace tp {

class BodyPass {
 public:
  explicit BodyPass(const std::string& shader_dir);  ///< throws RenderError
  ~BodyPass();
  BodyPass(const BodyPass&) = delete;
  BodyPass& operator=(const BodyPass&) = delete;

  // Into the bound framebuffer, depth-tested and writing depth; back faces culled. Leaves
  // blending off, culling off.
  void draw(const CameraView& camera, const std::vector<BodyDraw>& bodies) const;

  // The base colour: a light wood (pine), browner and darker than the obstacles' sandstone.
  static constexpr float kColor[3] = {0.72f, 0.45f, 0.22f};

 private:
  GlProgram program_;
  GLuint vao_ = 0;
  GLuint vbo_ = 0;
  GLint box_first_ = 0, box_count_ = 0;
  GLint sphere_first_ = 0, sphere_count_ = 0;
  GLint capsule_first_ = 0, capsule_count_ = 0;
  struct MeshBuffers {
    std::shared_ptr<const std::vector<glm::vec3>> triangles;  ///< kept: its address is the key
    GLuint vao = 0, vbo = 0;
    GLsizei count = 0;
    int unused_frames = 0;
  };
  const MeshBuffers& mesh_buffers(const std::shared_ptr<const std::vector<glm::vec3>>& triangles) const;
  void forget_unused_meshes() const;
  mutable std::map<const void*, MeshBuffers> meshes_;
};

}  // namespace tp
