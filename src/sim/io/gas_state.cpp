#include "sim/io/gas_state.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <type_traits>
#include <vector>

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

class Reader {
 public:
  explicit Reader(const std::string& b) : bytes_(b) {}
  template <class T>
  bool get(T* v) {
    if (bytes_.size() - at_ < sizeof(T)) return false;
    std::memcpy(v, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  template <class T>
  bool get_array(std::vector<T>* v, uint64_t most) {
    uint64_t n = 0;
    uint32_t size = 0;
    if (!get(&n) || !get(&size) || size != sizeof(T) || n > most || (bytes_.size() - at_) / sizeof(T) < n)
      return false;
    v->resize(size_t(n));
    std::memcpy(v->data(), bytes_.data() + at_, size_t(n) * sizeof(T));
    at_ += size_t(n) * sizeof(T);
    return true;
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  const std::string& bytes_;
  size_t at_ = 0;
};

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
  if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return bad("it does not start as one (a water state, or another file?)");
  const std::string body = bytes.substr(sizeof(kMagic));
  Reader r(body);
  uint32_t version = 0;
  if (!r.get(&version) || version != kVersion) return bad("version " + std::to_string(version) + ", not 1");
  std::vector<char> source;
  GasSetup s;
  GasParams p{};
  double time = 0.0;
  uint64_t steps = 0;
  if (!r.get_array(&source, 1 << 16) || !r.get(&s.grid) || !r.get(&s.walls) || !r.get_array(&s.obstacles, 1024) ||
      !r.get_array(&s.sources, 1024) || !r.get(&p) || !r.get(&time) || !r.get(&steps))
    return bad("it ends early or its header is damaged");
  const GasGrid& g = s.grid;
  if (g.n.x < 1 || g.n.y < 1 || g.n.z < 1 || double(g.n.x) * g.n.y * g.n.z > 256.0 * 256.0 * 256.0 ||
      !(g.dx > 0.0f) || !std::isfinite(time))
    return bad("its grid is not a valid one");
  std::vector<float> velocity[3], channel[kGasChannels];
  for (int axis = 0; axis < 3; ++axis)
    if (!r.get_array(&velocity[axis], g.faces(axis)) || velocity[axis].size() != g.faces(axis))
      return bad("it ends early (in its velocity)");
  for (int ch = 0; ch < kGasChannels; ++ch)
    if (!r.get_array(&channel[ch], g.cells()) || channel[ch].size() != g.cells()) return bad("it ends early (in its fields)");
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
