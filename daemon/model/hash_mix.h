// Scrambling a word of packed key fields into a hash.
#ifndef OPTRACE_DAEMON_MODEL_HASH_MIX_H_
#define OPTRACE_DAEMON_MODEL_HASH_MIX_H_

#include <cstdint>

namespace optrace::daemon {

// splitmix64's finaliser: every bit of `h` moves about half the bits of
// the result, so that keys packed from a few small fields spread over a
// hash table's buckets. Thread rules: pure.
inline uint64_t MixBits(uint64_t h) {
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_HASH_MIX_H_
