// The gas simulation's driver on a backend B (CpuBackend, CudaBackend): the order of a step,
// over parts that each hold their own buffers. The per-cell and per-face physics is in
// kernels/gas.h and kernels/gas_pressure.h; see docs/gas.md.
//
//   GasFields      the face velocities, the cell scalars and their scratch copies
//   GasBoundary    the walls and obstacles: solid cells, fixed faces, the obstacles' moves
//   GasAdvector    advection (semi-Lagrangian, MacCormack)
//   GasForces      the sources, buoyancy, vorticity confinement, viscosity
//   PoissonSolver  the projection's A q = b (MGPCG or Jacobi)
//   GasPublisher   what the renderer draws of the cells
//
// A step (dt from the CFL number, at most dt_max):
//   obstacles  the moved ones go where they were asked to, their solids and faces anew
//   advect     velocity and scalars along the divergence-free velocity of the step before
//              (semi-Lagrangian, second-order Runge-Kutta trace; MacCormack's correction,
//              clamped to the nodes the first sample used: Selle et al. 2008)
//   forces     the sources, buoyancy (hot gas up, smoke down), vorticity confinement
//   viscosity  implicit, (1 - nu dt Laplacian) u' = u by Jacobi sweeps (no-slip walls
//              through ghost faces 2 u_wall - u)
//   project    A q = b by MGPCG (McAdams, Sifakis & Teran 2010: CG preconditioned by one
//              symmetric V-cycle of red-black Gauss-Seidel) to a relative residual, or a
//              fixed count of Jacobi sweeps; then each free face loses q's difference
//   decay      smoke and heat fade (exp(-k dt))
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/gas.h"
#include "kernels/gas_pressure.h"
#include "sim/gas/array_ops.h"
#include "sim/gas/gas_advector.h"
#include "sim/gas/gas_boundary.h"
#include "sim/gas/gas_fields.h"
#include "sim/gas/gas_forces.h"
#include "sim/gas/gas_params.h"
#include "sim/gas/gas_publisher.h"
#include "sim/gas/gas_sim.h"
#include "sim/gas/poisson_solver.h"

namespace tp {

template <class B>
class GasSolver final : public GasSimulation {
 public:
  // 256^3 cells: 16.7 million, about 1.3 GB with the multigrid's levels.
  static constexpr double kMaxCells = 256.0 * 256.0 * 256.0;

  void reset(const GasSetup& setup) override {
    const GasGrid& g = setup.grid;
    if (g.n.x < 1 || g.n.y < 1 || g.n.z < 1 || double(g.n.x) * g.n.y * g.n.z > kMaxCells)
      throw std::invalid_argument("gas: the grid must have 1 to 256^3 cells along its axes");
    if (!(g.dx > 0.0f) || !std::isfinite(g.dx))
      throw std::invalid_argument("gas: the cell size must be a positive number");
    if (setup.obstacles.size() > size_t(kMaxObstacles))
      throw std::invalid_argument("gas: at most " + std::to_string(kMaxObstacles) + " obstacles");
    setup_ = setup;
    if (setup_.grid.n.z == 1) setup_.grid.open &= ~((1u << 4) | (1u << 5));  // the plane's z-sides are walls
    const GasGrid& grid = setup_.grid;
    fields_.reset(grid);
    boundary_.reset(grid, setup_.obstacles.size());
    advector_.reset(grid);
    forces_.reset();
    poisson_.reset(grid);
    sources_ = setup_.sources;
    stats_ = GasStats{};
    update_obstacles(0.0f);
  }

  void step() override {
    const GasGrid& g = setup_.grid;
    stats_.phases.clear();
    clamp_gas_params(params_, valid_params_);  // a NaN keeps the last valid value
    valid_params_ = params_;
    const float speed = max_speed();
    float dt = params_.dt_max;
    if (speed > 0.0f) dt = std::min(dt, params_.cfl * g.dx / speed);
    stats_.dt = dt;
    const bool maccormack = params_.advection == int(GasAdvection::MacCormack);
    timed("obstacles", [&] { update_obstacles(dt); });
    timed("advect", [&] {
      advector_.advect(g, fields_, dt, maccormack);
      boundary_.enforce(fields_.velocity);
    });
    timed("forces", [&] {
      forces_.add_sources(g, sources_, boundary_, fields_, dt);
      forces_.add_buoyancy(g, params_, boundary_, fields_, dt);
      if (params_.vorticity > 0.0f) forces_.add_confinement(g, params_, boundary_, fields_, dt);
      boundary_.enforce(fields_.velocity);
    });
    if (params_.viscosity > 0.0f)
      timed("viscosity", [&] { forces_.apply_viscosity(g, setup_.walls, params_, boundary_, fields_, dt); });
    timed("project", [&] { project(); });
    timed("decay", [&] { decay(dt); });
    stats_.steps += 1;
    stats_.simulated_time += dt;
    stats_.smoke_mass = smoke_mass();
    stats_.max_speed = max_speed();
  }

  GasParams& params() override { return params_; }
  const GasSetup& setup() const override { return setup_; }
  GasStats stats() const override { return stats_; }
  void set_sources(const std::vector<GasSource>& sources) override {
    sources_.assign(sources.begin(), sources.begin() + std::min<size_t>(sources.size(), GasForces<B>::kMaxSources));
  }
  void move_obstacle(int index, Vec3 center) override { boundary_.move_obstacle(index, center); }
  void set_clock(double simulated_time, uint64_t steps) override {
    stats_.simulated_time = simulated_time;
    stats_.steps = steps;
  }

  void read_velocity(int axis, std::vector<float>* out) const override {
    out->resize(setup_.grid.faces(axis));
    B::copy_to_host(out->data(), fields_.velocity[axis].data(), out->size());
  }
  void read_channel(int channel, std::vector<float>* out) const override {
    const uint n = setup_.grid.cells();
    out->resize(n);
    B::copy_to_host(out->data(), fields_.channel(channel, n), n);
  }
  void write_velocity(int axis, const std::vector<float>& values) override {
    if (values.size() != setup_.grid.faces(axis)) throw std::invalid_argument("gas: wrong number of faces");
    B::copy_from_host(fields_.velocity[axis].data(), values.data(), values.size());
    boundary_.enforce(fields_.velocity);
  }
  void write_channel(int channel, const std::vector<float>& values) override {
    const uint n = setup_.grid.cells();
    if (values.size() != n) throw std::invalid_argument("gas: wrong number of cells");
    B::copy_from_host(fields_.channel(channel, n), values.data(), n);
  }
  void read_solid(std::vector<unsigned char>* out) const override {
    out->resize(setup_.grid.cells());
    B::copy_to_host(out->data(), boundary_.solid(), out->size());
  }

  float max_divergence() const override {
    const GasGrid g = setup_.grid;
    const GasVelocity u = fields_.view();
    const unsigned char* solid = boundary_.solid();
    const float inv = 1.0f / g.dx;
    return B::reduce_max(g.cells(), 0.0f, [=] TP_HD(uint c) {
      return solid[c] ? 0.0f : fabsf(gas_outflow(g, u, g.cell_of(c))) * inv;
    });
  }

  // b from the cells' outflow, A q = b, then each free face loses q's difference across it.
  void project() override {
    const GasGrid g = setup_.grid;
    const uint n = g.cells();
    const GasVelocity u = fields_.view();
    const unsigned char* solid = boundary_.solid();
    float* b = poisson_.rhs();
    B::for_each(n, [=] TP_HD(uint c) { b[c] = gas_pressure_rhs(g, solid, u, c); });
    stats_.divergence_before = max_abs_array<B>(b, n) / g.dx;
    const typename PoissonSolver<B>::Result solved =
        params_.pressure_solver == int(GasPressureSolver::Jacobi)
            ? poisson_.solve_jacobi(params_.jacobi_iterations)
            : poisson_.solve_mgpcg(params_.pressure_tolerance, params_.pressure_max_iterations);
    stats_.pressure_iterations = solved.iterations;
    stats_.pressure_residual = solved.residual;
    const float* q = poisson_.pressure();
    for (int axis = 0; axis < 3; ++axis) {
      float* ua = fields_.velocity[axis].data();
      const unsigned char* fixed = boundary_.fixed(axis);
      B::for_each(g.faces(axis), [=] TP_HD(uint f) { gas_subtract_pressure_face(g, fixed, q, axis, f, ua); });
    }
    stats_.divergence_after = max_divergence();
  }

  void publish(const GasShade& shade, PublishTarget& target) override {
    publisher_.publish(setup_.grid, boundary_.solid(), fields_, shade, target);
  }

  // (Public for nvcc's device lambdas; not part of the interface.)

  // The obstacles moved since the last step (all at a reset, dt 0): their solid cells and
  // faces, the pressure solve's solids, and the fixed faces' velocities put on the gas.
  void update_obstacles(float dt) {
    if (boundary_.update(setup_.obstacles, dt, fields_.scalars.data())) poisson_.set_solids(boundary_.solid());
    boundary_.enforce(fields_.velocity);
  }

  void decay(float dt) {
    const uint n = setup_.grid.cells();
    const float kd = expf(-params_.density_decay * dt), kt = expf(-params_.temperature_decay * dt);
    if (kd == 1.0f && kt == 1.0f) return;
    float* s = fields_.scalars.data();
    B::for_each(n, [=] TP_HD(uint c) { gas_decay_cell(n, kd, kt, c, s); });
  }

  float max_speed() const {
    float most = 0.0f;
    for (int axis = 0; axis < 3; ++axis)
      most = std::max(most, max_abs_array<B>(fields_.velocity[axis].data(), setup_.grid.faces(axis)));
    return most;
  }

  double smoke_mass() const {
    const GasGrid g = setup_.grid;
    const uint n = g.cells();
    const float* rho = fields_.channel(kGasDensity, n);
    const double volume = double(g.dx) * g.dx * (g.n.z > 1 ? g.dx : 1.0);
    return volume * B::reduce_sum(n, [=] TP_HD(uint c) { return double(rho[c]); });
  }

  template <class F>
  void timed(const char* name, F&& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    B::synchronize();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    stats_.phases.push_back(GasPhaseTime{name, ms});
  }

 private:
  GasSetup setup_;  ///< the obstacles where they are now
  GasParams params_ = default_gas_params(), valid_params_ = default_gas_params();
  GasStats stats_;
  std::vector<GasSource> sources_;
  GasFields<B> fields_;
  GasBoundary<B> boundary_;
  GasAdvector<B> advector_;
  GasForces<B> forces_;
  PoissonSolver<B> poisson_;
  GasPublisher<B> publisher_;
};

}  // namespace tp
