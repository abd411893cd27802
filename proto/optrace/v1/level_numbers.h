// How the API's Level enum (optrace.proto) numbers the levels: the ABI's
// level values (optrace/abi.h LevelValue, 0 = off) plus one, so that 0
// stays LEVEL_UNSPECIFIED ("not given"), proto3's default. The one
// statement of that offset for the daemon and its clients.
#ifndef OPTRACE_V1_LEVEL_NUMBERS_H_
#define OPTRACE_V1_LEVEL_NUMBERS_H_

#include "optrace/v1/optrace.pb.h"

namespace optrace::v1 {

// v1::Level value = ABI level value + kLevelOffset.
inline constexpr int kLevelOffset = 1;
static_assert(LEVEL_UNSPECIFIED == 0 && LEVEL_OFF == kLevelOffset,
              "LEVEL_OFF is the ABI's off (0) plus the offset");

}  // namespace optrace::v1

#endif  // OPTRACE_V1_LEVEL_NUMBERS_H_
