// The gas simulation's driver on a backend B (CpuBackend, CudaBackend): buffers, the order
// of a step, the multigrid-preconditioned conjugate gradients of the projection. The
// per-cell and per-face physics is kernels/gas.h; see docs/gas.md.
//
// A step (dt from the CFL number, at most dt_max):
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
#include "kernels/gas_shade.h"
#include "sim/gas/gas_params.h"
#include "sim/gas/gas_sim.h"
#include "sim/gas/poisson_solver.h"
#include "sim/backend/publish_values.h"

namespace tp {

template <class B>
class GasSolver final : public GasSimulation {
 public:
  template <class T>
  using Buffer = typename B::template Buffer<T>;

  // 256^3 cells: 16.7 million, about 1.3 GB with the multigrid's levels.
  static constexpr double kMaxCells = 256.0 * 256.0 * 256.0;
  static constexpr int kMaxSources = 32;

  void reset(const GasSetup& setup) override {
    const GasGrid& g = setup.grid;
    if (g.n.x < 1 || g.n.y < 1 || g.n.z < 1 || double(g.n.x) * g.n.y * g.n.z > kMaxCells)
      throw std::invalid_argument("gas: the grid must have 1 to 256^3 cells along its axes");
    if (!(g.dx > 0.0f) || !std::isfinite(g.dx)) throw std::invalid_argument("gas: the cell size must be a positive number");
    if (setup.obstacles.size() > size_t(kMaxObstacles))
      throw std::invalid_argument("gas: at most " + std::to_string(kMaxObstacles) + " obstacles");
    setup_ = setup;
    if (setup_.grid.n.z == 1) setup_.grid.open &= ~((1u << 4) | (1u << 5));  // the plane's z-sides are walls
    const GasGrid& grid = setup_.grid;
    for (int a = 0; a < 3; ++a) {
      velocity_[a].resize(grid.faces(a));
      scratch_[a].resize(grid.faces(a));
      scratch2_[a].resize(grid.faces(a));
      fill(velocity_[a], grid.faces(a), 0.0f);
      trace_[a].resize(grid.faces(a));
      fixed_[a].resize(grid.faces(a));
      fixed_value_[a].resize(grid.faces(a));
    }
    const uint n = grid.cells();
    scalars_.resize(size_t(kGasChannels) * n);
    scalar_scratch_.resize(size_t(kGasChannels) * n);
    scalar_scratch2_.resize(size_t(kGasChannels) * n);
    fill(scalars_, uint(kGasChannels) * n, 0.0f);
    trace_[3].resize(n);
    solid_.resize(n);
    solid_velocity_.resize(n);
    cell_vectors_.resize(n);
    cell_vectors2_.resize(n);
    obstacles_.resize(std::max<size_t>(setup_.obstacles.size(), 1));
    sources_buffer_.resize(kMaxSources);
    pending_moves_.assign(setup_.obstacles.size(), false);
    pending_centres_.assign(setup_.obstacles.size(), Vec3{0, 0, 0});
    sources_ = setup_.sources;
    poisson_.reset(grid);
    stats_ = GasStats{};
    update_solids(0.0f);
    enforce_fixed_faces();
  }

  void step() override {
    const GasGrid& g = setup_.grid;
    stats_.phases.clear();
    clamp_params();
    const float speed = max_speed();
    float dt = params_.dt_max;
    if (speed > 0.0f) dt = std::min(dt, params_.cfl * g.dx / speed);
    stats_.dt = dt;
    timed("obstacles", [&] { update_solids(dt); enforce_fixed_faces(); });
    timed("advect", [&] { advect(dt); });
    timed("forces", [&] {
      apply_sources(dt);
      buoyancy(dt);
      if (params_.vorticity > 0.0f) confinement(dt);
      enforce_fixed_faces();
    });
    if (params_.viscosity > 0.0f) timed("viscosity", [&] { viscosity(dt); });
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
    sources_.assign(sources.begin(), sources.begin() + std::min<size_t>(sources.size(), kMaxSources));
  }
  void move_obstacle(int index, Vec3 centre) override {
    if (index < 0 || index >= int(setup_.obstacles.size())) return;
    pending_moves_[size_t(index)] = true;
    pending_centres_[size_t(index)] = centre;
  }

  void set_clock(double simulated_time, uint64_t steps) override {
    stats_.simulated_time = simulated_time;
    stats_.steps = steps;
  }

  void read_velocity(int axis, std::vector<float>* out) const override {
    out->resize(setup_.grid.faces(axis));
    B::copy_to_host(out->data(), velocity_[axis].data(), out->size());
  }
  void read_channel(int channel, std::vector<float>* out) const override {
    const uint n = setup_.grid.cells();
    out->resize(n);
    B::copy_to_host(out->data(), scalars_.data() + size_t(channel) * n, n);
  }
  void write_velocity(int axis, const std::vector<float>& values) override {
    if (values.size() != setup_.grid.faces(axis)) throw std::invalid_argument("gas: wrong number of faces");
    B::copy_from_host(velocity_[axis].data(), values.data(), values.size());
    enforce_fixed_faces();
  }
  void write_channel(int channel, const std::vector<float>& values) override {
    const uint n = setup_.grid.cells();
    if (values.size() != n) throw std::invalid_argument("gas: wrong number of cells");
    B::copy_from_host(scalars_.data() + size_t(channel) * n, values.data(), n);
  }
  void read_solid(std::vector<unsigned char>* out) const override {
    out->resize(setup_.grid.cells());
    B::copy_to_host(out->data(), solid_.data(), out->size());
  }

  float max_divergence() const override {
    const GasGrid g = setup_.grid;
    const GasVelocity u = view();
    const unsigned char* solid = solid_.data();
    const float inv = 1.0f / g.dx;
    return B::reduce_max(g.cells(), 0.0f, [=] TP_HD(uint c) {
      return solid[c] ? 0.0f : fabsf(gas_outflow(g, u, g.cell_of(c))) * inv;
    });
  }

  void project() override {
    const GasGrid g = setup_.grid;
    const uint n = g.cells();
    const GasVelocity u = view();
    const unsigned char* solid = solid_.data();
    float* b = poisson_.rhs();
    B::for_each(n, [=] TP_HD(uint c) { b[c] = gas_pressure_rhs(g, solid, u, c); });
    stats_.divergence_before = max_abs_array<B>(b, n) / g.dx;
    const typename PoissonSolver<B>::Result solved =
        params_.pressure_solver == int(GasPressureSolver::Jacobi)
            ? poisson_.solve_jacobi(params_.jacobi_iterations)
            : poisson_.solve_mgpcg(params_.pressure_tolerance, params_.pressure_max_iterations);
    stats_.pressure_iterations = solved.iterations;
    stats_.pressure_residual = solved.residual;
    // Each free face loses q's difference across it.
    const float* q = poisson_.pressure();
    for (int axis = 0; axis < 3; ++axis) {
      float* ua = velocity_[axis].data();
      const unsigned char* fixed = fixed_[axis].data();
      B::for_each(g.faces(axis), [=] TP_HD(uint f) { gas_subtract_pressure_face(g, fixed, q, axis, f, ua); });
    }
    stats_.divergence_after = max_divergence();
  }

  void publish(const GasShade& asked, PublishTarget& target) override {
    const GasShade shade = sane_shade(asked);
    const GasGrid g = setup_.grid;
    const uint n = g.cells();
    const unsigned char* solid = solid_.data();
    const float* s = scalars_.data();
    const GasVelocity u = view();
    Vec4* cv = cell_vectors_.data();
    Vec4* om = cell_vectors2_.data();
    float* tau = scalar_scratch_.data();  // scratch between steps
    if (shade.view != kGasViewSmoke)
      B::for_each(n, [=] TP_HD(uint c) { cv[c] = gas_fluid_cell_velocity(g, solid, u, c); });
    if (shade.view == kGasViewVorticity)
      B::for_each(n, [=] TP_HD(uint c) {
        om[c] = make_vec4(solid[c] ? Vec3{0, 0, 0} : gas_vorticity(g, solid, cv, g.cell_of(c)), 0.0f);
      });
    if (shade.view == kGasViewSmoke && g.n.z > 1) {
      const float* rho = s + size_t(kGasDensity) * n;
      const uint columns = uint(g.n.x) * uint(g.n.z);
      for (int j = g.n.y - 1; j >= 0; --j)  // from the top down: each layer reads the one above
        B::for_each(columns, [=] TP_HD(uint column) { gas_sun_layer(g, solid, rho, shade, j, column, tau); });
    }
    publish_values<B>(target, n, publish_staging_,
                      [=] TP_HD(uint c) { return gas_shade_cell(g, solid, s, cv, om, tau, shade, c); });
  }

  // (Public for nvcc's device lambdas; not part of the interface.)
  GasVelocity view() const {
    return GasVelocity{{velocity_[0].data(), velocity_[1].data(), velocity_[2].data()}};
  }

  void advect(float dt) {
    const GasGrid g = setup_.grid;
    const GasVelocity u = view();
    const bool maccormack = params_.advection == int(GasAdvection::MacCormack);
    // Velocity: each component along the old velocity, into scratch_.
    for (int axis = 0; axis < 3; ++axis) {
      if (axis == 2 && g.n.z == 1) {
        copy(scratch_[2], velocity_[2], g.faces(2));
        continue;
      }
      advect_field(axis, 1, velocity_[axis].data(), scratch_[axis].data(), scratch2_[axis].data(), u, dt,
                   maccormack);
    }
    // Scalars, every channel along one trace per cell.
    advect_field(kGasCells, kGasChannels, scalars_.data(), scalar_scratch_.data(), scalar_scratch2_.data(), u, dt,
                 maccormack);
    for (int axis = 0; axis < 3; ++axis) velocity_[axis].swap(scratch_[axis]);
    scalars_.swap(scalar_scratch_);
    enforce_fixed_faces();
  }

  // `channels` fields of `axis` (a face axis or kGasCells), planar in src, advected into dst
  // (tmp: the MacCormack's forward result).
  void advect_field(int axis, int channels, const float* src, float* dst, float* tmp, GasVelocity u, float dt,
                    bool maccormack) {
    const GasGrid g = setup_.grid;
    const Int3 d = axis == kGasCells ? g.n : g.face_dims(axis);
    const uint count = uint(d.x) * uint(d.y) * uint(d.z);
    Vec4* trace = trace_[axis == kGasCells ? 3 : axis].data();
    float* first = maccormack ? tmp : dst;
    B::for_each(count, [=] TP_HD(uint e) { gas_advect_node(g, u, axis, d, channels, dt, src, e, trace, first); });
    if (maccormack)
      B::for_each(count, [=] TP_HD(uint e) { gas_maccormack_node(d, channels, trace, src, first, e, dst); });
  }

  void apply_sources(float dt) {
    if (sources_.empty()) return;
    const GasGrid g = setup_.grid;
    const int count = int(sources_.size());
    B::copy_from_host(sources_buffer_.data(), sources_.data(), sources_.size());
    const GasSource* src = sources_buffer_.data();
    const unsigned char* solid = solid_.data();
    float* s = scalars_.data();
    B::for_each(g.cells(), [=] TP_HD(uint c) { gas_add_sources_cell(g, solid, src, count, dt, c, s); });
    for (int axis = 0; axis < 3; ++axis) {
      float* ua = velocity_[axis].data();
      const unsigned char* fixed = fixed_[axis].data();
      B::for_each(g.faces(axis), [=] TP_HD(uint f) { gas_source_pull_face(g, fixed, src, count, axis, dt, f, ua); });
    }
  }

  void buoyancy(float dt) {
    if (params_.buoyancy == 0.0f && params_.weight == 0.0f) return;
    const GasGrid g = setup_.grid;
    const uint n = g.cells();
    const float* rho = scalars_.data() + size_t(kGasDensity) * n;
    const float* temp = scalars_.data() + size_t(kGasTemperature) * n;
    const float lift = params_.buoyancy, weight = params_.weight;
    const unsigned char* fixed = fixed_[1].data();
    float* v = velocity_[1].data();
    B::for_each(g.faces(1), [=] TP_HD(uint f) { gas_buoyancy_face(g, fixed, rho, temp, lift, weight, dt, f, v); });
  }

  void confinement(float dt) {
    const GasGrid g = setup_.grid;
    const uint n = g.cells();
    const GasVelocity u = view();
    const unsigned char* solid = solid_.data();
    Vec4* cv = cell_vectors_.data();
    Vec4* om = cell_vectors2_.data();
    B::for_each(n, [=] TP_HD(uint c) { cv[c] = gas_fluid_cell_velocity(g, solid, u, c); });
    B::for_each(n, [=] TP_HD(uint c) {
      const Vec3 w = solid[c] ? Vec3{0, 0, 0} : gas_vorticity(g, solid, cv, g.cell_of(c));
      om[c] = make_vec4(w, length(w));
    });
    const float eps = params_.vorticity;
    B::for_each(n, [=] TP_HD(uint c) {
      cv[c] = solid[c] ? Vec4{0, 0, 0, 0} : make_vec4(gas_confinement(g, solid, om, g.cell_of(c), eps), 0.0f);
    });
    add_cell_force(cv, dt);
  }

  // Faces += dt x the mean of their two cells' forces (free faces only).
  void add_cell_force(const Vec4* force, float dt) {
    const GasGrid g = setup_.grid;
    for (int axis = 0; axis < (g.n.z > 1 ? 3 : 2); ++axis) {
      float* ua = velocity_[axis].data();
      const unsigned char* fixed = fixed_[axis].data();
      B::for_each(g.faces(axis), [=] TP_HD(uint f) { gas_add_cell_force_face(g, fixed, force, axis, dt, f, ua); });
    }
  }

  void viscosity(float dt) {
    const GasGrid g = setup_.grid;
    const float alpha = params_.viscosity * dt / (g.dx * g.dx);
    const GasWalls walls = setup_.walls;
    for (int axis = 0; axis < (g.n.z > 1 ? 3 : 2); ++axis) {
      const uint count = g.faces(axis);
      const float* old = velocity_[axis].data();
      copy(scratch_[axis], velocity_[axis], count);
      float* cur = scratch_[axis].data();
      float* next = scratch2_[axis].data();
      const unsigned char* fixed = fixed_[axis].data();
      for (int it = 0; it < params_.viscosity_iterations; ++it) {
        B::for_each(count, [=] TP_HD(uint f) { gas_viscosity_face(g, walls, fixed, axis, alpha, old, cur, f, next); });
        float* t = cur;
        cur = next;
        next = t;
      }
      if (cur != scratch_[axis].data()) copy(scratch_[axis], scratch2_[axis], count);
      velocity_[axis].swap(scratch_[axis]);
    }
  }

  void decay(float dt) {
    const uint n = setup_.grid.cells();
    const float kd = expf(-params_.density_decay * dt), kt = expf(-params_.temperature_decay * dt);
    if (kd == 1.0f && kt == 1.0f) return;
    float* s = scalars_.data();
    B::for_each(n, [=] TP_HD(uint c) { gas_decay_cell(n, kd, kt, c, s); });
  }

  // --- solids, fixed faces, helpers ---------------------------------------------------

  // The solid cells, their velocities, the fixed faces and the multigrid's levels, when
  // an obstacle moved (or stopped) since the last step, or at a reset (dt 0).
  void update_solids(float dt) {
    bool changed = dt == 0.0f;
    for (size_t i = 0; i < setup_.obstacles.size(); ++i) {
      ObstacleShape& o = setup_.obstacles[i];
      const bool was_moving = o.velocity.x != 0.0f || o.velocity.y != 0.0f || o.velocity.z != 0.0f;
      if (pending_moves_[i] && dt > 0.0f) {
        o.velocity = (pending_centres_[i] - o.center) * (1.0f / dt);
        o.center = pending_centres_[i];
        changed = true;
      } else {
        o.velocity = Vec3{0, 0, 0};
        changed = changed || was_moving;
      }
      pending_moves_[i] = false;
    }
    if (!changed) return;
    const GasGrid g = setup_.grid;
    const uint n = g.cells();
    const int count = int(setup_.obstacles.size());
    if (count > 0) B::copy_from_host(obstacles_.data(), setup_.obstacles.data(), size_t(count));
    const ObstacleShape* obs = obstacles_.data();
    unsigned char* solid = solid_.data();
    Vec4* sv = solid_velocity_.data();
    float* s = scalars_.data();
    B::for_each(n, [=] TP_HD(uint c) { gas_solid_cell(g, obs, count, c, solid, sv, s); });
    for (int axis = 0; axis < 3; ++axis) {
      unsigned char* fixed = fixed_[axis].data();
      float* value = fixed_value_[axis].data();
      B::for_each(g.faces(axis), [=] TP_HD(uint f) {
        float v = 0.0f;
        fixed[f] = gas_face_fixed(g, solid, sv, axis, g.face_of(axis, f), &v) ? 1 : 0;
        value[f] = v;
      });
    }
    poisson_.set_solids(solid);
  }

  void enforce_fixed_faces() {
    const GasGrid g = setup_.grid;
    for (int axis = 0; axis < 3; ++axis) {
      float* ua = velocity_[axis].data();
      const unsigned char* fixed = fixed_[axis].data();
      const float* value = fixed_value_[axis].data();
      B::for_each(g.faces(axis), [=] TP_HD(uint f) {
        if (fixed[f]) ua[f] = value[f];
      });
    }
  }

  float max_speed() const {
    float most = 0.0f;
    for (int axis = 0; axis < 3; ++axis)
      most = std::max(most, max_abs_array<B>(velocity_[axis].data(), setup_.grid.faces(axis)));
    return most;
  }

  double smoke_mass() const {
    const GasGrid g = setup_.grid;
    const uint n = g.cells();
    const float* rho = scalars_.data() + size_t(kGasDensity) * n;
    const double volume = double(g.dx) * g.dx * (g.n.z > 1 ? g.dx : 1.0);
    return volume * B::reduce_sum(n, [=] TP_HD(uint c) { return double(rho[c]); });
  }

  static GasShade sane_shade(GasShade shade) {
    const GasShade fallback;
    auto in = [](float v, float lo, float hi, float otherwise) { return std::isfinite(v) ? std::clamp(v, lo, hi) : otherwise; };
    if (shade.view < 0 || shade.view >= kGasViews) shade.view = kGasViewSmoke;
    shade.sun = Vec3{in(shade.sun.x, -10.0f, 10.0f, fallback.sun.x), in(shade.sun.y, 0.05f, 10.0f, fallback.sun.y),
                     in(shade.sun.z, -10.0f, 10.0f, fallback.sun.z)};
    shade.sun_light = in(shade.sun_light, 0.0f, 100.0f, fallback.sun_light);
    shade.ambient = in(shade.ambient, 0.0f, 100.0f, fallback.ambient);
    shade.extinction = in(shade.extinction, 0.0f, 1e6f, fallback.extinction);
    shade.view_range = in(shade.view_range, 1e-6f, 1e6f, fallback.view_range);
    return shade;
  }

  // Every field into its range (a NaN keeps the last valid value); then the enums.
  void clamp_params() {
    clamp_gas_params(params_, valid_params_);
    valid_params_ = params_;
  }

  template <class F>
  void timed(const char* name, F&& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    B::synchronize();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    stats_.phases.push_back(GasPhaseTime{name, ms});
  }

  template <class T>
  static void fill(Buffer<T>& a, uint n, T value) {
    T* p = a.data();
    B::for_each(n, [=] TP_HD(uint i) { p[i] = value; });
  }
  template <class T>
  static void copy(Buffer<T>& to, const Buffer<T>& from, uint n) {
    T* t = to.data();
    const T* f = from.data();
    B::for_each(n, [=] TP_HD(uint i) { t[i] = f[i]; });
  }

 private:
  GasSetup setup_;
  GasParams params_ = default_gas_params(), valid_params_ = default_gas_params();
  GasStats stats_;
  std::vector<GasSource> sources_;
  std::vector<bool> pending_moves_;
  std::vector<Vec3> pending_centres_;
  Buffer<float> velocity_[3], scratch_[3], scratch2_[3];
  Buffer<Vec4> trace_[4];  ///< the backtraced index positions: faces of each axis, cells
  Buffer<float> scalars_, scalar_scratch_, scalar_scratch2_;
  Buffer<unsigned char> solid_;
  Buffer<unsigned char> fixed_[3];  ///< 1: the face is a wall's or a solid's (gas_face_fixed)
  Buffer<float> fixed_value_[3];    ///< and its velocity
  Buffer<Vec4> solid_velocity_, cell_vectors_, cell_vectors2_;
  Buffer<ObstacleShape> obstacles_;
  Buffer<GasSource> sources_buffer_;
  Buffer<Vec4> publish_staging_;  ///< publish() on CUDA without the interop
  PoissonSolver<B> poisson_;  ///< the projection's A q = b
};

}  // namespace tp
