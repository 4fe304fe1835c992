#include "sim/io/frame_recorder.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sim/io/mesh_io.h"
#include "sim/io/particle_io.h"

namespace tp {

namespace {
const char* prefix_of(RecordKind kind) {
  return kind == RecordKind::Points ? "frame_" : kind == RecordKind::GasVtk ? "gas_" : "mesh_";
}
const char* extension_of(RecordKind kind) {
  return kind == RecordKind::MeshObj ? ".obj" : kind == RecordKind::GasVtk ? ".vtk" : ".ply";
}
}  // namespace

std::string frame_file_name(const std::string& dir, int frame, RecordKind kind) {
  char name[32];
  std::snprintf(name, sizeof(name), "%s%05d%s", prefix_of(kind), frame, extension_of(kind));
  return (dir.empty() || dir.back() == '/' ? dir : dir + "/") + name;
}

std::string bodies_file_name(const std::string& dir, int frame) {
  char name[32];
  std::snprintf(name, sizeof(name), "bodies_%05d.json", frame);
  return (dir.empty() || dir.back() == '/' ? dir : dir + "/") + name;
}

bool make_directories(const std::string& dir, std::string* error) {
  if (dir.empty()) {
    *error = "no directory given";
    return false;
  }
  std::string path;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if ((i == dir.size() || dir[i] == '/') && !path.empty() &&
        mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      *error = "cannot create directory '" + path + "': " + std::strerror(errno);
      return false;
    }
    if (i < dir.size()) path += dir[i];
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = "'" + dir + "' is not a directory";
    return false;
  }
  return true;
}

bool holds_frames(const std::string& dir, RecordKind kind) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool found = false;
  const std::string prefix = prefix_of(kind), extension = extension_of(kind);
  while (dirent* e = readdir(d)) {
    const std::string f = e->d_name;
    if (f.rfind(prefix, 0) == 0 && f.size() > prefix.size() + 4 &&
        f.compare(f.size() - 4, 4, extension) == 0) {
      found = true;
      break;
    }
  }
  closedir(d);
  return found;
}

std::string default_export_dir(std::time_t now) {
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  if (std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local) == 0) stamp[0] = '\0';
  return std::string("tidepool-export-") + stamp;
}

bool FrameRecorder::start(const std::string& dir, double fps, bool fresh_only, std::string* error,
                          RecordKind kind, const MeshSettings& mesh) {
  active_ = false;
  kind_ = kind;
  mesh_ = mesh;
  mesh_.velocity = true;
  if (!(fps > 0.0)) {
    *error = "the frame rate must be above 0 frames per second";
    return false;
  }
  if (!make_directories(dir, error)) return false;
  // A directory that exists but cannot be written is refused now, not at the first frame.
  if (!check_writable(frame_file_name(dir, 0, kind), error)) return false;
  if (fresh_only && holds_frames(dir, kind)) {
    *error = "'" + dir + "' already holds " + std::string(prefix_of(kind)) + "*" + extension_of(kind) +
             " files; choose another directory or empty it";
    return false;
  }
  dir_ = dir;
  fps_ = fps;
  next_time_ = -1e300;  // the first frame is due at once, whatever the simulated time
  frames_ = skipped_ = 0;
  bytes_ = 0;
  first_time_ = last_time_ = 0.0;
  active_ = true;
  return true;
}

bool FrameRecorder::record(Simulation& sim, std::string* error) {
  const double t = sim.simulated_time();
  if (!due(t)) return true;
  const std::string path = frame_file_name(dir_, frames_, kind_);
  bool written = false;
  if (kind_ == RecordKind::Points) {
    written = write_ply(path, sim.snapshot(), error, t);
  } else {
    TriangleMesh mesh;
    try {
      sim.build_mesh(mesh_, &mesh, &mesh_times_);
      mesh_triangles_ = mesh.triangle_count();
      written = kind_ == RecordKind::MeshObj ? write_mesh_obj(path, mesh, error) : write_mesh_ply(path, mesh, error, t);
    } catch (const std::exception& e) {  // settings it cannot use, or memory
      *error = std::string("the mesh could not be built: ") + e.what();
    }
  }
  // The bodies where they are at this frame, in a small file of their own.
  const std::vector<BodySpec> bodies = written ? sim.bodies() : std::vector<BodySpec>{};
  const std::string bodies_path = bodies_file_name(dir_, frames_);
  if (!bodies.empty()) written = write_file_atomic(bodies_path, bodies_frame_json(bodies, t), error);
  if (!written) {
    active_ = false;
    return false;
  }
  struct stat st;
  if (stat(path.c_str(), &st) == 0) bytes_ += uint64_t(st.st_size);
  if (!bodies.empty() && stat(bodies_path.c_str(), &st) == 0) bytes_ += uint64_t(st.st_size);
  if (frames_ == 0) {
    first_time_ = t;
    next_time_ = t;
  }
  last_time_ = t;
  ++frames_;
  // One frame per step at most: when a step is longer than a frame interval, the frame
  // times it spans are not invented.
  next_time_ += 1.0 / fps_;
  while (next_time_ <= t) {
    next_time_ += 1.0 / fps_;
    ++skipped_;
  }
  return true;
}

std::string recording_summary(const FrameRecorder& recorder) {
  char text[96];
  std::snprintf(text, sizeof(text), "%d frame%s, %.1f MB", recorder.frames(),
                recorder.frames() == 1 ? "" : "s", double(recorder.bytes()) / 1e6);
  return text;
}

}  // namespace tp
