// The walls and obstacles as the gas sees them on a backend B: which cells are solid (the
// obstacles' cells, kernels/gas.h gas_solid_cell) and their velocity, which faces are fixed
// (a wall's or a solid's, gas_face_fixed) and at what velocity, and the obstacles' moves
// between steps: an obstacle moved by the user pushes the gas through its faces.
#pragma once

#include <algorithm>
#include <vector>

#include "kernels/gas.h"
#include "kernels/obstacle.h"

namespace tp {

template <class B>
class GasBoundary {
 public:
  template <class T>
  using Buffer = typename B::template Buffer<T>;

  // Sized for `grid` and `obstacles` obstacles, none moving. Then update(.., 0).
  void reset(const GasGrid& grid, size_t obstacles) {
    grid_ = grid;
    for (int a = 0; a < 3; ++a) {
      fixed_[a].resize(grid.faces(a));
      fixed_value_[a].resize(grid.faces(a));
    }
    solid_.resize(grid.cells());
    solid_velocity_.resize(grid.cells());
    obstacles_.resize(std::max<size_t>(obstacles, 1));
    pending_moves_.assign(obstacles, false);
    pending_centers_.assign(obstacles, Vec3{0, 0, 0});
  }

  // Obstacle `index` moves to `centre` at the next update.
  void move_obstacle(int index, Vec3 center) {
    if (index < 0 || index >= int(pending_moves_.size())) return;
    pending_moves_[size_t(index)] = true;
    pending_centers_[size_t(index)] = center;
  }

  // Before a step of dt (0: at a reset, when everything is computed): the obstacles asked
  // to move go there with the velocity that takes them there in dt, the others stop. When
  // any moved or stopped, the solid cells (whose smoke, heat and dye in `scalars` go),
  // their velocities and the fixed faces are new and this returns true.
  bool update(std::vector<ObstacleShape>& obstacles, float dt, float* scalars) {
    bool changed = dt == 0.0f;
    for (size_t i = 0; i < obstacles.size(); ++i) {
      ObstacleShape& o = obstacles[i];
      const bool was_moving = o.velocity.x != 0.0f || o.velocity.y != 0.0f || o.velocity.z != 0.0f;
      if (pending_moves_[i] && dt > 0.0f) {
        o.velocity = (pending_centers_[i] - o.center) * (1.0f / dt);
        o.center = pending_centers_[i];
        changed = true;
      } else {
        o.velocity = Vec3{0, 0, 0};
        changed = changed || was_moving;
      }
      pending_moves_[i] = false;
    }
    if (!changed) return false;
    const GasGrid g = grid_;
    const int count = int(obstacles.size());
    if (count > 0) B::copy_from_host(obstacles_.data(), obstacles.data(), size_t(count));
    const ObstacleShape* obs = obstacles_.data();
    unsigned char* solid = solid_.data();
    Vec4* sv = solid_velocity_.data();
    B::for_each(g.cells(), [=] TP_HD(uint c) { gas_solid_cell(g, obs, count, c, solid, sv, scalars); });
    for (int axis = 0; axis < 3; ++axis) {
      unsigned char* fixed = fixed_[axis].data();
      float* value = fixed_value_[axis].data();
      B::for_each(g.faces(axis), [=] TP_HD(uint f) {
        float v = 0.0f;
        fixed[f] = gas_face_fixed(g, solid, sv, axis, g.face_of(axis, f), &v) ? 1 : 0;
        value[f] = v;
      });
    }
    return true;
  }

  // Every fixed face of `velocity` (u, v, w) at its wall's or solid's velocity.
  void enforce(Buffer<float>* velocity) const {
    const GasGrid g = grid_;
    for (int axis = 0; axis < 3; ++axis) {
      float* ua = velocity[axis].data();
      const unsigned char* fixed = fixed_[axis].data();
      const float* value = fixed_value_[axis].data();
      B::for_each(g.faces(axis), [=] TP_HD(uint f) {
        if (fixed[f]) ua[f] = value[f];
      });
    }
  }

  const unsigned char* solid() const { return solid_.data(); }   ///< per cell, 1: solid
  const unsigned char* fixed(int axis) const { return fixed_[axis].data(); }  ///< per face, 1: fixed

 private:
  GasGrid grid_;
  Buffer<unsigned char> solid_;
  Buffer<Vec4> solid_velocity_;     ///< the solid cells' (w unused)
  Buffer<unsigned char> fixed_[3];  ///< 1: the face is a wall's or a solid's (gas_face_fixed)
  Buffer<float> fixed_value_[3];    ///< and its velocity
  Buffer<ObstacleShape> obstacles_;
  std::vector<bool> pending_moves_;
  std::vector<Vec3> pending_centers_;
};

}  // namespace tp
