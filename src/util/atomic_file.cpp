#include "util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace tp {

namespace {

// Bytes the simulated disk still takes; negative: no limit.
std::atomic<int64_t> g_disk_room{-1};
std::once_flag g_disk_room_from_environment;

int64_t disk_room() {
  std::call_once(g_disk_room_from_environment, [] {
    const char* env = std::getenv("TIDEPOOL_TEST_DISK_FULL_AFTER");
    if (env && *env) g_disk_room = std::strtoll(env, nullptr, 10);
  });
  return g_disk_room;
}

std::string reason_text(int error) { return error ? std::strerror(error) : "the write failed"; }

// Writes all of `size` bytes, as far as the (simulated) disk takes them; false with errno.
bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    size_t chunk = std::min<size_t>(size, size_t(1) << 20);
    const int64_t room = disk_room();
    if (room == 0) {
      errno = ENOSPC;
      return false;
    }
    if (room > 0) chunk = std::min<size_t>(chunk, size_t(room));
    const ssize_t wrote = ::write(fd, data, chunk);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (room > 0) g_disk_room -= wrote;
    data += wrote;
    size -= size_t(wrote);
  }
  return true;
}

// The rename itself is durable once the directory's entry is on disk. Best effort: some
// file systems refuse to fsync a directory, and the file is complete either way.
void sync_directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void simulate_full_disk_after(int64_t bytes) {
  disk_room();  // the environment is read once, before this replaces it
  g_disk_room = bytes < 0 ? -1 : bytes;
}

bool write_file_atomic(const std::string& path, const void* data, size_t size, std::string* error) {
  const std::string temp = path + ".part";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    *error = "cannot write '" + path + "': " + reason_text(errno);
    return false;
  }
  // fsync before the rename: otherwise a crash or power cut soon after can leave the new
  // name pointing at an empty or partial file (the rename reaches the disk first).
  const bool wrote = write_all(fd, static_cast<const char*>(data), size) && ::fsync(fd) == 0;
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;  // a full disk may only show here (NFS)
  if (!wrote || !closed) {
    const int reason = wrote ? errno : write_errno;
    std::remove(temp.c_str());
    *error = "cannot write '" + path + "': " + reason_text(reason);
    return false;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    *error = "cannot rename '" + temp + "' to '" + path + "': " + reason_text(errno);
    std::remove(temp.c_str());
    return false;
  }
  sync_directory_of(path);
  return true;
}

bool check_writable(const std::string& path, std::string* error) {
  const std::string temp = path + ".part";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    *error = "cannot write '" + path + "': " + reason_text(errno);
    return false;
  }
  ::close(fd);
  std::remove(temp.c_str());
  return true;
}

}  // namespace tp
