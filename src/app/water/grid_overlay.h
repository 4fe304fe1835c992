// The Debug views' grid overlay: which cells of the simulation's neighbour grid hold fluid
// particles and how many, from the published positions (the CPU path), for the renderer's
// GridOverlayPass and the panel's figures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/common.h"
#include "sim/water/simulation.h"

namespace tp {

// At most this many cells are drawn: a 100,000-particle pool (about 8 particles a cell)
// stays under it; beyond it the drawing would be a solid mesh of lines (and slow).
constexpr size_t kGridOverlayMaxCells = 20000;

struct GridOccupancy {
  // The drawn cells in the grid's order (x fastest, then y, then z): xyz the cell's lowest
  // corner [m], w the fluid particles in it. At most the cap's first cells in that order.
  std::vector<Vec4> cells;
  size_t occupied = 0;  ///< cells holding at least one particle (drawn or not)
  int most = 0;         ///< the most particles in one cell
  double mean = 0.0;    ///< particles per occupied cell
};

// Counts the particles (xyz of each Vec4) per cell of `grid`, each in the cell the
// simulation's grid puts it (outside the grid: the nearest edge cell), and keeps the first
// `cap` occupied cells in the grid's order. `scratch` is a count per cell, reused across
// calls (all zero between them). Nothing for a grid without cells.
void count_grid_cells(const std::vector<Vec4>& positions, const GridGeometry& grid, size_t cap,
                      std::vector<uint32_t>* scratch, GridOccupancy* out);

// Particles in a cell of a resting lattice: 2 x 2 x 2 (2 x 2 in 2D), a cell being 2
// spacings. The top of the overlay's colour ramp.
inline int full_cell_count(int dimensions) { return dimensions == 2 ? 4 : 8; }

}  // namespace tp
