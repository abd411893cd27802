// Field numbers and enum values of Perfetto's trace format
// (protos/perfetto/trace/ in the Perfetto repository) that the Perfetto
// export writes. proto/perfetto_minimal/perfetto_trace.proto declares the
// same subset as a schema; the export's tests parse traces back with it.
#ifndef OPTRACE_DAEMON_EXPORT_PERFETTO_FIELDS_H_
#define OPTRACE_DAEMON_EXPORT_PERFETTO_FIELDS_H_

#include <cstdint>

namespace optrace::daemon::perfetto_fields {

// Trace
inline constexpr uint32_t kTracePacket = 1;

// TracePacket
inline constexpr uint32_t kPacketClockSnapshot = 6;
inline constexpr uint32_t kPacketTimestamp = 8;
inline constexpr uint32_t kPacketSequenceId = 10;  // trusted_packet_sequence_id
inline constexpr uint32_t kPacketTrackEvent = 11;
inline constexpr uint32_t kPacketInternedData = 12;
inline constexpr uint32_t kPacketSequenceFlags = 13;
inline constexpr uint32_t kPacketTimestampClockId = 58;
inline constexpr uint32_t kPacketDefaults = 59;  // trace_packet_defaults
inline constexpr uint32_t kPacketTrackDescriptor = 60;
// TracePacket.SequenceFlags
inline constexpr uint32_t kSeqIncrementalStateCleared = 1;
inline constexpr uint32_t kSeqNeedsIncrementalState = 2;

// TracePacketDefaults and TrackEventDefaults
inline constexpr uint32_t kDefaultsTimestampClockId = 58;
inline constexpr uint32_t kDefaultsTrackEvent = 11;
inline constexpr uint32_t kTrackEventDefaultsTrackUuid = 11;

// ClockSnapshot and ClockSnapshot.Clock
inline constexpr uint32_t kSnapshotClocks = 1;
inline constexpr uint32_t kSnapshotPrimaryTraceClock = 2;
inline constexpr uint32_t kClockId = 1;
inline constexpr uint32_t kClockTimestamp = 2;
inline constexpr uint32_t kClockIsIncremental = 3;
// BuiltinClock
inline constexpr uint32_t kClockRealtime = 1;
// The first clock id a writer may define for its own sequence.
inline constexpr uint32_t kFirstSequenceClockId = 64;

// TrackDescriptor
inline constexpr uint32_t kTrackUuid = 1;
inline constexpr uint32_t kTrackName = 2;
inline constexpr uint32_t kTrackProcess = 3;
inline constexpr uint32_t kTrackThread = 4;
inline constexpr uint32_t kTrackParentUuid = 5;
inline constexpr uint32_t kTrackCounter = 8;
// ProcessDescriptor
inline constexpr uint32_t kProcessPid = 1;
inline constexpr uint32_t kProcessName = 6;
// ThreadDescriptor
inline constexpr uint32_t kThreadPid = 1;
inline constexpr uint32_t kThreadTid = 2;
inline constexpr uint32_t kThreadName = 5;

// TrackEvent
inline constexpr uint32_t kEventCategoryIids = 3;
inline constexpr uint32_t kEventDebugAnnotations = 4;
inline constexpr uint32_t kEventType = 9;
inline constexpr uint32_t kEventNameIid = 10;
inline constexpr uint32_t kEventTrackUuid = 11;
inline constexpr uint32_t kEventCounterValue = 30;
inline constexpr uint32_t kEventFlowIds = 47;             // fixed64
inline constexpr uint32_t kEventTerminatingFlowIds = 48;  // fixed64
// TrackEvent.Type
inline constexpr uint32_t kTypeSliceBegin = 1;
inline constexpr uint32_t kTypeSliceEnd = 2;
inline constexpr uint32_t kTypeInstant = 3;
inline constexpr uint32_t kTypeCounter = 4;

// DebugAnnotation
inline constexpr uint32_t kAnnotationNameIid = 1;
inline constexpr uint32_t kAnnotationUintValue = 3;
inline constexpr uint32_t kAnnotationStringValueIid = 17;

// InternedData and its entries (EventCategory, EventName,
// DebugAnnotationName, InternedString: iid = 1, name/str = 2)
inline constexpr uint32_t kInternedCategories = 1;
inline constexpr uint32_t kInternedEventNames = 2;
inline constexpr uint32_t kInternedAnnotationNames = 3;
inline constexpr uint32_t kInternedAnnotationStrings = 29;
inline constexpr uint32_t kInternedIid = 1;
inline constexpr uint32_t kInternedText = 2;

}  // namespace optrace::daemon::perfetto_fields

#endif  // OPTRACE_DAEMON_EXPORT_PERFETTO_FIELDS_H_
