// The rigid-body world (src/sim/bodies/rigid_world.h) on Bullet: a stack that stands, a
// bounce, Coulomb friction, exact replay and restore, 2D, forces and torques in free space,
// static and dynamic meshes, the mouse joint, kinematic bodies, bad input, and the mass
// helpers of src/sim/bodies/rigid_body.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "sim/bodies/rigid_shape.h"
#include "sim/bodies/rigid_world.h"
#include "sim/bodies/triangle_mesh.h"

namespace tp {
namespace {

constexpr float kG = 9.81f;
const Vec3 kGravity{0.0f, -kG, 0.0f};
constexpr float kPi = 3.14159265358979f;

RigidBodyState at(Vec3 position, Quat orientation = quat_identity()) {
  RigidBodyState s;
  s.pose = RigidPose{position, orientation};
  return s;
}

float distance(Vec3 a, Vec3 b) { return std::sqrt(length2(a - b)); }
float vec_length(Vec3 a) { return std::sqrt(length2(a)); }
// The angle [degrees] of the rotation from identity.
float tilt_degrees(Quat q) {
  return 2.0f * std::acos(std::min(1.0f, std::fabs(q.w))) * 180.0f / kPi;
}

// A closed box of 12 triangles, counter-clockwise seen from outside.
BodyGeometry mesh_box(Vec3 h) {
  std::vector<Vec3> v;
  for (int i = 0; i < 8; ++i)
    v.push_back(Vec3{(i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z});
  const int quads[6][4] = {{0, 2, 6, 4}, {1, 3, 7, 5}, {0, 1, 5, 4},
                           {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}};
  std::vector<uint32_t> t;
  for (const auto& q : quads) {
    const int tris[2][3] = {{q[0], q[1], q[2]}, {q[0], q[2], q[3]}};
    for (const auto& tri : tris) {
      uint32_t a = tri[0], b = tri[1], c = tri[2];
      if (dot(cross(v[b] - v[a], v[c] - v[a]), v[a]) < 0.0f) std::swap(b, c);
      t.insert(t.end(), {a, b, c});
    }
  }
  return mesh_geometry(std::move(v), std::move(t));
}

// A flat square of (cells x cells) quads at height y, normals up.
void add_mesh_floor(RigidWorld& world, float y, float size, int cells, BodyMaterial material) {
  std::vector<Vec3> v;
  std::vector<uint32_t> t;
  for (int j = 0; j <= cells; ++j)
    for (int i = 0; i <= cells; ++i) v.push_back(Vec3{size * i / cells, 0.0f, size * j / cells});
  for (int j = 0; j < cells; ++j)
    for (int i = 0; i < cells; ++i) {
      const uint32_t a = j * (cells + 1) + i, b = a + 1, c = a + cells + 1, d = c + 1;
      t.insert(t.end(), {a, c, b, b, c, d});
    }
  world.add_static_mesh(v, t, RigidPose{{0.0f, y, 0.0f}, quat_identity()}, material);
}

bool same_bits(const RigidWorld& a, const RigidWorld& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a.state(static_cast<int>(i)), &b.state(static_cast<int>(i)),
                    sizeof(RigidBodyState)) != 0)
      return false;
  return true;
}

TEST(RigidWorld, ThreeBoxesStayStackedForTenSeconds) {
  RigidWorld world;
  world.set_tank({0, 0, 0}, {1, 1, 1}, 3);
  const Vec3 half{0.1f, 0.05f, 0.1f};  // 0.2 x 0.1 x 0.2 m, 500 kg/m^3: 2 kg
  const RigidBodyDef def = uniform_body(box_geometry(half), 500.0f);
  EXPECT_NEAR(def.mass, 2.0f, 1e-5f);
  std::vector<Vec3> start;
  for (int k = 0; k < 3; ++k) {
    start.push_back(Vec3{0.5f, half.y * (2 * k + 1), 0.5f});
    world.add_body(def, at(start.back()));
  }
  const float dt = 0.002f;
  float drift = 0.0f, tilt = 0.0f, penetration = 0.0f, worst_load = 0.0f;
  for (int step = 0; step < 5000; ++step) {  // 10 s
    world.step(dt, kGravity);
    penetration = std::max(penetration, world.contact_stats().max_penetration);
    // Each box touches only the one below it (or the floor), which carries the weight above.
    float load[3] = {0, 0, 0};
    for (const RigidContact& c : world.contacts()) {
      const int upper = std::max(c.body_a, c.body_b), lower = std::min(c.body_a, c.body_b);
      ASSERT_EQ(lower, upper - 1);
      load[upper] += c.impulse / dt;
    }
    if (step > 100)
      for (int k = 0; k < 3; ++k)
        worst_load = std::max(worst_load, std::fabs(load[k] / ((3 - k) * def.mass * kG) - 1.0f));
    for (int k = 0; k < 3; ++k) {
      drift = std::max(drift, distance(world.state(k).pose.position, start[k]));
      tilt = std::max(tilt, tilt_degrees(world.state(k).pose.orientation));
    }
  }
  std::printf(
      "stack of 3 for 10 s: largest drift %.3f mm, tilt %.4f deg, overlap %.3f mm, "
      "%d contact points at the end, loads within %.2f %% of the weights\n",
      drift * 1e3f, tilt, penetration * 1e3f, world.contact_stats().count, worst_load * 100.0f);
  EXPECT_LT(worst_load, 0.02f);
  EXPECT_LT(drift, 0.005f);
  EXPECT_LT(tilt, 1.0f);
  for (int k = 0; k < 3; ++k) EXPECT_LT(vec_length(world.state(k).motion.velocity), 1e-2f);
  EXPECT_TRUE(world.warning().empty()) << world.warning();
}

TEST(RigidWorld, BallBouncesToRestitutionSquaredTimesTheHeight) {
  for (const float dt : {0.0005f, 0.002f, 0.005f})
    for (const float e : {0.3f, 0.5f, 0.8f, 0.95f}) {
      RigidWorld world;
      const BodyMaterial material{0.5f, e};
      world.set_tank({0, 0, 0}, {1, 2, 1}, 3, material);
      const float r = 0.05f, h = 1.0f;  // the bottom starts h above the floor
      world.add_body(uniform_body(sphere_geometry(r), 1000.0f, material), at({0.5f, h + r, 0.5f}));
      bool hit = false;
      float apex = 0.0f;
      for (int step = 0; step * dt < 2.0f; ++step) {  // the first bounce and its apex
        world.step(dt, kGravity);
        const RigidBodyState& s = world.state(0);
        if (!hit && s.motion.velocity.y > 0.0f) hit = true;
        if (hit && s.motion.velocity.y < 0.0f) break;
        if (hit) apex = std::max(apex, s.pose.position.y - r);
      }
      std::printf(
          "restitution %.2f from %.2f m, dt %.1f ms: apex %.4f m, e^2 h = %.4f m (%.1f %%)\n", e, h,
          dt * 1e3f, apex, e * e * h, 100.0f * (apex / (e * e * h) - 1.0f));
      EXPECT_TRUE(hit);
      EXPECT_NEAR(apex, e * e * h, 0.05f * e * e * h);  // measured: within 2.2 %
    }
}

// The box's mu 0.64 on the floor's 0.25: the pair's mu is their geometric mean, 0.4.
TEST(RigidWorld, SlidingBoxStopsAfterTheCoulombDistance) {
  const float mu = 0.4f, v0 = 1.0f;
  const float expected = v0 * v0 / (2.0f * mu * kG);
  RigidWorld world;
  world.set_tank({0, 0, 0}, {2, 1, 1}, 3, BodyMaterial{0.25f, 0.0f});
  const Vec3 half{0.1f, 0.05f, 0.1f};
  RigidBodyState s = at({0.5f, half.y, 0.5f});
  s.motion.velocity = Vec3{v0, 0.0f, 0.0f};
  world.add_body(uniform_body(box_geometry(half), 500.0f, BodyMaterial{0.64f, 0.0f}), s);
  for (int step = 0; step < 1000; ++step) world.step(0.002f, kGravity);  // 2 s
  const RigidBodyState& end = world.state(0);
  const float slid = end.pose.position.x - 0.5f;
  std::printf("slid %.4f m at mu %.2f from %.2f m/s: v0^2/(2 mu g) = %.4f m (%.1f %%)\n", slid, mu,
              v0, expected, 100.0f * (slid / expected - 1.0f));
  EXPECT_NEAR(slid, expected, 0.1f * expected);
  EXPECT_LT(vec_length(end.motion.velocity), 1e-3f);
  EXPECT_LT(tilt_degrees(end.pose.orientation), 1.0f);
}

// A mixed pile that exercises every path of a step: boxes, spheres, capsules and a mesh
// body in a tank with a static mesh, a kinematic paddle, forces that change each step and a
// grab.
void build_pile(RigidWorld& world) {
  world.set_tank({0, 0, 0}, {1, 1.5f, 1}, 3, BodyMaterial{0.6f, 0.2f});
  add_mesh_floor(world, 0.02f, 1.0f, 4, BodyMaterial{0.5f, 0.1f});
  for (int k = 0; k < 12; ++k) {
    const float x = 0.2f + 0.15f * (k % 4), y = 0.2f + 0.15f * (k / 4), z = 0.35f + 0.1f * (k % 3);
    const Quat q =
        quat_normalized(quat_from_axis_angle(Vec3{0.6f, 0.8f, 0.0f}, 0.3f * static_cast<float>(k)));
    BodyGeometry g = k % 4 == 0   ? box_geometry({0.05f, 0.03f, 0.04f})
                     : k % 4 == 1 ? sphere_geometry(0.04f)
                     : k % 4 == 2 ? capsule_geometry(0.03f, 0.03f)
                                  : mesh_box({0.04f, 0.04f, 0.03f});
    RigidBodyState s = at({x, y, z}, q);
    s.motion.angular_velocity = Vec3{0.5f * k, 0.0f, -0.2f * k};
    world.add_body(uniform_body(g, 400.0f + 100.0f * k), s);
  }
  RigidBodyDef paddle = uniform_body(box_geometry({0.02f, 0.1f, 0.3f}), 1000.0f);
  paddle.kinematic = true;
  RigidBodyState ps = at({0.05f, 0.2f, 0.5f});
  ps.motion.velocity = Vec3{0.2f, 0.0f, 0.0f};
  world.add_body(paddle, ps);
  world.set_grab(3, {0.01f, 0.0f, 0.0f}, {0.5f, 0.8f, 0.5f}, 3.0f, 0.5f, 40.0f);
}

void run_pile(RigidWorld& world, int first_step, int steps) {
  std::vector<Vec3> force(world.size()), torque(world.size());
  for (int step = first_step; step < first_step + steps; ++step) {
    for (size_t i = 0; i < force.size(); ++i) {
      const float phase = 0.01f * static_cast<float>(step) + static_cast<float>(i);
      force[i] = Vec3{std::sin(phase), 0.5f * std::cos(phase), 0.2f};
      torque[i] = Vec3{0.01f * std::cos(phase), 0.0f, 0.01f * std::sin(phase)};
    }
    world.step(0.002f, kGravity, force, torque);
  }
}

TEST(RigidWorld, TwoRunsFromTheSameStartAreBitwiseIdentical) {
  RigidWorld a, b;
  build_pile(a);
  build_pile(b);
  run_pile(a, 0, 1000);  // 2 s
  run_pile(b, 0, 1000);
  EXPECT_TRUE(same_bits(a, b));
  EXPECT_GT(a.contact_stats().count, 10);  // they do touch
  EXPECT_TRUE(a.warning().empty()) << a.warning();
  // The other solver paths: substeps, and the constraints in their fixed order.
  RigidSolverSettings settings;
  settings.substeps = 3;
  settings.randomize_order = false;
  RigidWorld c, d;
  for (RigidWorld* w : {&c, &d}) {
    build_pile(*w);
    w->set_solver(settings);
    run_pile(*w, 0, 250);
  }
  EXPECT_TRUE(same_bits(c, d));
}

TEST(RigidWorld, StatesCopiedIntoAFreshWorldContinueBitwise) {
  RigidWorld a;
  build_pile(a);
  run_pile(a, 0, 500);  // 1 s
  RigidWorld b;
  build_pile(b);  // the same definitions, tank, colliders and grab
  for (size_t i = 0; i < a.size(); ++i) b.state(static_cast<int>(i)) = a.state(static_cast<int>(i));
  run_pile(a, 500, 500);
  run_pile(b, 500, 500);
  EXPECT_TRUE(same_bits(a, b));
}

TEST(RigidWorld, TwoDimensionalBodiesStayInThePlaneAndTurnAboutZ) {
  RigidWorld world;
  world.set_tank({0, 0, 0}, {1, 1, 0}, 2);
  for (int k = 0; k < 6; ++k) {
    BodyGeometry g = k % 3 == 0   ? box_geometry({0.06f, 0.04f, 0.05f})
                     : k % 3 == 1 ? sphere_geometry(0.05f)
                                  : capsule_geometry(0.03f, 0.04f);
    RigidBodyState s = at({0.2f + 0.12f * k, 0.2f + 0.1f * (k % 2), 0.3f},
                          quat_normalized(Quat{1.0f, 0.1f, 0.2f, 0.3f * k}));
    s.motion.velocity = Vec3{0.3f, 0.1f, 0.5f};
    s.motion.angular_velocity = Vec3{1.0f, 2.0f, 3.0f};
    world.add_body(uniform_body(g, 600.0f), s);
  }
  std::vector<Vec3> force(6, Vec3{0.1f, 0.0f, 5.0f}), torque(6, Vec3{0.3f, 0.3f, 0.01f});
  int contacts = 0;
  for (int step = 0; step < 1000; ++step) {
    world.step(0.002f, kGravity, force, torque);
    contacts += world.contact_stats().count;
    for (int k = 0; k < 6; ++k) {
      const RigidBodyState& s = world.state(k);
      ASSERT_EQ(s.pose.position.z, 0.0f);
      ASSERT_EQ(s.pose.orientation.x, 0.0f);
      ASSERT_EQ(s.pose.orientation.y, 0.0f);
      ASSERT_EQ(s.motion.velocity.z, 0.0f);
      ASSERT_EQ(s.motion.angular_velocity.x, 0.0f);
      ASSERT_EQ(s.motion.angular_velocity.y, 0.0f);
    }
  }
  EXPECT_GT(contacts, 0);
  for (int k = 0; k < 6; ++k) EXPECT_LT(world.state(k).pose.position.y, 0.2f);  // they fell
}

TEST(RigidWorld, ForceAndTorqueInFreeSpace) {
  RigidWorld world;
  const RigidBodyDef box = uniform_body(box_geometry({0.1f, 0.05f, 0.2f}), 700.0f);
  const RigidBodyDef ball = uniform_body(sphere_geometry(0.1f), 300.0f);
  world.add_body(box, at({0, 0, 0}));
  world.add_body(box, at({5, 0, 0}));
  world.add_body(ball, at({-5, 0, 0}));
  const Vec3 f{3.0f, -2.0f, 1.0f};
  const float tau = 0.02f;
  const Vec3 ball_torque{0.01f, -0.02f, 0.005f};
  const std::vector<Vec3> force{f, {0, 0, 0}, {0, 0, 0}};
  const std::vector<Vec3> torque{{0, 0, 0}, {tau, 0, 0}, ball_torque};
  const float dt = 0.001f, t = 1.0f;
  for (int step = 0; step < 1000; ++step) world.step(dt, {0, 0, 0}, force, torque);
  const auto rel = [](float got, float want) { return std::fabs(got - want) / std::fabs(want); };
  const Vec3 v = world.state(0).motion.velocity;
  EXPECT_LT(rel(v.x, f.x * t / box.mass), 1e-4f);
  EXPECT_LT(rel(v.y, f.y * t / box.mass), 1e-4f);
  EXPECT_LT(rel(v.z, f.z * t / box.mass), 1e-4f);
  EXPECT_LT(vec_length(world.state(0).motion.angular_velocity), 1e-6f);
  // x = F t^2 / (2 m), up to the half step of semi-implicit Euler
  EXPECT_NEAR(world.state(0).pose.position.x, f.x * t * t / (2 * box.mass),
              f.x * t * dt / box.mass);
  const Vec3 w = world.state(1).motion.angular_velocity;  // about the box's x, a principal axis
  EXPECT_LT(rel(w.x, tau * t / box.inertia.x), 1e-4f);
  EXPECT_LT(std::fabs(w.y) + std::fabs(w.z), 1e-4f * std::fabs(w.x));
  const Vec3 wb = world.state(2).motion.angular_velocity;
  EXPECT_LT(rel(wb.x, ball_torque.x * t / ball.inertia.x), 1e-4f);
  EXPECT_LT(rel(wb.y, ball_torque.y * t / ball.inertia.y), 1e-4f);
  EXPECT_LT(rel(wb.z, ball_torque.z * t / ball.inertia.z), 1e-4f);
  // the box turned by tau t^2 / (2 I) about x
  const Quat q = world.state(1).pose.orientation;
  const float angle = 2.0f * std::atan2(q.x, q.w);
  EXPECT_NEAR(angle, tau * t * t / (2 * box.inertia.x), 0.01f * tau * t * t / (2 * box.inertia.x));
}

TEST(RigidWorld, SphereAndMeshBoxRestOnAStaticMeshFloor) {
  RigidWorld world;
  add_mesh_floor(world, 0.1f, 1.0f, 8, BodyMaterial{});
  const float r = 0.05f;
  const Vec3 half{0.1f, 0.05f, 0.1f};
  world.add_body(uniform_body(sphere_geometry(r), 800.0f), at({0.31f, 0.1f + r + 0.01f, 0.33f}));
  world.add_body(uniform_body(mesh_box(half), 500.0f), at({0.7f, 0.1f + half.y + 0.01f, 0.6f}));
  for (int step = 0; step < 1000; ++step) world.step(0.002f, kGravity);
  const RigidBodyState& ball = world.state(0);
  const RigidBodyState& box = world.state(1);
  std::printf(
      "on the mesh floor: sphere centre %.2f mm above r, mesh box centre %.2f mm above "
      "its half height, tilt %.3f deg\n",
      (ball.pose.position.y - 0.1f - r) * 1e3f, (box.pose.position.y - 0.1f - half.y) * 1e3f,
      tilt_degrees(box.pose.orientation));
  EXPECT_NEAR(ball.pose.position.y, 0.1f + r, 0.002f);
  EXPECT_NEAR(ball.pose.position.x, 0.31f, 0.002f);
  EXPECT_LT(vec_length(ball.motion.velocity), 1e-2f);
  EXPECT_NEAR(box.pose.position.y, 0.1f + half.y, 0.003f);
  EXPECT_LT(tilt_degrees(box.pose.orientation), 1.0f);
}

TEST(RigidWorld, MeshBodyRestsOnTheTankFloorWithoutSinking) {
  RigidWorld world;
  world.set_tank({0, 0, 0}, {1, 1, 1}, 3);
  const Vec3 half{0.1f, 0.05f, 0.1f};
  world.add_body(uniform_body(mesh_box(half), 500.0f), at({0.5f, half.y + 0.005f, 0.5f}));
  float lowest = 1.0f;
  for (int step = 0; step < 1500; ++step) {  // 3 s
    world.step(0.002f, kGravity);
    if (step > 250) lowest = std::min(lowest, world.state(0).pose.position.y);
  }
  const RigidBodyState& s = world.state(0);
  std::printf(
      "mesh box on the floor: centre %.3f mm above its half height (lowest %.3f), tilt "
      "%.3f deg\n",
      (s.pose.position.y - half.y) * 1e3f, (lowest - half.y) * 1e3f,
      tilt_degrees(s.pose.orientation));
  EXPECT_GT(lowest, half.y - 0.002f);
  EXPECT_NEAR(s.pose.position.y, half.y, 0.003f);
  EXPECT_LT(tilt_degrees(s.pose.orientation), 1.0f);
  EXPECT_LT(vec_length(s.motion.velocity), 1e-2f);
}

// A box whose faces are each cut into n x n squares (2 triangles each), counter-clockwise
// seen from outside: 12 n^2 triangles of a simple solid.
TriangleSoup fine_box(Vec3 h, int n) {
  TriangleSoup m;
  for (int axis = 0; axis < 3; ++axis) {
    for (const float side : {-1.0f, 1.0f}) {
      const int u = (axis + 1) % 3, w = (axis + 2) % 3;
      const uint32_t first = uint32_t(m.vertices.size());
      for (int j = 0; j <= n; ++j) {
        for (int i = 0; i <= n; ++i) {
          float c[3];
          c[axis] = side * (&h.x)[axis];
          c[u] = (&h.x)[u] * (2.0f * i / n - 1.0f);
          c[w] = (&h.x)[w] * (2.0f * j / n - 1.0f);
          m.vertices.push_back(Vec3{c[0], c[1], c[2]});
        }
      }
      for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
          const uint32_t a = first + j * (n + 1) + i, b = a + 1, d = a + (n + 1), e = d + 1;
          // (u, w, axis) is right-handed: counter-clockwise in (u, w) faces +axis.
          if (side > 0) m.triangles.push_back({a, b, e}), m.triangles.push_back({a, e, d});
          else m.triangles.push_back({a, e, b}), m.triangles.push_back({a, d, e});
        }
      }
    }
  }
  weld_vertices(&m);
  return m;
}

BodyGeometry geometry_of(const TriangleSoup& m) {
  std::vector<uint32_t> t;
  for (const auto& tri : m.triangles) t.insert(t.end(), tri.begin(), tri.end());
  return mesh_geometry(m.vertices, std::move(t));
}

// Clustering keeps the surface: fewer triangles, every vertex inside the box and within a
// cube's diagonal of its surface, the bottom face still flat.
TEST(RigidWorld, ClusteredVerticesStayOnTheSurfaceWithFewerTriangles) {
  const Vec3 h{0.1f, 0.05f, 0.1f};
  const TriangleSoup fine = fine_box(h, 20);
  ASSERT_EQ(fine.triangles.size(), 4800u);
  ASSERT_TRUE(check_closed(fine).closed());
  const float cell = 0.2f / 12.0f;
  const TriangleSoup coarse = cluster_vertices(fine, cell);
  std::printf("a box of %zu triangles clustered at %.1f mm: %zu triangles, %zu vertices\n",
              fine.triangles.size(), cell * 1e3f, coarse.triangles.size(), coarse.vertices.size());
  EXPECT_LT(coarse.triangles.size(), fine.triangles.size() / 4);
  EXPECT_GT(coarse.triangles.size(), 12u);
  for (const Vec3& v : coarse.vertices) {
    const float outside = std::max({std::fabs(v.x) - h.x, std::fabs(v.y) - h.y, std::fabs(v.z) - h.z});
    EXPECT_LE(outside, 1e-6f) << "inside the box";
    EXPECT_GE(outside, -cell * std::sqrt(3.0f)) << "within a cube's diagonal of its surface";
  }
  for (const auto& t : coarse.triangles) EXPECT_TRUE(t[0] != t[1] && t[1] != t[2] && t[0] != t[2]);
}

// A moving mesh of many triangles meets other bodies through a few hundred (the contact
// copy), a static one through all of its own; the clustered box still rests level on the
// floor at its height.
TEST(RigidWorld, ADetailedMovingMeshMeetsBodiesThroughAFewHundredTriangles) {
  const Vec3 half{0.1f, 0.05f, 0.1f};
  const BodyGeometry g = geometry_of(fine_box(half, 20));
  CollisionShape moving, still;
  moving.build(g, true);
  still.build(g, false);
  EXPECT_LE(moving.contact_triangles(), 600u);
  EXPECT_GT(moving.contact_triangles(), 12u);
  EXPECT_EQ(still.contact_triangles(), 4800u);
  RigidWorld world;
  world.set_tank({0, 0, 0}, {1, 1, 1}, 3);
  world.add_body(uniform_body(g, 500.0f), at({0.5f, half.y + 0.005f, 0.5f}));
  for (int step = 0; step < 1500; ++step) world.step(0.002f, kGravity);  // 3 s
  const RigidBodyState& s = world.state(0);
  std::printf("the %u-triangle box (%zu for contacts) on the floor: centre %.3f mm above its half height, "
              "tilt %.3f deg\n", 4800u, moving.contact_triangles(), (s.pose.position.y - half.y) * 1e3f,
              tilt_degrees(s.pose.orientation));
  EXPECT_NEAR(s.pose.position.y, half.y, 0.003f);
  EXPECT_LT(tilt_degrees(s.pose.orientation), 1.0f);
  EXPECT_LT(vec_length(s.motion.velocity), 1e-2f);
}

TEST(RigidWorld, GrabPullsTheBoxUpToTheTargetAndHoldsIt) {
  RigidWorld world;
  world.set_tank({0, 0, 0}, {1, 1, 1}, 3);
  const Vec3 half{0.1f, 0.05f, 0.1f};
  const RigidBodyDef def = uniform_body(box_geometry(half), 500.0f);
  world.add_body(def, at({0.5f, half.y, 0.5f}));
  const float f = 5.0f, omega = 2.0f * kPi * f;
  const Vec3 target{0.5f, 0.5f, 0.5f};
  world.set_grab(0, {0, 0, 0}, target, f, 0.7f, 20.0f * def.mass * kG);
  // At rest the spring holds the weight: it hangs g / omega^2 below the target.
  const Vec3 rest = target - Vec3{0.0f, kG / (omega * omega), 0.0f};
  const float dt = 0.002f;
  float worst_after = 0.0f;
  for (int step = 0; step < 1000; ++step) {  // 2 s = 10 periods
    world.step(dt, kGravity);
    if (step * dt >= 0.8f)
      worst_after = std::max(worst_after, distance(world.state(0).pose.position, rest));
  }
  std::printf(
      "grab at %.0f Hz: after 4 periods within %.3f mm of the target less the sag "
      "(%.2f mm)\n",
      f, worst_after * 1e3f, kG / (omega * omega) * 1e3f);
  EXPECT_LT(worst_after, 0.002f);
  world.clear_grab();
  for (int step = 0; step < 100; ++step) world.step(dt, kGravity);
  EXPECT_LT(world.state(0).motion.velocity.y, -0.5f);  // let go: it falls
}

TEST(RigidWorld, GrabForceIsBoundedByTheMaximum) {
  RigidWorld world;
  const RigidBodyDef def = uniform_body(box_geometry({0.1f, 0.05f, 0.1f}), 500.0f);
  world.add_body(def, at({0, 0, 0}));
  const float max_force = 2.0f * def.mass * kG;
  world.set_grab(0, {0, 0, 0}, {1.0f, 3.0f, 0.0f}, 10.0f, 1.0f, max_force);
  const float dt = 0.002f;
  float largest = 0.0f;
  for (int step = 0; step < 100; ++step) {
    const Vec3 v0 = world.state(0).motion.velocity;
    world.step(dt, kGravity);
    const Vec3 pull = (world.state(0).motion.velocity - v0) / dt - kGravity;  // [m/s^2]
    largest = std::max(largest, vec_length(pull));
  }
  EXPECT_LE(largest, max_force / def.mass * (1.0f + 1e-3f));
  EXPECT_GE(largest, max_force / def.mass * 0.99f);  // far from the target, it pulls at the max
}

TEST(RigidWorld, KinematicBodyMovesByItsVelocityOnly) {
  RigidWorld world;
  world.set_tank({0, 0, 0}, {2, 1, 1}, 3);
  const Vec3 half{0.05f, 0.05f, 0.2f};
  RigidBodyDef paddle = uniform_body(box_geometry(half), 1000.0f);
  paddle.kinematic = true;
  RigidBodyState ps = at({0.2f, half.y, 0.5f});
  ps.motion.velocity = Vec3{0.4f, 0.0f, 0.0f};
  ps.motion.angular_velocity = Vec3{0.0f, 0.3f, 0.0f};
  world.add_body(paddle, ps);
  world.add_body(uniform_body(box_geometry({0.05f, 0.05f, 0.05f}), 500.0f),
                 at({0.5f, 0.05f, 0.5f}));
  const std::vector<Vec3> force{{100, 100, 100}, {0, 0, 0}}, torque{{5, 5, 5}, {0, 0, 0}};
  const float dt = 0.002f, t = 1.0f;
  for (int step = 0; step < 500; ++step) world.step(dt, kGravity, force, torque);
  const RigidBodyState& s = world.state(0);
  EXPECT_EQ(std::memcmp(&s.motion, &ps.motion, sizeof(RigidMotion)), 0);
  EXPECT_NEAR(s.pose.position.x, 0.2f + 0.4f * t, 1e-5f);
  EXPECT_EQ(s.pose.position.y, half.y);
  EXPECT_EQ(s.pose.position.z, 0.5f);
  EXPECT_NEAR(2.0f * std::atan2(s.pose.orientation.y, s.pose.orientation.w), 0.3f * t, 1e-5f);
  EXPECT_GT(world.state(1).pose.position.x, 0.6f);  // the box it met was pushed along
}

TEST(RigidWorld, RemovedBodiesAndChangedShapes) {
  RigidWorld world;
  world.set_tank({0, 0, 0}, {1, 1, 1}, 3);
  const RigidBodyDef def = uniform_body(box_geometry({0.05f, 0.05f, 0.05f}), 500.0f);
  for (int k = 0; k < 3; ++k) world.add_body(def, at({0.2f + 0.3f * k, 0.05f, 0.5f}));
  world.set_grab(2, {0, 0, 0}, {0.8f, 0.5f, 0.5f}, 5.0f, 0.7f, 100.0f);
  world.remove_body(0);
  ASSERT_EQ(world.size(), 2u);
  EXPECT_EQ(world.state(0).pose.position.x, 0.5f);  // the others moved down by one
  EXPECT_EQ(world.grabbed_body(), 1);
  world.remove_body(1);
  EXPECT_EQ(world.grabbed_body(), -1);
  // A taller box, given through def(): its shape is rebuilt and it stands on the floor.
  world.def(0).geometry = box_geometry({0.05f, 0.1f, 0.05f});
  world.state(0).pose.position.y = 0.1f;
  for (int step = 0; step < 250; ++step) world.step(0.002f, kGravity);
  EXPECT_NEAR(world.state(0).pose.position.y, 0.1f, 0.001f);
  EXPECT_TRUE(world.warning().empty()) << world.warning();
}

TEST(RigidWorld, BadInputIsRejectedWithAMessageOrClamped) {
  RigidWorld world;
  RigidBodyDef def = uniform_body(box_geometry({0.1f, 0.1f, 0.1f}), 500.0f);
  RigidBodyDef bad = def;
  bad.mass = 0.0f;
  try {
    world.add_body(bad, at({0, 0, 0}));
    FAIL() << "a body of mass 0 was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("mass"), std::string::npos) << e.what();
  }
  bad = def;
  bad.inertia.y = NAN;
  EXPECT_THROW(world.add_body(bad, at({0, 0, 0})), std::invalid_argument);
  bad = def;
  bad.geometry = mesh_geometry({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {0, 1, 3});
  EXPECT_THROW(world.add_body(bad, at({0, 0, 0})), std::invalid_argument);
  EXPECT_THROW(world.add_body(def, at({NAN, 0, 0})), std::invalid_argument);
  EXPECT_EQ(world.size(), 0u);

  world.add_body(def, at({0, 0, 0}));
  world.add_body(def, at({1, 0, 0}));
  world.step(0.002f, kGravity, {{NAN, 0, 0}}, {{0, INFINITY, 0}});
  EXPECT_NE(world.warning().find("rigid body 0"), std::string::npos) << world.warning();
  EXPECT_TRUE(std::isfinite(world.state(0).motion.velocity.x));
  world.step(NAN, kGravity);
  EXPECT_FALSE(world.warning().empty());
  world.step(-1.0f, kGravity);
  EXPECT_FALSE(world.warning().empty());
  const float vy = world.state(0).motion.velocity.y;
  world.step(1e6f, kGravity);  // clamped to kMaxStep
  EXPECT_NE(world.warning().find("clamped"), std::string::npos) << world.warning();
  EXPECT_NEAR(world.state(0).motion.velocity.y, vy - kG * RigidWorld::kMaxStep, 1e-4f);
  world.def(1).mass = -1.0f;  // went bad after it was added: left out, the rest steps on
  world.state(0).motion.velocity = Vec3{NAN, 0, 0};
  world.step(0.002f, kGravity);
  EXPECT_NE(world.warning().find("rigid body 1"), std::string::npos) << world.warning();
  EXPECT_EQ(world.state(0).motion.velocity.x, 0.0f);
  world.step(0.002f, {NAN, 0, 0});
  EXPECT_FALSE(world.warning().empty());
}

TEST(RigidWorld, MassHelpersAgreeWithTheMeshOfTheSameBox) {
  const Vec3 half{0.1f, 0.05f, 0.2f};
  const MeshMassProperties p =
      mesh_mass_properties(*mesh_box(half).mesh_vertices, *mesh_box(half).mesh_indices, 500.0f);
  EXPECT_NEAR(p.volume, box_volume(half), 1e-7f);
  const Vec3 want = box_inertia(500.0f * box_volume(half), half);
  EXPECT_NEAR(p.inertia[0], want.x, 1e-6f);
  EXPECT_NEAR(p.inertia[1], want.y, 1e-6f);
  EXPECT_NEAR(p.inertia[2], want.z, 1e-6f);
  for (int k = 3; k < 6; ++k) EXPECT_NEAR(p.inertia[k], 0.0f, 1e-7f);
  EXPECT_NEAR(vec_length(p.centroid), 0.0f, 1e-6f);
  // A capsule with no cylinder is a sphere.
  const Vec3 c = capsule_inertia(2.0f, 0.1f, 0.0f), s = sphere_inertia(2.0f, 0.1f);
  EXPECT_NEAR(c.x, s.x, 1e-7f);
  EXPECT_NEAR(c.y, s.y, 1e-7f);
  EXPECT_NEAR(capsule_volume(0.1f, 0.0f), sphere_volume(0.1f), 1e-7f);
}

}  // namespace
}  // namespace tp
