// The signed distance field's build time (src/sim/bodies/distance_field.h): not a test, a figure.
// Builds the field of a 10,000-triangle mesh made here (a sphere of 51 x 100 bands, a 64^3 grid
// at the default resolution; or a torus of 100 x 50 quads, a flat 64 x 22 x 64 grid) or of a
// mesh file, at a resolution (default 64 nodes along the longest side) a few times, and prints
// each build's time and the fastest. Threads: OMP_NUM_THREADS (the budget: 2 s on 2
// cores).
//   tp_bench_sdf [--shape sphere|torus | --mesh FILE] [--resolution N] [--repeat N]
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sim/bodies/distance_field.h"
#include "sim/bodies/mesh_shapes.h"

int main(int argc, char** argv) {
  int resolution = 64, repeat = 3;
  std::string path, shape = "sphere";
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--resolution") && has_value)
      resolution = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && has_value)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--mesh") && has_value)
      path = argv[++i];
    else if (!std::strcmp(argv[i], "--shape") && has_value)
      shape = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--shape sphere|torus | --mesh FILE] [--resolution N] [--repeat N]\n",
                   argv[0]);
      return 2;
    }
  }
  std::string error;
  tp::TriangleSoup mesh;
  if (path.empty() && shape == "sphere") {
    mesh = tp::make_sphere_mesh(0.3f, 51, 100);
    path = "sphere 51 x 100";
  } else if (path.empty() && shape == "torus") {
    mesh = tp::make_torus_mesh(0.3f, 0.1f, 100, 50);
    path = "torus 100 x 50";
  } else if (path.empty()) {
    std::fprintf(stderr, "unknown shape '%s' (sphere or torus)\n", shape.c_str());
    return 2;
  } else if (auto loaded = tp::load_triangle_mesh(path, 1.0f, &error)) {
    mesh = std::move(*loaded);
  } else {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  tp::DistanceFieldSettings settings;
  settings.resolution = resolution;
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto field = tp::build_distance_field(mesh, settings, &error);
    if (!field) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
    std::printf("sdf build: %s, %zu triangles, %dx%dx%d nodes, %d threads: %.1f ms\n", path.c_str(),
                mesh.triangles.size(), field->dims.x, field->dims.y, field->dims.z,
                omp_get_max_threads(), field->build_ms);
    best = std::min(best, field->build_ms);
  }
  std::printf("sdf build: fastest of %d: %.1f ms\n", repeat, best);
  return 0;
}
