#include "sim/io/gas_vtk.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "util/atomic_file.h"

namespace tp {

namespace {

// Legacy VTK binary data is big-endian.
void put_float(std::string& out, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  const char b[4] = {char(bits >> 24), char(bits >> 16), char(bits >> 8), char(bits)};
  out.append(b, 4);
}

}  // namespace

bool write_gas_vtk(const std::string& path, const GasSimulation& gas, double time, std::string* error) {
  const GasGrid g = gas.setup().grid;
  const uint n = g.cells();
  std::vector<float> ch[kGasChannels], vel[3];
  for (int c = 0; c < kGasChannels; ++c) gas.read_channel(c, &ch[c]);
  for (int a = 0; a < 3; ++a) gas.read_velocity(a, &vel[a]);
  std::string out;
  out.reserve(size_t(n) * 4 * 8 + 1024);
  char header[512];
  std::snprintf(header, sizeof(header),
                "# vtk DataFile Version 3.0\ntidepool gas, time %.6f s\nBINARY\nDATASET STRUCTURED_POINTS\n"
                "DIMENSIONS %d %d %d\nORIGIN %.9g %.9g %.9g\nSPACING %.9g %.9g %.9g\nPOINT_DATA %u\n",
                time, g.n.x, g.n.y, g.n.z, g.lo.x + 0.5 * g.dx, g.lo.y + 0.5 * g.dx, g.lo.z + 0.5 * g.dx, g.dx, g.dx,
                g.dx, n);
  out += header;
  const auto scalars = [&](const char* name, const std::vector<float>& values) {
    out += std::string("SCALARS ") + name + " float 1\nLOOKUP_TABLE default\n";
    for (float v : values) put_float(out, v);
    out += "\n";
  };
  scalars("density", ch[kGasDensity]);
  scalars("temperature", ch[kGasTemperature]);
  out += "VECTORS dye float\n";
  for (uint c = 0; c < n; ++c) {
    // The dye is carried as colour x density: its colour is that over the density.
    const float d = ch[kGasDensity][c];
    const float k = d > 1e-6f ? 1.0f / d : 0.0f;
    put_float(out, ch[kGasRed][c] * k), put_float(out, ch[kGasGreen][c] * k), put_float(out, ch[kGasBlue][c] * k);
  }
  out += "\nVECTORS velocity float\n";
  for (uint c = 0; c < n; ++c) {
    const Int3 i = g.cell_of(c);
    const float u = 0.5f * (vel[0][g.face(0, i.x, i.y, i.z)] + vel[0][g.face(0, i.x + 1, i.y, i.z)]);
    const float v = 0.5f * (vel[1][g.face(1, i.x, i.y, i.z)] + vel[1][g.face(1, i.x, i.y + 1, i.z)]);
    const float w = 0.5f * (vel[2][g.face(2, i.x, i.y, i.z)] + vel[2][g.face(2, i.x, i.y, i.z + 1)]);
    put_float(out, u), put_float(out, v), put_float(out, w);
  }
  out += "\n";
  return write_file_atomic(path, out, error);
}

}  // namespace tp
