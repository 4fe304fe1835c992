// Where a body sits in the water of a snapshot, as the panel's Bodies section shows it: how
// deep its lowest point is under the water's surface beside it (the draft while it floats
// through the surface, more than its height once it is wholly under). Measured from the
// particles' positions, as a user would read it off the water.
#pragma once

#include <cstddef>

#include "sim/bodies/body_spec.h"

namespace tp {

// The body's lowest and highest world y [m] where it is now (a mesh's: its vertices').
void body_vertical_extent(const BodySpec& body, float* lowest, float* highest);

struct BodyWaterline {
  bool found = false;  ///< water was found beside the body
  float surface = 0.0f;  ///< [m] the water's surface beside it (y)
  float depth = 0.0f;    ///< [m] surface less the body's lowest point (negative: above the water)
  float height = 0.0f;   ///< [m] the body's highest less its lowest point
};

// The water's surface beside the body: the columns 2 spacings square (in 2D, 2 spacings
// wide) in a ring from half a spacing to 4 spacings out from the body's horizontal reach,
// each column's highest particle plus half a spacing, the median over the columns (a drop
// thrown above one column does not move it). `particles` are positions in xyz (their w is
// not read); in 2D the plane z = const, the ring along x only.
BodyWaterline body_waterline(const BodySpec& body, const Vec4* particles, size_t n, float spacing, int dimensions);

}  // namespace tp
