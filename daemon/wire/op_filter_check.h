// CheckOpFilter: a v1::OpFilter validated once, for every reader of spans
// (SpanFilter over the local database, the fleet's SQL over ClickHouse),
// so that both accept and refuse exactly the same requests.
#ifndef OPTRACE_DAEMON_WIRE_OP_FILTER_CHECK_H_
#define OPTRACE_DAEMON_WIRE_OP_FILTER_CHECK_H_

#include <re2/re2.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "common/status.h"
#include "model/span.h"
#include "optrace/abi.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// The conditions of a valid OpFilter; an unset one is absent (nullopt,
// null) or at its neutral value.
struct CheckedOpFilter {
  std::unique_ptr<RE2> name;  // compiled name_pattern; null = any name
  std::unique_ptr<RE2> tag;
  std::optional<abi::TargetKind> target;
  std::optional<uint16_t> device;
  std::optional<SpanStatus> status;
  uint64_t min_duration_ns = 0;
  // The time range, inclusive; no bound is the type's minimum / maximum.
  int64_t min_start_ns = 0;
  int64_t max_start_ns = 0;
};

// The longest name or tag pattern a request may carry.
inline constexpr size_t kMaxPatternBytes = 1024;

// Validates `filter`; `field` names it in messages ("filter"). Errors
// (kInvalidArgument) name the field and the problem: a pattern longer than
// kMaxPatternBytes, one RE2 does not compile (with RE2's
// message), an unknown target or status, a device above 65535, or a
// start_min after start_max. Thread rules: pure.
Result<CheckedOpFilter> CheckOpFilter(const v1::OpFilter& filter, std::string_view field);

// Compiles `pattern_untrusted` of request field `field` (e.g.
// "filter.name_pattern") with RE2, refusing more than kMaxPatternBytes;
// errors (kInvalidArgument) name the field and RE2's message. Also for the
// service's own patterns (Tail), so that every pattern obeys one rule.
Result<std::unique_ptr<RE2>> CompilePattern(std::string_view pattern_untrusted,
                                            std::string_view field);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_WIRE_OP_FILTER_CHECK_H_
