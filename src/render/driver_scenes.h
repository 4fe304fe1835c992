// Memory that Mesa's llvmpipe (the software OpenGL of machines without a GPU driver, and of
// Xvfb) keeps for what was drawn before. llvmpipe bins each frame's drawing into "scenes",
// one for each framebuffer drawn into before a flush, makes a new scene whenever all that
// it has are still being rasterized, and empties a scene (frees its binned triangles and
// lets go of the textures and buffers it used, deleted ones included) only when it takes
// that scene again, always the first free one (lp_setup.c, lp_setup_get_empty_scene). The
// surface and mesh modes draw into a dozen framebuffers a frame; the spheres need one or
// two. So after the surface or the mesh, the scenes the spheres never reach keep their last
// contents: 8 s into the spheres after the mesh, a heap profile found 24 MB of the
// driver's from the mesh's draws and 8 MB of the surface's (deleted) textures, and the
// monkey's checkpoints (tests/app/test_window_monkey.cpp) swung by 2 to 26 MB with what it
// had drawn last. A scene switch leaves the old mode's in them the same way.
//
// DriverScenes::recycle() empties them: a few clears of the window's back buffer, each
// flushed. llvmpipe queues the flushes faster than its threads clear a window, so each
// flush finds the scenes before it still busy and takes (and empties) the next one.
// Measured (the dam break at 1280x900, surface, mesh, then spheres; resident 8 s later):
// 166.7 and 175.2 MB without, 144.3 MB with 8 clears, 146.0 with 16, 148.0 with 24 and
// 149.5 with 32 (more clears than scenes make new ones).
#pragma once

namespace tp {

class DriverScenes {
 public:
  // Looks at the current context's GL_RENDERER: only llvmpipe needs it.
  DriverScenes();
  // Before the frame's drawing (it clears the back buffer, which the frame clears again);
  // nothing elsewhere than llvmpipe. Leaves framebuffer 0 bound and the clear colour as
  // it was.
  void recycle() const;

  static constexpr int kClears = 8;

 private:
  bool llvmpipe_ = false;
};

}  // namespace tp
