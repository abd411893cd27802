// The arithmetic of statistics rows, shared by the local and the fleet
// queries so that both compute every figure the same way.
#ifndef OPTRACE_DAEMON_QUERY_DURATION_MATH_H_
#define OPTRACE_DAEMON_QUERY_DURATION_MATH_H_

#include <algorithm>
#include <cstdint>

#include "storage/op_aggregate.h"

namespace optrace::daemon {

// a + b, capped at kMaxAggregateNs like the stored aggregates' totals (so
// that differences of totals fit an int64).
inline uint64_t AddCapped(uint64_t a, uint64_t b) {
  a = std::min(a, kMaxAggregateNs);
  b = std::min(b, kMaxAggregateNs);
  return b > kMaxAggregateNs - a ? kMaxAggregateNs : a + b;
}

// total / count, 0 when count is 0.
inline double Mean(uint64_t total, uint64_t count) {
  return count == 0 ? 0.0 : static_cast<double>(total) / static_cast<double>(count);
}

// b / a, 0 when a is 0.
inline double Ratio(double b, double a) { return a == 0.0 ? 0.0 : b / a; }

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_DURATION_MATH_H_
