#include "sim/water/body_edits.h"

#include <exception>
#include <functional>

namespace tp {

namespace {

// Captures, lets `edit` change the bodies (with their latest fluid forces, one per body),
// checks them and restores.
std::string edit_bodies(Simulation& sim, const std::function<std::string(SimState&)>& edit) {
  SimState s = sim.capture();
  const size_t n = s.initial.bodies.size();
  s.body_force.resize(n, Vec3{0, 0, 0});
  s.body_torque.resize(n, Vec3{0, 0, 0});
  const std::string why = edit(s);
  if (!why.empty()) return why;
  if (s.initial.bodies.size() > kMaxBodies) return "at most " + std::to_string(kMaxBodies) + " bodies";
  for (size_t k = 0; k < s.initial.bodies.size(); ++k) {
    const std::string bad =
        check_body(s.initial.bodies[k], s.initial.spacing, s.initial.dimensions, "body " + std::to_string(k));
    if (!bad.empty()) return bad;
  }
  try {
    sim.restore(s);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// The water `body` displaces goes (displaces), with each of its particle's arrays, as it
// does when a scene places a body in water (Simulation::reset).
void remove_displaced_water(SimState& s, const BodySpec& body) {
  const SolidBody solid = solid_of(body);
  const bool impulses = !s.divergence_impulse.empty();
  size_t kept = 0;
  for (size_t i = 0; i < s.initial.fluid.size(); ++i) {
    if (displaces(solid, body.pose, xyz(s.initial.fluid[i]), s.initial.spacing)) continue;
    s.initial.fluid[kept] = s.initial.fluid[i];
    s.initial.velocity[kept] = s.initial.velocity[i];
    s.id[kept] = s.id[i];
    s.pressure[kept] = s.pressure[i];
    if (impulses) s.divergence_impulse[kept] = s.divergence_impulse[i];
    ++kept;
  }
  s.initial.fluid.resize(kept);
  s.initial.velocity.resize(kept);
  s.id.resize(kept);
  s.pressure.resize(kept);
  if (impulses) s.divergence_impulse.resize(kept);
}

}  // namespace

std::string add_body(Simulation& sim, const BodySpec& body) {
  return edit_bodies(sim, [&](SimState& s) {
    if (s.initial.velocity.size() == s.initial.fluid.size()) remove_displaced_water(s, body);
    s.initial.bodies.push_back(body);
    s.body_force.push_back(Vec3{0, 0, 0});
    s.body_torque.push_back(Vec3{0, 0, 0});
    return std::string();
  });
}

std::string remove_body(Simulation& sim, int index) {
  return edit_bodies(sim, [&](SimState& s) {
    if (index < 0 || size_t(index) >= s.initial.bodies.size()) return "no body " + std::to_string(index);
    s.initial.bodies.erase(s.initial.bodies.begin() + index);
    s.body_force.erase(s.body_force.begin() + index);
    s.body_torque.erase(s.body_torque.begin() + index);
    return std::string();
  });
}

std::string set_body_density(Simulation& sim, int index, float density) {
  return edit_bodies(sim, [&](SimState& s) {
    if (index < 0 || size_t(index) >= s.initial.bodies.size()) return "no body " + std::to_string(index);
    BodySpec& b = s.initial.bodies[size_t(index)];
    b.density = density;
    b.mass = 0.0f;
    return std::string();
  });
}

}  // namespace tp
