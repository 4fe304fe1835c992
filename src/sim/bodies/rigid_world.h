// The rigid-body world on the host: bodies of src/sim/bodies/rigid_body.h integrated under
// gravity and the fluid's force and torque, with contacts between them, with the tank's
// walls and with static colliders (shapes and triangle meshes that never move), and the
// mouse joint. Bullet does the contacts and the integration (semi-implicit Euler), behind
// this header: no Bullet type shows here.
//
// Exact replay and restore: a step is a pure function of the bodies' states and the step's
// inputs. Bullet's world is rebuilt from our state every step (a fresh broadphase, solver,
// world and rigid bodies, added in index order; sleeping off) and thrown away after it, so
// that no contact cache, warm-starting impulse or sleeping timer outlives the step; even the
// solver's shuffle is seeded by the state. Copying the states (RigidBodyState) into a world
// with the same definitions, tank, static colliders and grab continues bit for bit (on the
// same build and machine). What lives between steps holds no contact: the collision shapes
// (immutable) and Bullet's tables of collision algorithms with their memory pools (empty
// after each step, which step() checks). docs/bodies.md says what the rebuild costs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/bodies/rigid_body.h"

namespace tp {

// A contact point of the last step (touching or overlapping), as found at the start of the
// step's last substep.
struct RigidContact {
  int body_a = -1;       ///< body index, or -1 for the tank and static colliders
  int body_b = -1;       ///< body index, or -1 for the tank and static colliders
  Vec3 point{0, 0, 0};   ///< [m] on body b's surface
  Vec3 normal{0, 0, 0};  ///< unit, from b towards a
  float depth = 0.0f;    ///< [m] >= 0: the surfaces overlap by this much
  float impulse = 0.0f;  ///< [N s] the normal impulse the solver applied
};

struct RigidContactStats {
  int count = 0;                 ///< contact points (touching or overlapping)
  float max_penetration = 0.0f;  ///< [m] the deepest overlap, 0 when none
};

// The sequential-impulse solver's settings (docs/bodies.md: why these values). Nothing is
// warm-started from the step before, so each step needs enough passes to converge.
struct RigidSolverSettings {
  int iterations = 40;          ///< solver passes per substep
  int substeps = 1;             ///< Bullet steps per step (warm-started from each other)
  bool randomize_order = true;  ///< shuffle the constraints, seeded by the state's hash
  float split_erp = 0.4f;       ///< share of an overlap that split impulse removes per substep
  float slop = 0.0002f;         ///< [m] the overlap left in resting contacts (keeps them found)
};

// How long the last step took, in its parts.
struct RigidStepTimes {
  double build_ms = 0.0;     ///< the fresh Bullet world and bodies
  double simulate_ms = 0.0;  ///< Bullet's step: collisions, solver, integration
  double teardown_ms = 0.0;  ///< reading the state back and destroying the world
  double total() const { return build_ms + simulate_ms + teardown_ms; }
};

class RigidWorld {
 public:
  static constexpr float kMaxStep = 0.02f;  ///< [s] a longer step is clamped to this

  RigidWorld();
  ~RigidWorld();
  RigidWorld(RigidWorld&&) noexcept;
  RigidWorld& operator=(RigidWorld&&) noexcept;
  RigidWorld(const RigidWorld&) = delete;
  RigidWorld& operator=(const RigidWorld&) = delete;

  // The tank [lo, hi]: six static walls (thick boxes outside it). In 2D (dimensions == 2)
  // there are no z walls and the bodies stay in the plane z = lo.z: they move in x and y
  // and turn about z only (Bullet's linear factor (1,1,0), angular factor (0,0,1)).
  void set_tank(Vec3 lo, Vec3 hi, int dimensions, BodyMaterial material = {});
  void clear_tank();
  int dimensions() const;

  // A body; its index is size() - 1 before the call. Throws std::invalid_argument, with a
  // sentence that names the fault, for a mass or inertia that is not finite and > 0, a bad
  // shape, or a state that is not finite. In 2D the state is put into the plane.
  int add_body(const RigidBodyDef& def, const RigidBodyState& state);
  // Removes body `index`; the bodies after it move down by one.
  void remove_body(int index);
  size_t size() const;
  const RigidBodyDef& def(int index) const;
  RigidBodyDef& def(int index);  ///< may be changed between steps (a new shape is rebuilt)
  const RigidBodyState& state(int index) const;
  RigidBodyState& state(int index);

  // Colliders that never move: a triangle mesh (need not be closed) or a primitive shape,
  // placed at `pose`. Return the collider's index. Throw std::invalid_argument as add_body.
  int add_static_mesh(std::vector<Vec3> vertices, std::vector<uint32_t> indices, RigidPose pose,
                      BodyMaterial material = {});
  int add_static_shape(const BodyGeometry& geometry, RigidPose pose, BodyMaterial material = {});
  size_t static_count() const;
  void clear_statics();

  // One step of dt: gravity [m/s^2], force[i] [N] and torque[i] [N m] on body i (world
  // frame, about its centre of mass; entries past the vectors' ends count as zero),
  // contacts, the grab. Kinematic bodies move by their own velocities. Bad input does not
  // throw: a dt that is not > 0 skips the step, a dt over kMaxStep is clamped, a force or
  // torque that is not finite counts as zero, a body whose definition or state went bad is
  // left out of the step; warning() says which.
  void step(float dt, Vec3 gravity, const std::vector<Vec3>& force = {},
            const std::vector<Vec3>& torque = {});

  // The mouse joint (Box2D's b2MouseJoint): a soft point constraint that pulls body
  // `body`'s point `local_point` (body frame) towards the world point `target` in the next
  // steps, as a spring of `frequency_hz` and `damping_ratio` for the body's mass, solved
  // implicitly (stable at any frequency), its force at most `max_force` [N] (Box2D's samples
  // give a multiple of the body's weight). In 2D the target is taken in the body's plane.
  void set_grab(int body, Vec3 local_point, Vec3 target, float frequency_hz, float damping_ratio,
                float max_force);
  void set_grab_target(Vec3 target);
  void clear_grab();
  int grabbed_body() const;  ///< -1 when none

  void set_solver(const RigidSolverSettings& settings);
  const RigidSolverSettings& solver() const;

  // What the last step found and did.
  const std::vector<RigidContact>& contacts() const;
  RigidContactStats contact_stats() const;
  const RigidStepTimes& times() const;
  const std::string& warning() const;  ///< empty when the last step's input was sound

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tp
