// The mass properties of the solid a closed triangle mesh bounds, per unit density: its
// volume, centroid and inertia tensor about the centroid, exact for the polyhedron (sums over
// the signed tetrahedra that each triangle spans with a reference point, Gauss's theorem);
// the principal moments and axes (Jacobi's eigenvalue method); and the mesh re-expressed in
// its principal frame, as a rigid body keeps it.
#pragma once

#include <string>

#include "kernels/rigid_body.h"
#include "sim/bodies/triangle_mesh.h"

namespace tp {

using Mat3 = double[3][3];

struct MassProperties {
  double volume = 0.0;               ///< [m^3] > 0 for an outward-facing closed mesh
  Vec3 centroid{0, 0, 0};            ///< [m] the centre of mass at uniform density
  double inertia[3][3] = {};         ///< [m^5] about the centroid, mesh axes; times density: kg m^2
  double principal_moments[3] = {};  ///< [m^5] ascending, the eigenvalues of `inertia`
  // The rotation from the principal frame (its x, y, z along the principal axes of the
  // moments above, in order) to the mesh's frame: column k of its matrix is axis k.
  Quat principal_to_mesh{1, 0, 0, 0};
};

// The mass properties, uniform density 1. The mesh's orientation decides the volume's sign:
// an inward-facing mesh gives a negative volume (see orient_outward).
MassProperties compute_mass_properties(const TriangleSoup& mesh);

// A mesh whose triangles face inward (negative volume) turned outward by reversing every
// triangle; true if it was, with a sentence for the log in *note ("name: its triangles face
// inward (volume -0.02 m^3); turned outward").
bool orient_outward(TriangleSoup* mesh, const std::string& name, std::string* note);

// The mesh moved into its principal frame: every vertex p becomes R^T (p - centroid), R the
// rotation of props.principal_to_mesh, which is returned (mesh point = centroid + R p').
Quat to_principal_frame(TriangleSoup* mesh, const MassProperties& props);

// The eigenvalues (ascending) and unit eigenvectors (the columns of `vectors`, a right-handed
// frame) of the symmetric matrix `m`: cyclic Jacobi rotations until the off-diagonal part is
// below 1e-15 of the norm (a few sweeps for 3x3).
void symmetric_eigen(const Mat3& m, double values[3], Mat3& vectors);

// The unit quaternion of a rotation matrix (orthonormal, det +1).
Quat quat_from_matrix(const Mat3& r);

}  // namespace tp
