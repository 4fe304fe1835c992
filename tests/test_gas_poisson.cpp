// The gas's Poisson solve alone (src/sim/gas/poisson_solver.h, kernels/gas_pressure.h) on the
// CPU backend: a right-hand side made from a known q by the graph Laplacian written out here
// cell by cell (walls and solids Neumann, open sides Dirichlet), solved back to that q by
// MGPCG beside a solid block, in 2D with an open side and in a closed 3D box (where q is
// known up to a constant); Jacobi's residual as it says; a zero right-hand side.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "sim/backend/backend_cpu.h"
#include "sim/gas/poisson_solver.h"

namespace tp {
namespace {

using Solver = PoissonSolver<CpuBackend>;

struct Problem {
  GasGrid grid;
  std::vector<unsigned char> solid;
  std::vector<double> q;  ///< the answer (0 in solid cells)
  std::vector<double> b;  ///< A q
};

// (A x)_c = sum over c's free faces of (x_c - x_beyond), x_beyond 0 past an open side;
// faces to a solid cell or a wall are closed. 0 in a solid cell.
std::vector<double> laplacian(const GasGrid& g, const std::vector<unsigned char>& solid, const std::vector<double>& x) {
  std::vector<double> out(g.cells(), 0.0);
  for (uint c = 0; c < g.cells(); ++c) {
    if (solid[c]) continue;
    const Int3 c3 = g.cell_of(c);
    double sum = 0.0;
    for (int axis = 0; axis < 3; ++axis)
      for (int s = 0; s < 2; ++s) {
        const Int3 nb = gas_step(c3, axis, s ? 1 : -1);
        if (!gas_inside(g, nb)) {
          if (g.side_open(2 * axis + s)) sum += x[c];
          continue;
        }
        const uint k = g.cell(nb.x, nb.y, nb.z);
        if (!solid[k]) sum += x[c] - x[k];
      }
    out[c] = sum;
  }
  return out;
}

// A solid block (cells [lo, hi) along each axis) in a grid of n cells, and a rough q
// (a deterministic hash in [-1, 1]) plus a smooth hill.
Problem make_problem(Int3 n, unsigned open, Int3 lo, Int3 hi) {
  Problem p;
  p.grid.n = n;
  p.grid.dx = 0.05f;
  p.grid.open = open;
  p.solid.assign(p.grid.cells(), 0);
  p.q.assign(p.grid.cells(), 0.0);
  unsigned h = 12345u;
  for (uint c = 0; c < p.grid.cells(); ++c) {
    const Int3 c3 = p.grid.cell_of(c);
    const bool inside = c3.x >= lo.x && c3.x < hi.x && c3.y >= lo.y && c3.y < hi.y && c3.z >= lo.z && c3.z < hi.z;
    h ^= h << 13, h ^= h >> 17, h ^= h << 5;
    p.solid[c] = inside ? 1 : 0;
    if (!inside)
      p.q[c] = double(h % 20001u) / 10000.0 - 1.0 + 3.0 * std::sin(0.2 * c3.x) * std::cos(0.15 * c3.y);
  }
  p.b = laplacian(p.grid, p.solid, p.q);
  return p;
}

struct SolverOnGrid {
  Solver solver;
  CpuBackend::Buffer<unsigned char> solid;
};

// The solver on the problem's grid and solids, its right-hand side the problem's b.
void prepare(SolverOnGrid& s, const Problem& p) {
  s.solver.reset(p.grid);
  s.solid.resize(p.grid.cells());
  std::copy(p.solid.begin(), p.solid.end(), s.solid.data());
  s.solver.set_solids(s.solid.data());
  for (uint c = 0; c < p.grid.cells(); ++c) s.solver.rhs()[c] = float(p.b[c]);
}

// max |b - A q| / max |b| of the solver's q against the problem's b.
double true_residual(const Problem& p, const Solver& solver) {
  std::vector<double> q(solver.pressure(), solver.pressure() + p.grid.cells());
  const std::vector<double> aq = laplacian(p.grid, p.solid, q);
  double worst = 0.0, bmax = 0.0;
  for (uint c = 0; c < p.grid.cells(); ++c) {
    worst = std::max(worst, std::fabs(p.b[c] - aq[c]));
    bmax = std::max(bmax, std::fabs(p.b[c]));
  }
  return worst / bmax;
}

// The largest |q - q_known - shift| over the fluid cells, shift the mean difference when
// the box is closed (q is known up to a constant there), else 0; and q in the solid cells.
double error(const Problem& p, const Solver& solver, bool closed, double* solid_q) {
  double shift = 0.0, fluid = 0.0;
  for (uint c = 0; c < p.grid.cells(); ++c)
    if (!p.solid[c]) shift += solver.pressure()[c] - p.q[c], fluid += 1.0;
  shift = closed ? shift / fluid : 0.0;
  double worst = 0.0;
  *solid_q = 0.0;
  for (uint c = 0; c < p.grid.cells(); ++c) {
    if (p.solid[c])
      *solid_q = std::max(*solid_q, double(std::fabs(solver.pressure()[c])));
    else
      worst = std::max(worst, std::fabs(solver.pressure()[c] - p.q[c] - shift));
  }
  return worst;
}

// MGPCG to a relative residual of 1e-6 on `p`: a few iterations, the residual it states
// true, q the known one (up to a constant in a closed box) within 2e-4 of a q of about 4
// at most, and 0 in the solid cells.
void expect_mgpcg_finds(const Problem& p, const char* name) {
  SolverOnGrid s;
  prepare(s, p);
  const Solver::Result r = s.solver.solve_mgpcg(1e-6f, 100);
  double solid_q = 0.0;
  const double err = error(p, s.solver, p.grid.open == 0, &solid_q);
  std::printf("%s: %d iterations, residual %.2g (recomputed %.2g), max |q - q_known| %.2g\n", name, r.iterations,
              r.residual, true_residual(p, s.solver), err);
  EXPECT_LE(r.residual, 1e-6f);
  EXPECT_GE(r.iterations, 1);
  EXPECT_LE(r.iterations, 30);
  EXPECT_LE(true_residual(p, s.solver), 1e-5);
  EXPECT_LE(err, 2e-4);
  EXPECT_EQ(solid_q, 0.0);
}

TEST(PoissonSolver, MgpcgFindsAKnownPressureBesideASolidBlockInThePlaneWithAnOpenSide) {
  expect_mgpcg_finds(make_problem(Int3{40, 30, 1}, 1u << 3, Int3{12, 8, 0}, Int3{20, 14, 1}), "2D open top, 40 x 30");
}

TEST(PoissonSolver, MgpcgFindsAKnownPressureUpToAConstantInAClosedBox) {
  expect_mgpcg_finds(make_problem(Int3{12, 10, 8}, 0u, Int3{4, 3, 2}, Int3{8, 6, 5}), "3D closed, 12 x 10 x 8");
}

TEST(PoissonSolver, JacobiSaysItsResidualAndMoreSweepsLowerIt) {
  const Problem p = make_problem(Int3{16, 12, 1}, 1u << 3, Int3{6, 4, 0}, Int3{9, 7, 1});
  SolverOnGrid s;
  prepare(s, p);
  const Solver::Result few = s.solver.solve_jacobi(10);
  EXPECT_EQ(few.iterations, 10);
  EXPECT_NEAR(few.residual, true_residual(p, s.solver), 1e-5 + 1e-4 * few.residual);
  const Solver::Result many = s.solver.solve_jacobi(2000);
  EXPECT_EQ(many.iterations, 2000);
  EXPECT_NEAR(many.residual, true_residual(p, s.solver), 1e-5 + 1e-4 * many.residual);
  EXPECT_LT(many.residual, 0.01f * few.residual);
  double solid_q = 0.0;
  EXPECT_LE(error(p, s.solver, false, &solid_q), 1e-3);
}

TEST(PoissonSolver, AZeroRightHandSideGivesAZeroPressureAtOnce) {
  Problem p = make_problem(Int3{20, 20, 1}, 0u, Int3{5, 5, 0}, Int3{8, 8, 1});
  std::fill(p.b.begin(), p.b.end(), 0.0);
  SolverOnGrid s;
  prepare(s, p);
  const Solver::Result r = s.solver.solve_mgpcg(1e-4f, 60);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(r.residual, 0.0f);
  for (uint c = 0; c < p.grid.cells(); ++c) EXPECT_EQ(s.solver.pressure()[c], 0.0f);
}

}  // namespace
}  // namespace tp
