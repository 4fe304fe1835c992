// SimParams: every live simulation parameter as one struct of plain numbers. The panel
// edits the fields directly; names, ranges, defaults and tooltips live in one table
// (src/sim/water/params.cpp), which also clamps. Kernels read it through StepConstants.
#pragma once

#include "common.h"
#include "obstacle.h"
#include "rigid_body.h"
#include "solver_list.h"
#include "sph_kernel.h"

namespace tp {

enum class SolverKind : int {
#define TP_SOLVER_ENUM(type, name, label) type,
  TP_SOLVERS(TP_SOLVER_ENUM)
#undef TP_SOLVER_ENUM
};
enum class MouseMode : int { Push = 0, Pull = 1, Drag = 2 };

struct SimParams {
  int solver;            ///< [enum] SolverKind (kernels/solver_list.h)
  float gravity_x;       ///< [m/s^2] gravity, x component
  float gravity_y;       ///< [m/s^2] gravity, y component (up is +y)
  float gravity_z;       ///< [m/s^2] gravity, z component
  float rest_density;    ///< [kg/m^3] target density rho0; particle masses stay fixed
  float viscosity;       ///< [m^2/s] kinematic viscosity nu (water 1e-6, honey ~1e-2)
  float stiffness;       ///< [Pa] WCSPH Tait stiffness B, p = B((rho/rho0)^gamma - 1)
  float exponent;        ///< [1] WCSPH Tait exponent gamma
  float alpha;           ///< [1] WCSPH artificial viscosity (Monaghan 1992), numerical damping
  float pcisph_tolerance;     ///< [%] PCISPH: stop when the mean predicted compression is below
  int pcisph_max_iterations;  ///< [1] PCISPH: iteration cap per step
  float dfsph_tolerance;      ///< [%] DFSPH: stop when the mean predicted compression is below
  float dfsph_divergence_tolerance;  ///< [%] DFSPH: the same for the density's change in a step
  int dfsph_max_iterations;   ///< [1] DFSPH: iteration cap per solve
  int pbf_iterations;         ///< [1] PBF: constraint iterations per step (the cap, with a tolerance)
  float pbf_tolerance;        ///< [%] PBF: stop once the mean compression is below; 0: always pbf_iterations
  float pbf_warm_start;       ///< [1] PBF: share of the last step's multipliers each step starts from
  float pbf_final_weight;     ///< [1] PBF: the last iteration's corrections weighted by this (damped Jacobi)
  float pbf_relaxation;       ///< [1] PBF: constraint softening eps, relative to a full neighbourhood
  float pbf_scorr_k;          ///< [1] PBF: tensile-instability correction strength k
  float pbf_scorr_n;          ///< [1] PBF: its exponent n
  float pbf_scorr_dq;         ///< [1] PBF: its reference distance, as a fraction of h
  float pbf_vorticity;        ///< [m/s] PBF: vorticity confinement epsilon
  float pbf_xsph;             ///< [1] PBF: XSPH velocity smoothing c
  float cfl;             ///< [1] CFL number: dt <= cfl * s / max(c, |v|max)
  float dt_max;          ///< [s] largest time step
  float dt_min;          ///< [s] smallest time step; below it the simulation slows down
  float speed_limit;     ///< [m/s] safety net: faster particles are slowed to this speed
  float wall_friction;     ///< [1] at a wall or obstacle contact: the share of the tangential velocity taken
  float wall_restitution;  ///< [1] at a contact: the share of the velocity into the wall sent back
  float wall_slip;         ///< [1] the walls' part in the viscosity: 1 free slip (none), 0 no slip
  float surface_tension;   ///< [model] Akinci 2013 gamma: cohesion and curvature (kernels/surface_tension.h)
  float adhesion;          ///< [model] Akinci 2013 beta: attraction of the water to walls and obstacles
  int mouse_mode;        ///< [enum] MouseMode: 0 push, 1 pull, 2 drag
  float mouse_radius;    ///< [m] radius of the mouse force
  float mouse_strength;  ///< [m/s^2] push/pull acceleration; drag: [1/s] velocity matching rate
  // Diffuse particles (spray, foam, bubbles; Ihmsen et al. 2012, see kernels/diffuse.h).
  int diffuse;                  ///< [enum] 0 off, 1 on
  int diffuse_cap;              ///< [1] most diffuse particles alive; 0 = sized for the backend
  float diffuse_interval;       ///< [s] simulated time between two updates of them
  float diffuse_trapped_min;    ///< [m/s] trapped-air potential: below this, none
  float diffuse_trapped_max;    ///< [m/s] at and above this, full
  float diffuse_crest_min;      ///< [1] wave-crest potential (curvature): below this, none
  float diffuse_crest_max;      ///< [1] at and above this, full
  float diffuse_energy_min;     ///< [J/kg] kinetic energy per mass: below this, none
  float diffuse_energy_max;     ///< [J/kg] at and above this, full
  float diffuse_trapped_rate;   ///< [1/s] spawned per fluid particle per second, full potential
  float diffuse_crest_rate;     ///< [1/s] likewise for wave crests
  float diffuse_life_min;       ///< [s] a foam particle lives between min and max
  float diffuse_life_max;       ///< [s]
  float diffuse_buoyancy;       ///< [1] bubbles rise with this times -gravity (k_b)
  float diffuse_bubble_drag;    ///< [1/s] rate at which a bubble takes the water's velocity (k_d)
  float diffuse_spray_drag;     ///< [1/s] air drag on spray
};

// Mouse interaction for one step, set by the app from the cursor ray each frame.
struct MouseForce {
  int active;     ///< 0 = no force this step
  Vec3 point;     ///< [m] centre of the force (where the cursor's ray meets the fluid)
  Vec3 velocity;  ///< [m/s] velocity of that point (drag mode follows it)
};

// What a kernel needs for one step: the live parameters plus the quantities derived
// from the particle spacing and the tank. Filled by the solver driver before each step.
struct StepConstants {
  SimParams p;
  int dimensions;      ///< 2 or 3 (kernels/dimension.h); in 2D z stays at tank_lo.z (= tank_hi.z)
  CubicKernel kernel;  ///< support h = 2 * spacing, normalised for the dimension
  float cohesion_norm; ///< Akinci's C(r) normalisation for h and the dimension (surface_tension.h)
  float adhesion_norm; ///< their A(r) normalisation
  float curvature_scale; ///< their curvature term's factor for the dimension (dimension.h)
  float spacing;       ///< [m] initial particle spacing s
  float mass;          ///< [kg] fluid particle mass, fixed at reset (rho0 / lattice sum of W)
  float lattice_grad2; ///< [1/m^8] sum of |grad W|^2 over a full initial lattice (PCISPH, PBF)
  float dt;            ///< [s] this step's time step
  float sound_speed;   ///< [m/s] c = sqrt(B gamma / rho0)
  Vec3 tank_lo;        ///< [m] inner faces of the tank: particles stay in [tank_lo, tank_hi]
  Vec3 tank_hi;
  MouseForce mouse;
  ObstacleShape obstacles[kMaxObstacles];  ///< where they are at the end of this step
  int obstacle_count;
  BodyArrayView bodies;  ///< the rigid bodies, where they are at the end of this step
};

}  // namespace tp
