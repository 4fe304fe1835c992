// The one checked reader of binary files (water and gas state files): the bytes read from
// the front, every read checked against what is left. A count or a length read from a
// damaged file can never make it read past the end, nor allocate more than the file could
// hold: an array's count is compared with the bytes left before anything is allocated.
// A read that cannot be done returns false and moves on by nothing; the file's own code
// says what that means ("ends inside its particle positions (the file is cut short)").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tp {

class BinaryReader {
 public:
  explicit BinaryReader(std::string_view bytes) : bytes_(bytes) {}

  size_t left() const { return bytes_.size() - at_; }  ///< bytes not read yet
  bool done() const { return at_ == bytes_.size(); }

  // The bytes of `magic` (a file's first line, say): true and past them when they are next.
  bool expect(std::string_view magic) {
    if (bytes_.substr(at_, magic.size()) != magic) return false;
    at_ += magic.size();
    return true;
  }

  // The next `size` bytes as they are.
  bool take(uint64_t size, std::string_view* out) {
    if (size > left()) return false;
    *out = bytes_.substr(at_, size_t(size));
    at_ += size_t(size);
    return true;
  }

  // One value in this machine's byte order.
  template <class T>
  bool get(T* v) {
    static_assert(std::is_trivially_copyable_v<T>, "read as raw bytes");
    if (left() < sizeof(T)) return false;
    std::memcpy(v, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }

  // A 64-bit number stored little-endian, whatever this machine's order.
  bool get_u64_le(uint64_t* v) {
    if (left() < 8) return false;
    uint64_t out = 0;
    for (int k = 0; k < 8; ++k) out |= uint64_t(uint8_t(bytes_[at_ + size_t(k)])) << (8 * k);
    at_ += 8;
    *v = out;
    return true;
  }

  // `count` values into `items` (resized to them), in this machine's byte order. False,
  // with `items` untouched, when fewer are left.
  template <class T>
  bool get_items(std::vector<T>* items, uint64_t count) {
    static_assert(std::is_trivially_copyable_v<T>, "read as raw bytes");
    if (count > left() / sizeof(T)) return false;
    const size_t size = size_t(count) * sizeof(T);
    items->resize(size_t(count));
    // An empty array may have no data() to copy into (null): memcpy must not see it.
    if (size > 0) std::memcpy(items->data(), bytes_.data() + at_, size);
    at_ += size;
    return true;
  }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

}  // namespace tp
