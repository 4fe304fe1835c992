// Failure injection for the simulation's buffer allocations (tests only): the CPU
// backend's HostBuffer and the emulated device's cudaMalloc ask should_fail() before each
// allocation, so that one test can make "out of memory" happen at a chosen point on
// either backend. Never armed in the app: should_fail() is then one relaxed atomic load.
#pragma once

namespace tp::alloc_faults {

// The allocation after `successes` more successful ones fails, once (the ones after it
// succeed: the memory a failed reset gives back is there again); negative disarms.
void fail_after(long successes);
void disarm();
// Called by an allocator: true when this allocation must fail.
bool should_fail();

}  // namespace tp::alloc_faults
