// Writing a whole file so that no reader ever sees half of it: the bytes go to a temporary
// name next to the target, which is renamed over the target only once complete.
#pragma once

#include <cstddef>
#include <string>

namespace tp {

// Returns false and a sentence in *error (naming the path and the reason) on failure; the
// temporary file is removed then.
bool write_file_atomic(const std::string& path, const void* data, size_t size, std::string* error);
inline bool write_file_atomic(const std::string& path, const std::string& text, std::string* error) {
  return write_file_atomic(path, text.data(), text.size(), error);
}

// Whether write_file_atomic(path, ...) could create its temporary file, checked without
// touching `path` itself (for failing early, before a long computation).
bool check_writable(const std::string& path, std::string* error);

}  // namespace tp
