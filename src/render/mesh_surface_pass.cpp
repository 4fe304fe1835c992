#include "render/mesh_surface_pass.h"

#include <glm/gtc/type_ptr.hpp>

namespace tp {

MeshSurfacePass::MeshSurfacePass(const std::string& shader_dir)
    : thickness_(GlProgram::load(shader_dir, "mesh.vert", "mesh_thickness.frag")),
      surface_(GlProgram::load(shader_dir, "mesh.vert", "mesh_surface.frag")) {}

void MeshSurfacePass::set_camera(const GlProgram& program, const CameraView& camera) const {
  program.use();
  glUniformMatrix4fv(program.uniform("u_view"), 1, GL_FALSE, glm::value_ptr(camera.view));
  glUniformMatrix4fv(program.uniform("u_projection"), 1, GL_FALSE, glm::value_ptr(camera.projection));
}

void MeshSurfacePass::draw_thickness(const CameraView& camera, const SurfaceTargets& targets,
                                     const MeshBuffer& mesh) const {
  glBindFramebuffer(GL_FRAMEBUFFER, targets.thickness_fbo);
  const GLfloat none[] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, none);
  glViewport(0, 0, targets.thickness_width(), targets.thickness_height());
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ONE, GL_ONE);
  set_camera(thickness_, camera);
  mesh.draw();
  glDisable(GL_BLEND);
}

void MeshSurfacePass::draw_surface(const CameraView& camera, const SurfaceTargets& targets,
                                   const MeshBuffer& mesh, bool test_scene) const {
  if (test_scene) targets.copy_scene_depth();
  glBindFramebuffer(GL_FRAMEBUFFER, targets.mesh_fbo);
  glViewport(0, 0, targets.scaled_width(), targets.scaled_height());
  const GLfloat none[] = {0.0f, 0.0f, 0.0f, 0.0f};
  glClearBufferfv(GL_COLOR, 0, none);  // depth 0: no water
  glClearBufferfv(GL_COLOR, 1, none);
  const GLfloat far_depth = 1.0f;
  if (!test_scene) glClearBufferfv(GL_DEPTH, 0, &far_depth);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  set_camera(surface_, camera);
  mesh.draw();
  // The water's rectangle: the whole screen (the passes after it draw only there).
  glBindFramebuffer(GL_FRAMEBUFFER, targets.bounds_fbo);
  glViewport(0, 0, 1, 1);
  const GLfloat whole[] = {1.0f, 1.0f, 1.0f, 1.0f};  // (-lo.x, -lo.y, hi.x, hi.y) in NDC
  glClearBufferfv(GL_COLOR, 0, whole);
}

}  // namespace tp
