#include "sim/session/session_file.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/io/binary_reader.h"

namespace tp {

namespace {

constexpr char kMagic[] = "TIDEPOOL SESSION ";

// CRC-32 (the IEEE polynomial, reflected), over several pieces.
uint32_t crc32_update(uint32_t crc, const void* data, size_t size) {
  static uint32_t table[256];
  static const bool made = [] {
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[n] = c;
    }
    return true;
  }();
  (void)made;
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

uint32_t record_crc(uint32_t kind, uint64_t length, const std::string& payload) {
  uint32_t crc = crc32_update(0, &kind, sizeof kind);
  crc = crc32_update(crc, &length, sizeof length);
  return crc32_update(crc, payload.data(), payload.size());
}

uint64_t fnv(uint64_t h, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

bool little_endian() {
  const uint16_t one = 1;
  uint8_t first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

}  // namespace

uint64_t session_hash(const Snapshot& s, double simulated_time) {
  uint64_t h = 14695981039346656037ull;
  h = fnv(h, s.id.data(), s.id.size() * sizeof(uint));
  h = fnv(h, s.position.data(), s.position.size() * sizeof(Vec4));
  h = fnv(h, s.velocity.data(), s.velocity.size() * sizeof(Vec4));
  return fnv(h, &simulated_time, sizeof simulated_time);
}

uint64_t session_hash(Simulation& sim) { return session_hash(sim.snapshot(), sim.simulated_time()); }

SessionCheck session_check(Simulation& sim, const Snapshot& s) {
  SessionCheck c;
  std::memset(static_cast<void*>(&c), 0, sizeof c);  // (its padding too: the bytes go to the file)
  const double mass = sim.mass();
  for (const Vec4& v : s.velocity) c.kinetic_energy += 0.5 * mass * double(v.x * v.x + v.y * v.y + v.z * v.z);
  // The latest state's, not the run's mean (which a few hundred steps barely move).
  c.density_error_mean = sim.stats().last_density_error;
  const std::vector<BodySpec> bodies = sim.bodies();
  c.bodies = int32_t(std::min<size_t>(bodies.size(), kCheckBodies));
  for (int32_t i = 0; i < c.bodies; ++i) c.body_position[i] = bodies[size_t(i)].pose.position;
  return c;
}

bool within_device_tolerance(const SessionCheck& recorded, const SessionCheck& replayed, double fluid_mass,
                             float spacing, std::string* why) {
  char text[200];
  const double floor = 0.5 * fluid_mass * 0.01 * 0.01;  // the whole fluid at 1 cm/s
  if (std::fabs(replayed.kinetic_energy - recorded.kinetic_energy) > 0.25 * recorded.kinetic_energy + floor) {
    std::snprintf(text, sizeof text, "kinetic energy %.4g J against the recorded %.4g", replayed.kinetic_energy,
                  recorded.kinetic_energy);
    *why = text;
    return false;
  }
  if (std::fabs(replayed.density_error_mean - recorded.density_error_mean) > 0.01) {
    std::snprintf(text, sizeof text, "mean density error %.2f %% against the recorded %.2f %%",
                  replayed.density_error_mean * 100.0, recorded.density_error_mean * 100.0);
    *why = text;
    return false;
  }
  if (replayed.bodies != recorded.bodies) {
    *why = std::to_string(replayed.bodies) + " bodies against the recorded " + std::to_string(recorded.bodies);
    return false;
  }
  for (int32_t i = 0; i < recorded.bodies && i < kCheckBodies; ++i) {
    const Vec3 a = recorded.body_position[i], b = replayed.body_position[i];
    const float gap = std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
    if (gap > spacing) {
      std::snprintf(text, sizeof text, "body %d %.1f mm from where it was recorded (a spacing: %.1f mm)", i,
                    gap * 1000.0f, 1000.0f * spacing);
      *why = text;
      return false;
    }
  }
  return true;
}

std::string session_pod(const void* data, size_t size) { return std::string(static_cast<const char*>(data), size); }

std::string session_start_payload(int threads, bool lanes, const std::string& scene, const std::string& state_bytes) {
  std::string out;
  const int32_t t = (threads & ~kStartScalarBit) | (lanes ? 0 : kStartScalarBit);
  const uint8_t little = little_endian() ? 1 : 0;
  const uint64_t scene_size = scene.size();
  out += session_pod(t);
  out += session_pod(little);
  out += session_pod(scene_size);
  out += scene;
  out += state_bytes;
  return out;
}

bool session_read_start(const std::string& payload, int* threads, bool* lanes, std::string* scene,
                        std::string* state_bytes) {
  BinaryReader in(payload);
  int32_t t = 0;
  uint8_t little = 0;
  uint64_t scene_size = 0;
  std::string_view name, rest;
  if (!in.get(&t) || !in.get(&little) || !in.get(&scene_size) || !in.take(scene_size, &name)) return false;
  if (little != (little_endian() ? 1 : 0)) return false;
  in.take(in.left(), &rest);
  *threads = t & ~kStartScalarBit;
  if (lanes) *lanes = (t & kStartScalarBit) == 0;
  *scene = std::string(name);
  *state_bytes = std::string(rest);
  return true;
}

SessionWriter::~SessionWriter() { close(); }

bool SessionWriter::open(const std::string& path, std::string* error) {
  close();
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) {
    *error = "cannot write the session " + path + ": " + std::strerror(errno);
    return false;
  }
  path_ = path;
  failed_ = false;
  error_.clear();
  bytes_ = 0;
  const std::string header = std::string(kMagic) + std::to_string(kSessionVersion) + "\n";
  if (std::fwrite(header.data(), 1, header.size(), file_) != header.size() || std::fflush(file_) != 0) {
    *error = "cannot write the session " + path + ": " + std::strerror(errno);
    std::fclose(file_);
    file_ = nullptr;
    return false;
  }
  bytes_ = header.size();
  return true;
}

bool SessionWriter::write(SessionKind kind, const std::string& payload) {
  if (!file_ || failed_) return false;
  const uint32_t k = uint32_t(kind);
  const uint64_t length = payload.size();
  const uint32_t crc = record_crc(k, length, payload);
  bool ok = std::fwrite(&k, sizeof k, 1, file_) == 1 && std::fwrite(&length, sizeof length, 1, file_) == 1 &&
            (payload.empty() || std::fwrite(payload.data(), 1, payload.size(), file_) == payload.size()) &&
            std::fwrite(&crc, sizeof crc, 1, file_) == 1 && std::fflush(file_) == 0;
  if (!ok) {
    failed_ = true;
    error_ = "the session " + path_ + " could not be written on: " + std::strerror(errno);
    return false;
  }
  bytes_ += sizeof k + sizeof length + payload.size() + sizeof crc;
  return true;
}

void SessionWriter::close(double end_time) {
  if (!file_) return;
  write(SessionKind::End, end_time >= 0.0 ? session_pod(end_time) : std::string());
  std::fclose(file_);
  file_ = nullptr;
}

SessionContents read_session(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open the session " + path + ": " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  BinaryReader reader(bytes);
  if (!reader.expect(kMagic))
    throw std::runtime_error(path + " is not a Tidepool session file (it does not begin with \"TIDEPOOL SESSION\")");
  std::string version;
  std::string_view c;
  while (reader.take(1, &c) && c[0] != '\n') {
    version += c[0];
    if (version.size() > 8) break;
  }
  if (version != "1" && version != "2" && version != std::to_string(kSessionVersion))
    throw std::runtime_error(path + " is a session file of version '" + version + "', which this Tidepool (version " +
                             std::to_string(kSessionVersion) + ") cannot read");
  SessionContents out;
  while (!reader.done()) {
    const uint64_t offset = bytes.size() - reader.left();
    uint32_t kind = 0, crc = 0;
    uint64_t length = 0;
    std::string_view payload;
    if (!reader.get(&kind) || !reader.get(&length) || !reader.take(length, &payload) || !reader.get(&crc)) {
      out.cut = "the file ends inside a record at byte " + std::to_string(offset) + " (cut short)";
      break;
    }
    std::string data(payload);
    if (crc != record_crc(kind, length, data) || kind < uint32_t(SessionKind::Start) ||
        kind > uint32_t(SessionKind::Check)) {
      out.cut = "the record at byte " + std::to_string(offset) + " is damaged (its checksum does not match)";
      break;
    }
    if (SessionKind(kind) == SessionKind::End) {
      out.ended = true;
      double t = -1.0;
      if (session_unpod(data, &t) && std::isfinite(t) && t >= 0.0) out.end_time = t;
      break;
    }
    out.records.push_back(SessionRecord{SessionKind(kind), std::move(data), offset});
  }
  if (out.records.empty() || out.records.front().kind != SessionKind::Start)
    throw std::runtime_error(path + " has no complete start state" + (out.cut.empty() ? "" : ": " + out.cut));
  return out;
}

}  // namespace tp
