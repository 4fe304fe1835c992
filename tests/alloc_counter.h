// Counting every C++ allocation of a test binary (tests/alloc_counter.cpp replaces the
// global operators new and delete): the blocks and bytes alive now, and the most bytes
// alive at once since the last reset_peak_bytes(). For leak checks and for measuring what
// a simulation really allocates. The aligned forms are not counted (their own pairs).
#pragma once

#include <cstddef>

namespace tp::test {

long long live_blocks();
long long live_bytes();
long long peak_bytes();   ///< since the last reset_peak_bytes()
void reset_peak_bytes();  ///< the peak becomes the bytes alive now

}  // namespace tp::test
