// Which timeline track a span of a trace export (Chrome JSON, Perfetto)
// belongs to: its thread's, or its device stream's.
#ifndef OPTRACE_DAEMON_EXPORT_EXPORT_TRACKS_H_
#define OPTRACE_DAEMON_EXPORT_EXPORT_TRACKS_H_

#include <cstdint>
#include <string>

#include "common/op_line.h"
#include "model/span.h"
#include "optrace/abi.h"

namespace optrace::daemon {

// True for spans timed by a device (GPU and other targets): they go on
// their device stream's track; CPU spans and spans without a target go on
// their thread's.
inline bool OnDeviceTrack(const Span& span) {
  const auto target = static_cast<abi::TargetKind>(span.target);
  return target == abi::TargetKind::kGpu || target == abi::TargetKind::kOther;
}

// The thread whose track a thread-side span is drawn on: the launch
// thread, or the complete thread when there was no launch.
inline uint32_t HostThread(const Span& span) {
  return span.launch_tid != 0 ? span.launch_tid : span.complete_tid;
}

// One key per target, device and stream.
inline uint64_t DeviceTrackKey(const Span& span) {
  return (uint64_t{span.target} << 48) | (uint64_t{span.device} << 32) | span.stream;
}

// "gpu:0 stream 1".
inline std::string DeviceTrackName(const Span& span) {
  return std::string(TargetKindName(static_cast<abi::TargetKind>(span.target))) + ":" +
         std::to_string(span.device) + " stream " + std::to_string(span.stream);
}

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_EXPORT_TRACKS_H_
