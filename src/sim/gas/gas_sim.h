// The gas simulation (smoke, ink) as the app, the headless tools and the tests see it: a
// MAC grid in 2D or 3D on either backend (src/sim/gas/gas_solver.h drives kernels/gas.h).
// No GL, no windows.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/gas.h"
#include "kernels/gas_shade.h"
#include "kernels/obstacle.h"
#include "sim/backend/backend_kind.h"
#include "sim/backend/publish_values.h"

namespace tp {

enum class GasAdvection : int { SemiLagrangian = 0, MacCormack = 1 };
enum class GasPressureSolver : int { Mgpcg = 0, Jacobi = 1 };

// Every parameter, editable between steps: the table in sim/gas/gas_params.cpp gives each
// one's unit, range, default and description (default_gas_params()).
struct GasParams {
  float dt_max;              ///< [s] longest step
  float cfl;                 ///< [cells] farthest the fastest gas moves in a step
  int advection;             ///< GasAdvection
  int pressure_solver;       ///< GasPressureSolver
  float pressure_tolerance;  ///< max residual / max right-hand side (MGPCG)
  int pressure_max_iterations;
  int jacobi_iterations;
  float buoyancy;            ///< [m/s^2 per K]
  float weight;              ///< [m/s^2 per unit density]
  float vorticity;           ///< [1] confinement epsilon
  float viscosity;           ///< [m^2/s]
  int viscosity_iterations;
  float density_decay;       ///< [1/s]
  float temperature_decay;   ///< [1/s]
};

// A box of cells: its size, the open sides and the walls' motion, the obstacles (solid
// cells: the cells whose centres they hold) and the sources.
struct GasSetup {
  GasGrid grid;
  GasWalls walls;
  std::vector<ObstacleShape> obstacles;
  std::vector<GasSource> sources;
};

struct GasPhaseTime {
  std::string name;
  double ms = 0.0;
};

struct GasStats {
  uint64_t steps = 0;
  double simulated_time = 0.0;  ///< [s]
  float dt = 0.0f;              ///< [s] of the last step
  int pressure_iterations = 0;  ///< of the last projection
  float pressure_residual = 0.0f;  ///< max residual / max right-hand side, last projection
  float divergence_before = 0.0f;  ///< [1/s] max |div u| before the last projection
  float divergence_after = 0.0f;   ///< [1/s] and after it (fluid cells)
  double smoke_mass = 0.0;         ///< sum of density x cell volume [m^3] (m^2 in 2D)
  float max_speed = 0.0f;          ///< [m/s]
  std::vector<GasPhaseTime> phases;  ///< ms of the last step's phases
};

class GasSimulation {
 public:
  virtual ~GasSimulation() = default;
  // Throws std::invalid_argument for a grid it cannot hold (the sentence says why),
  // leaving the simulation as it was.
  virtual void reset(const GasSetup& setup) = 0;
  virtual void step() = 0;
  virtual GasParams& params() = 0;
  virtual const GasSetup& setup() const = 0;
  virtual GasStats stats() const = 0;
  // The sources of the next steps (the scene's and the mouse's).
  virtual void set_sources(const std::vector<GasSource>& sources) = 0;
  // Moves obstacle `index` to `centre` at the next step (it pushes the gas).
  virtual void move_obstacle(int index, Vec3 center) = 0;

  // Host copies (tests, export, the renderer's upload): a face component (axis 0-2) or a
  // cell channel (GasChannel), in the kernels' layout.
  virtual void read_velocity(int axis, std::vector<float>* out) const = 0;
  virtual void read_channel(int channel, std::vector<float>* out) const = 0;
  virtual void write_velocity(int axis, const std::vector<float>& values) = 0;
  virtual void write_channel(int channel, const std::vector<float>& values) = 0;
  virtual void read_solid(std::vector<unsigned char>* out) const = 0;
  // The clock as a state file had it (the simulated time and the steps taken).
  virtual void set_clock(double simulated_time, uint64_t steps) = 0;
  // Max |div u| [1/s] over the fluid cells of the velocity as it is now.
  virtual float max_divergence() const = 0;
  // Makes the velocity as it is divergence-free (as a step's projection does).
  virtual void project() = 0;

  // The cells as the renderer draws them, one Vec4 per cell in the cells' layout
  // (gas_shade_cell: lit colour and density, or a view's colour map) into `target`: on
  // CUDA straight into the GL buffer when the interop allows. Values of `shade` out of
  // range are brought into it (a NaN: the default).
  virtual void publish(const GasShade& shade, PublishTarget& target) = 0;
};

std::unique_ptr<GasSimulation> make_gas_simulation(BackendKind kind);

// The memory GasSolver::reset allocates for this grid [bytes] (host memory on the CPU
// backend, device memory on CUDA): per face of each axis its velocity, two scratch copies,
// the backtrace (16 B), the fixed mask and value; per cell the five scalars three times,
// the backtrace, the solid mask, links and velocity, two vectors, seven solver vectors; the
// multigrid's levels (an eighth of a cell's 15 B each, and so on).
inline uint64_t gas_memory_bytes(const GasGrid& g) {
  uint64_t faces = 0;
  for (int axis = 0; axis < 3; ++axis) faces += g.faces(axis);
  const uint64_t cells = g.cells();
  const uint64_t per_face = 3 * 4 + 16 + 1 + 4;
  const uint64_t per_cell = 3 * 5 * 4 + 16 + 1 + 2 + 16 + 2 * 16 + 7 * 4;
  return faces * per_face + cells * per_cell + cells * 15 / 7 + (1u << 20);
}

}  // namespace tp
