// Marching cubes (Lorensen & Cline 1987, "Marching cubes: a high resolution 3D surface
// construction algorithm") over a lattice of field values, with its case table generated
// here, in code, rather than pasted, and a variant without holes.
//
// The variant. Classic MC decides each cube's triangles from its own 8 corners; on a face
// whose inside corners sit diagonally (an "ambiguous face") two neighbouring cubes can
// decide differently and leave a hole. Here every face decides by one rule of its own:
// the inside corners of an ambiguous face are joined (the outside corners are cut off),
// so the two cubes that share a face always draw the same contour segments on it. Each
// cube's segments then close into loops around the cube's surface (a cut edge is the end
// of one segment on one of its faces and the start of one on the other), and each loop is
// triangulated with no chord between two vertices of one face (so no triangle lies on a
// face, where the neighbouring cube could draw it too). The result is closed and manifold wherever the lattice
// is closed (every mesh edge lies on a face shared by two cubes, or inside one cube):
// this is the face-consistent "join the inside" resolution, the one that keeps thin sheets
// of water connected. (The cube's interior ambiguity, Chernyaev's tunnels, is not
// resolved: loops are filled separately, which can only drop a tunnel, never tear the
// surface.)
//
// Orientation: every loop is walked with the inside on its left as seen from outside the
// cube, whose right-hand normal points into the inside; the triangles are emitted the other
// way round, so triangles are counter-clockwise seen from outside the surface (normals out
// of the water, the field being larger inside).
//
// Corners: c = x | y << 1 | z << 2. Edges: e = 4 * axis + (u | v << 1), the edge along
// `axis` from the corner whose other two coordinates (in increasing axis order) are u, v.
#pragma once

#include "common.h"

namespace tp {

struct McTables {
  static constexpr int kMaxTriangles = 12;  // the generator checks it (10 are reached)
  unsigned char tri_count[256];
  signed char edges[256][3 * kMaxTriangles];  ///< cube edges, 3 per triangle
};

// The corner of edge e with the lower coordinate along its axis.
TP_HD TP_INLINE int mc_edge_corner(int e) {
  const int axis = e >> 2, u = e & 1, v = (e >> 1) & 1;
  const int a = (axis + 1) % 3, b = (axis + 2) % 3;
  const int lo = a < b ? a : b, hi = a < b ? b : a;
  return (u << lo) | (v << hi);
}
TP_HD TP_INLINE int mc_edge_axis(int e) { return e >> 2; }

// The two faces edge e lies on, as bits 2 * axis + side of a 6-bit mask.
TP_HD TP_INLINE int mc_edge_faces(int e) {
  const int c = mc_edge_corner(e), axis = mc_edge_axis(e);
  int faces = 0;
  for (int a = 0; a < 3; ++a)
    if (a != axis) faces |= 1 << (2 * a + ((c >> a) & 1));
  return faces;
}

// The edge joining corners p and q (which differ in one coordinate).
TP_HD TP_INLINE int mc_edge_between(int p, int q) {
  const int d = p ^ q;
  const int axis = d == 1 ? 0 : (d == 2 ? 1 : 2);
  const int a = p & ~d;  // the lower corner
  const int o1 = (axis + 1) % 3, o2 = (axis + 2) % 3;
  const int lo = o1 < o2 ? o1 : o2, hi = o1 < o2 ? o2 : o1;
  return 4 * axis + (((a >> lo) & 1) | (((a >> hi) & 1) << 1));
}

// Fills t (host code, once). Returns false if a case broke an invariant (a generator bug).
inline bool make_mc_tables(McTables& t) {
  // The four corners of each face, counter-clockwise seen from outside the cube.
  int face[6][4];
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;  // u x v = +axis
      // Counter-clockwise about +axis in the (u, v) plane: (0,0), (1,0), (1,1), (0,1).
      const int ring[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
      int* f = face[2 * axis + side];
      for (int k = 0; k < 4; ++k) {
        const int r = side ? k : (4 - k) % 4;  // seen from -axis the ring runs the other way
        f[k] = (side << axis) | (ring[r][0] << u) | (ring[r][1] << v);
      }
    }
  for (int m = 0; m < 256; ++m) {
    int next[12];
    for (int& n : next) n = -1;
    for (const auto& f : face) {
      bool in[4];
      for (int k = 0; k < 4; ++k) in[k] = (m >> f[k]) & 1;
      for (int k = 0; k < 4; ++k) {
        if (!(in[k] && !in[(k + 1) % 4])) continue;  // not an in -> out crossing
        for (int d = 1; d < 4; ++d) {               // the next out -> in crossing, forward
          const int j = (k + d) % 4;
          if (!in[j] && in[(j + 1) % 4]) {
            const int from = mc_edge_between(f[k], f[(k + 1) % 4]);
            const int to = mc_edge_between(f[j], f[(j + 1) % 4]);
            if (next[from] != -1) return false;
            next[from] = to;
            break;
          }
        }
      }
    }
    int tris = 0;
    bool seen[12] = {};
    for (int start = 0; start < 12; ++start) {
      if (next[start] == -1 || seen[start]) continue;
      int loop[12], len = 0;
      for (int e = start;; e = next[e]) {
        if (e < 0 || len == 12) return false;  // (before seen[e]: e may be the -1 of no next)
        if (seen[e]) break;
        seen[e] = true;
        loop[len++] = e;
      }
      if (loop[0] != start || next[loop[len - 1]] != start || len < 3) return false;
      // The loop's triangulation with the fewest chords between two vertices of one face
      // (none in every case: the generator checks it). A plain fan can lay a chord, even a
      // whole triangle, on a face, and the neighbouring cube's can lay the same one there:
      // four triangles on one edge, a sheet of zero thickness between the cubes.
      auto on_one_face = [&](int a, int b) {
        return b - a > 1 && !(a == 0 && b == len - 1) && (mc_edge_faces(loop[a]) & mc_edge_faces(loop[b])) != 0;
      };
      int cost[12][12] = {}, split[12][12] = {};
      for (int span = 2; span < len; ++span)
        for (int i = 0; i + span < len; ++i) {
          const int j = i + span;
          cost[i][j] = 1 << 20;
          for (int k = i + 1; k < j; ++k) {
            const int c = cost[i][k] + cost[k][j] + int(on_one_face(i, k)) + int(on_one_face(k, j));
            if (c < cost[i][j]) cost[i][j] = c, split[i][j] = k;
          }
        }
      if (cost[0][len - 1] != 0) return false;
      int stack[12][2], top = 0;
      stack[top][0] = 0, stack[top++][1] = len - 1;
      while (top > 0) {
        --top;
        const int i = stack[top][0], j = stack[top][1];
        if (j - i < 2) continue;
        const int k = split[i][j];
        if (tris == McTables::kMaxTriangles) return false;
        // Reversed (i, j, k): normals out of the inside.
        t.edges[m][3 * tris + 0] = (signed char)loop[i];
        t.edges[m][3 * tris + 1] = (signed char)loop[j];
        t.edges[m][3 * tris + 2] = (signed char)loop[k];
        ++tris;
        stack[top][0] = i, stack[top++][1] = k;
        stack[top][0] = k, stack[top++][1] = j;
      }
    }
    for (int e = 0; e < 12; ++e)  // every cut edge is on exactly one loop
      if ((((m >> mc_edge_corner(e)) ^ (m >> (mc_edge_corner(e) | (1 << mc_edge_axis(e))))) & 1) !=
          (next[e] != -1))
        return false;
    t.tri_count[m] = (unsigned char)tris;
    for (int k = 3 * tris; k < 3 * McTables::kMaxTriangles; ++k) t.edges[m][k] = -1;
  }
  return true;
}

// A lattice of field values: node (x, y, z) at origin + (x dx.x, y dx.y, z dx.z), stored
// x fastest. Cells (cubes) are named by their lowest node.
struct FieldLattice {
  Vec3 origin;  ///< [m] node (0, 0, 0)
  Vec3 dx;      ///< [m] node spacing per axis
  Int3 dims;    ///< nodes per axis

  TP_HD TP_INLINE uint node_count() const { return uint(dims.x) * uint(dims.y) * uint(dims.z); }
  TP_HD TP_INLINE uint linear(int x, int y, int z) const {
    return uint(x) + uint(dims.x) * (uint(y) + uint(dims.y) * uint(z));
  }
  TP_HD TP_INLINE Int3 coords(uint n) const {
    const uint x = n % uint(dims.x), yz = n / uint(dims.x);
    return Int3{int(x), int(yz % uint(dims.y)), int(yz / uint(dims.y))};
  }
  TP_HD TP_INLINE Vec3 position(int x, int y, int z) const {
    return Vec3{origin.x + x * dx.x, origin.y + y * dx.y, origin.z + z * dx.z};
  }
};

// Inside means at or above the iso level (the field is larger in the water).
TP_HD TP_INLINE bool mc_inside(float value, float iso) { return value >= iso; }

TP_HD TP_INLINE uint mc_popcount3(uint bits) { return (bits & 1u) + ((bits >> 1) & 1u) + ((bits >> 2) & 1u); }

// Row r of the lattice (the nodes x = 0 .. dims.x - 1 at y = r % dims.y, z = r / dims.y),
// one pass along it, no division a node: for each node, bits 0, 1, 2 of bits[n] say
// whether its lattice edge along x, y, z crosses the iso level, and cases[n] is the case
// (bit c set when corner c is inside) of the cell whose lowest node it is (0 on the
// lattice's last layers, which start no cell). Returns the row's vertex and triangle
// counts.
TP_HD TP_INLINE void mc_classify_row(const FieldLattice& l, const float* field, float iso, const McTables& t,
                                     uint r, unsigned char* bits, unsigned char* cases, uint* vertices,
                                     uint* triangles) {
  const int y = int(r % uint(l.dims.y)), z = int(r / uint(l.dims.y));
  const uint sy = uint(l.dims.x), sz = uint(l.dims.x) * uint(l.dims.y);
  const uint n0 = r * sy;
  const bool up = y + 1 < l.dims.y, back = z + 1 < l.dims.z;
  const float* f00 = field + n0;
  const float* f10 = up ? f00 + sy : f00;
  const float* f01 = back ? f00 + sz : f00;
  const float* f11 = up && back ? f00 + sy + sz : f00;
  uint v = 0, tris = 0;
  // Corners at x: in00 (y, z), in10 (y + 1, z), in01 (y, z + 1), in11 (y + 1, z + 1).
  uint a00 = mc_inside(f00[0], iso), a10 = mc_inside(f10[0], iso);
  uint a01 = mc_inside(f01[0], iso), a11 = mc_inside(f11[0], iso);
  for (int x = 0; x < l.dims.x; ++x) {
    const bool right = x + 1 < l.dims.x;
    const uint b00 = right ? mc_inside(f00[x + 1], iso) : a00, b10 = right ? mc_inside(f10[x + 1], iso) : a10;
    const uint b01 = right ? mc_inside(f01[x + 1], iso) : a01, b11 = right ? mc_inside(f11[x + 1], iso) : a11;
    uint e = (a00 != b00) ? 1u : 0u;
    if (up && a00 != a10) e |= 2u;
    if (back && a00 != a01) e |= 4u;
    uint m = 0;
    if (right && up && back)
      m = a00 | (b00 << 1) | (a10 << 2) | (b10 << 3) | (a01 << 4) | (b01 << 5) | (a11 << 6) | (b11 << 7);
    bits[n0 + uint(x)] = (unsigned char)e;
    cases[n0 + uint(x)] = (unsigned char)m;
    v += mc_popcount3(e);
    tris += t.tri_count[m];
    a00 = b00, a10 = b10, a01 = b01, a11 = b11;
  }
  vertices[r] = v;
  triangles[r] = tris;
}

// The index of the vertex on cube edge e of the cell at node n: vertices are numbered by
// lattice edge, in lattice order (vertex_base[n]: the first of node n's), so a vertex
// shared by the cells around its edge is one vertex (welded by construction), and the
// numbering does not depend on the order in which threads ran.
TP_HD TP_INLINE uint mc_vertex_of(const FieldLattice& l, const uint* vertex_base, const unsigned char* bits,
                                  uint n, int e) {
  const int a = mc_edge_corner(e), axis = mc_edge_axis(e);
  const uint node = n + uint(a & 1) + uint((a >> 1) & 1) * uint(l.dims.x) +
                    uint((a >> 2) & 1) * uint(l.dims.x) * uint(l.dims.y);
  return vertex_base[node] + mc_popcount3(uint(bits[node]) & ((1u << axis) - 1u));
}

// Where along the edge from a (value fa) to b (value fb) the field meets iso, kept off the
// ends so that two vertices never coincide at a lattice node (no degenerate triangles).
TP_HD TP_INLINE float mc_edge_t(float fa, float fb, float iso) {
  const float d = fb - fa;
  const float t = d != 0.0f ? (iso - fa) / d : 0.5f;
  return clampf(t, 1.0e-3f, 1.0f - 1.0e-3f);
}

// The field's gradient at node (x, y, z): central differences, one-sided at the lattice's
// faces.
TP_HD TP_INLINE Vec3 mc_gradient(const FieldLattice& l, const float* field, int x, int y, int z) {
  const uint n = l.linear(x, y, z);
  const uint sy = uint(l.dims.x), sz = uint(l.dims.x) * uint(l.dims.y);
  const int x0 = x > 0 ? x - 1 : x, x1 = x + 1 < l.dims.x ? x + 1 : x;
  const int y0 = y > 0 ? y - 1 : y, y1 = y + 1 < l.dims.y ? y + 1 : y;
  const int z0 = z > 0 ? z - 1 : z, z1 = z + 1 < l.dims.z ? z + 1 : z;
  const float gx = (field[n + uint(x1 - x)] - field[n - uint(x - x0)]) / (float(x1 - x0) * l.dx.x);
  const float gy = (field[n + uint(y1 - y) * sy] - field[n - uint(y - y0) * sy]) / (float(y1 - y0) * l.dx.y);
  const float gz = (field[n + uint(z1 - z) * sz] - field[n - uint(z - z0) * sz]) / (float(z1 - z0) * l.dx.z);
  return Vec3{gx, gy, gz};
}

// The vertex on the lattice edge from node n along `axis`: its position, its unit normal
// (minus the field's gradient, interpolated: out of the water), and t.
struct McVertex {
  Vec3 position;
  Vec3 normal;
  float t;
};
TP_HD TP_INLINE McVertex mc_vertex(const FieldLattice& l, const float* field, float iso, Int3 a, int axis) {
  const uint n = l.linear(a.x, a.y, a.z);
  const Int3 b = Int3{a.x + (axis == 0), a.y + (axis == 1), a.z + (axis == 2)};
  const float fa = field[n], fb = field[l.linear(b.x, b.y, b.z)];
  const float t = mc_edge_t(fa, fb, iso);
  const Vec3 pa = l.position(a.x, a.y, a.z), pb = l.position(b.x, b.y, b.z);
  const Vec3 ga = mc_gradient(l, field, a.x, a.y, a.z), gb = mc_gradient(l, field, b.x, b.y, b.z);
  Vec3 g = ga * (1.0f - t) + gb * t;
  const float len = length(g);
  // A flat spot of the field (never at a crossing in practice): the edge's own direction,
  // from the inside end to the outside one.
  const Vec3 along = Vec3{float(axis == 0), float(axis == 1), float(axis == 2)};
  const Vec3 nrm = len > 0.0f ? g * (-1.0f / len) : (mc_inside(fa, iso) ? along : -along);
  return McVertex{pa * (1.0f - t) + pb * t, nrm, t};
}

}  // namespace tp
