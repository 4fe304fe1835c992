#include "app/water/grid_overlay.h"

#include <algorithm>
#include <cmath>

namespace tp {

namespace {

// kernels/grid.h's cell_of, with the cell size instead of its inverse.
int cell_on_axis(float p, float origin, float cell, int dims) {
  const float c = std::floor((p - origin) / cell);
  if (!(c >= 0.0f)) return 0;  // below, or NaN
  return c >= float(dims - 1) ? dims - 1 : int(c);
}

}  // namespace

void count_grid_cells(const std::vector<Vec4>& positions, const GridGeometry& grid, size_t cap,
                      std::vector<uint32_t>* scratch, GridOccupancy* out) {
  out->cells.clear();
  out->occupied = 0;
  out->most = 0;
  out->mean = 0.0;
  const Int3 d = grid.dims;
  if (d.x <= 0 || d.y <= 0 || d.z <= 0 || !(grid.cell > 0.0f)) return;
  const size_t cell_count = size_t(d.x) * size_t(d.y) * size_t(d.z);
  std::vector<uint32_t>& count = *scratch;
  if (count.size() != cell_count) count.assign(cell_count, 0);
  // A count per cell, and the cells that have any.
  std::vector<uint32_t> occupied;
  for (const Vec4& p : positions) {
    const size_t i = size_t(cell_on_axis(p.x, grid.origin.x, grid.cell, d.x)) +
                     size_t(d.x) * (size_t(cell_on_axis(p.y, grid.origin.y, grid.cell, d.y)) +
                                    size_t(d.y) * size_t(cell_on_axis(p.z, grid.origin.z, grid.cell, d.z)));
    if (count[i]++ == 0) occupied.push_back(uint32_t(i));
  }
  std::sort(occupied.begin(), occupied.end());
  out->occupied = occupied.size();
  out->cells.reserve(std::min(cap, occupied.size()));
  for (const uint32_t i : occupied) {
    const int n = int(count[i]);
    out->most = std::max(out->most, n);
    if (out->cells.size() < cap) {
      const int x = int(i % uint32_t(d.x)), y = int(i / uint32_t(d.x) % uint32_t(d.y)),
                z = int(i / (uint32_t(d.x) * uint32_t(d.y)));
      out->cells.push_back(Vec4{grid.origin.x + grid.cell * float(x), grid.origin.y + grid.cell * float(y),
                                grid.origin.z + grid.cell * float(z), float(n)});
    }
    count[i] = 0;  // all zero again for the next call
  }
  if (!occupied.empty()) out->mean = double(positions.size()) / double(occupied.size());
}

}  // namespace tp
