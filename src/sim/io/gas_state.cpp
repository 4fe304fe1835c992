#include "sim/io/gas_state.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/io/binary_reader.h"
#include "util/atomic_file.h"

namespace tp {

namespace {

constexpr char kMagic[8] = {'T', 'P', 'G', 'A', 'S', '\n', 1, 0};
constexpr uint32_t kVersion = 1;

class Writer {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  template <class T>
  void put_array(const std::vector<T>& v) {
    put(uint64_t(v.size()));
    put(uint32_t(sizeof(T)));
    bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  std::string bytes;
};

// An array as put_array writes it (its count, its item size, the items), at most `most` items.
template <class T>
bool get_array(BinaryReader& in, std::vector<T>* v, uint64_t most) {
  uint64_t n = 0;
  uint32_t size = 0;
  return in.get(&n) && in.get(&size) && size == sizeof(T) && n <= most && in.get_items(v, n);
}

}  // namespace

bool save_gas_state(const std::string& path, const GasSimulation& gas, const std::string& scene_source,
                    std::string* error) {
  Writer w;
  w.bytes.append(kMagic, sizeof(kMagic));
  w.put(kVersion);
  w.put_array(std::vector<char>(scene_source.begin(), scene_source.end()));
  const GasSetup& s = gas.setup();
  w.put(s.grid);
  w.put(s.walls);
  w.put_array(s.obstacles);
  w.put_array(s.sources);
  GasParams p = const_cast<GasSimulation&>(gas).params();
  w.put(p);
  const GasStats st = gas.stats();
  w.put(st.simulated_time);
  w.put(st.steps);
  std::vector<float> field;
  for (int axis = 0; axis < 3; ++axis) {
    gas.read_velocity(axis, &field);
    w.put_array(field);
  }
  for (int ch = 0; ch < kGasChannels; ++ch) {
    gas.read_channel(ch, &field);
    w.put_array(field);
  }
  std::string why;
  if (!write_file_atomic(path, w.bytes, &why)) {
    *error = "cannot save the gas state to " + path + ": " + why;
    return false;
  }
  return true;
}

bool load_gas_state(const std::string& path, GasSimulation& gas, std::string* scene_source, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open " + path + " (no such file, or not readable)";
    return false;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto bad = [&](const std::string& what) {
    *error = path + " is not a gas state Tidepool can load: " + what;
    return false;
  };
  BinaryReader r(bytes);
  if (!r.expect(std::string_view(kMagic, sizeof(kMagic))))
    return bad("it does not start as one (a water state, or another file?)");
  uint32_t version = 0;
  if (!r.get(&version) || version != kVersion) return bad("version " + std::to_string(version) + ", not 1");
  std::vector<char> source;
  GasSetup s;
  GasParams p{};
  double time = 0.0;
  uint64_t steps = 0;
  if (!get_array(r, &source, 1 << 16) || !r.get(&s.grid) || !r.get(&s.walls) || !get_array(r, &s.obstacles, 1024) ||
      !get_array(r, &s.sources, 1024) || !r.get(&p) || !r.get(&time) || !r.get(&steps))
    return bad("it ends early or its header is damaged");
  const GasGrid& g = s.grid;
  if (g.n.x < 1 || g.n.y < 1 || g.n.z < 1 || double(g.n.x) * g.n.y * g.n.z > 256.0 * 256.0 * 256.0 ||
      !(g.dx > 0.0f) || !std::isfinite(time))
    return bad("its grid is not a valid one");
  std::vector<float> velocity[3], channel[kGasChannels];
  for (int axis = 0; axis < 3; ++axis)
    if (!get_array(r, &velocity[axis], g.faces(axis)) || velocity[axis].size() != g.faces(axis))
      return bad("it ends early (in its velocity)");
  for (int ch = 0; ch < kGasChannels; ++ch)
    if (!get_array(r, &channel[ch], g.cells()) || channel[ch].size() != g.cells())
      return bad("it ends early (in its fields)");
  if (!r.done()) return bad("it has bytes after its fields");
  try {
    gas.reset(s);
  } catch (const std::exception& e) {
    *error = "cannot load " + path + ": " + e.what();
    return false;
  }
  gas.params() = p;  // brought into range by the next step, as any edit is
  for (int axis = 0; axis < 3; ++axis) gas.write_velocity(axis, velocity[axis]);
  for (int ch = 0; ch < kGasChannels; ++ch) gas.write_channel(ch, channel[ch]);
  gas.set_clock(time, steps);
  scene_source->assign(source.begin(), source.end());
  return true;
}

}  // namespace tp
