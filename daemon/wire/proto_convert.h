// The daemon's model to the public API's messages (and the few enums
// back), in one place so that every RPC renders a span or a session the
// same way.
#ifndef OPTRACE_DAEMON_WIRE_PROTO_CONVERT_H_
#define OPTRACE_DAEMON_WIRE_PROTO_CONVERT_H_

#include <functional>
#include <optional>
#include <string>

#include "model/keep.h"
#include "model/session_record.h"
#include "model/span.h"
#include "optrace/abi.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// Resolves a dictionary id to its text ("" for 0 or unknown).
using StringLookup = std::function<const std::string&(StringId)>;

void ToProto(const Span& span, SessionId session, const StringLookup& strings, v1::Span* out);
// The session's own window too, when it has one; the daemon's window is
// not the record's to know (the service fills it in: ToProto of WindowLimits).
void ToProto(const SessionRecord& record, v1::Session* out);
// A window in force: a session's own (`own`) or the daemon's.
void ToProto(const WindowLimits& limits, bool own, v1::Window* out);
void ToProto(const KeepRecord& keep, v1::Keep* out);
// A stored target byte (abi::TargetKind) as the API's Target
// (v1::TargetFromKind); TARGET_UNSPECIFIED for kNone and for a byte that is
// no kind.
v1::Target TargetToProto(uint8_t target_kind);
v1::SpanStatus StatusToProto(SpanStatus status);
v1::SessionState StateToProto(SessionState state);
v1::Level LevelToProto(abi::LevelValue level);

// LEVEL_UNSPECIFIED and unknown values give nullopt.
std::optional<abi::LevelValue> LevelFromProto(v1::Level level);

// The ABI's kind (v1::KindFromTarget); TARGET_UNSPECIFIED and unknown
// values give nullopt.
std::optional<abi::TargetKind> TargetFromProto(v1::Target target);

// SPAN_STATUS_UNSPECIFIED and unknown values give nullopt.
std::optional<SpanStatus> StatusFromProto(v1::SpanStatus status);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_WIRE_PROTO_CONVERT_H_
