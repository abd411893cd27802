// Text pieces of ClickHouse SQL built from values: the one place where a
// value becomes SQL (ClickHouse 18.16 has no query parameters).
#ifndef OPTRACE_DAEMON_FORWARD_SQL_TEXT_H_
#define OPTRACE_DAEMON_FORWARD_SQL_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace optrace::daemon {

// `text` as a ClickHouse string literal: in single quotes, with backslash,
// quote and NUL escaped, so that any bytes (untrusted ones included) stay
// one literal. Thread rules: pure.
std::string SqlString(std::string_view text);

// `value` as a typed literal, toInt64(-5) or toUInt64(5), so that
// comparisons never depend on ClickHouse's choice of literal types (every
// value of the type round-trips). Thread rules: pure.
std::string SqlInt(int64_t value);
std::string SqlUInt(uint64_t value);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FORWARD_SQL_TEXT_H_
