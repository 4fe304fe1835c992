#include "util/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tp {

bool write_file_atomic(const std::string& path, const void* data, size_t size, std::string* error) {
  const std::string temp = path + ".part";
  FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) {
    *error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  errno = 0;
  const bool wrote = size == 0 || std::fwrite(data, 1, size, f) == size;
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;  // a full disk may only show here
  if (!wrote || !closed) {
    const int reason = write_errno ? write_errno : errno;
    std::remove(temp.c_str());
    *error = "cannot write '" + path + "': " + (reason ? std::strerror(reason) : "write failed");
    return false;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    *error = "cannot rename '" + temp + "' to '" + path + "': " + std::strerror(errno);
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

bool check_writable(const std::string& path, std::string* error) {
  const std::string temp = path + ".part";
  FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) {
    *error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::fclose(f);
  std::remove(temp.c_str());
  return true;
}

}  // namespace tp
