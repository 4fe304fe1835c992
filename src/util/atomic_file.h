// Writing a whole file so that no reader ever sees half of it: the bytes go to a temporary
// name next to the target (the target's name + ".part"), which is renamed over the target
// only once complete. A write that fails (a full disk, a directory that cannot be written)
// removes the temporary file and leaves the target as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tp {

// Returns false and a sentence in *error (naming the path and the reason) on failure; the
// temporary file is removed then.
bool write_file_atomic(const std::string& path, const void* data, size_t size, std::string* error);
inline bool write_file_atomic(const std::string& path, const std::string& text,
                              std::string* error) {
  return write_file_atomic(path, text.data(), text.size(), error);
}

// Whether write_file_atomic(path, ...) could create its temporary file, checked without
// touching `path` itself (for failing early, before a long computation).
bool check_writable(const std::string& path, std::string* error);

// Test seam, a full disk: once `bytes` more bytes have been written by write_file_atomic in
// this process, its writes fail as on a full disk (ENOSPC), partway through a file; a
// negative value turns it off. The environment variable TIDEPOOL_TEST_DISK_FULL_AFTER=N
// sets it at the first write, so that tests of the whole program can fill the disk too.
void simulate_full_disk_after(int64_t bytes);

}  // namespace tp
