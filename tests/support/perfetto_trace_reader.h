// Reads a Perfetto trace written by the Perfetto export back, with the
// schema in proto/perfetto_minimal, the way a trace reader must: interned
// data and tracks resolved in order on their packet sequence, slices
// paired per track, clocks applied (incremental ones as deltas from the
// last time on them), the defaults' clock and track used where a packet
// or event leaves them out.
#ifndef OPTRACE_TESTS_SUPPORT_PERFETTO_TRACE_READER_H_
#define OPTRACE_TESTS_SUPPORT_PERFETTO_TRACE_READER_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace optrace::testing {

// A track as its TrackDescriptor describes it.
struct PerfettoTrack {
  uint64_t uuid = 0;
  uint64_t parent_uuid = 0;
  std::string name;  // TrackDescriptor.name, else the thread's or process's name
  bool process = false;
  bool thread = false;
  bool counter = false;
  int32_t pid = 0;
  int32_t tid = 0;
};

// A slice (SLICE_BEGIN paired with its SLICE_END) or an instant.
struct PerfettoSlice {
  uint64_t track = 0;
  std::string name;      // resolved
  std::string category;  // resolved; "" when none
  int64_t start_ns = 0;  // Unix ns
  int64_t end_ns = 0;    // == start_ns for instants
  bool instant = false;
  std::map<std::string, std::string> args;  // debug annotations, numbers in decimal
  std::vector<uint64_t> flow_ids;
  std::vector<uint64_t> terminating_flow_ids;
};

struct PerfettoCounterValue {
  uint64_t track = 0;
  int64_t ts_ns = 0;
  int64_t value = 0;
};

// Everything read, and what was wrong with it (empty when it is valid).
struct PerfettoTrace {
  std::map<uint64_t, PerfettoTrack> tracks;
  std::vector<PerfettoSlice> slices;  // in the order they begin in the file
  std::vector<PerfettoCounterValue> counters;
  size_t packets = 0;
  // Event packets timed before the event packet written before them.
  size_t events_out_of_time_order = 0;
  std::vector<std::string> errors;
};

// Parses `bytes` as a Trace. Never throws: problems (not a Trace, an
// unknown iid or track, a packet without the sequence flags its contents
// need, an END without a BEGIN, a slice left open) go to `errors`.
PerfettoTrace ReadPerfettoTrace(const std::string& bytes);

// The start and end of each slice of `trace` (instants left out), by its
// op_id annotation.
std::map<std::string, std::pair<int64_t, int64_t>> OpSliceTimes(const PerfettoTrace& trace);

// The op ids of `ops` (OpSliceTimes) whose slice overlaps [from, to):
// Export's rule for a range (a slice of no length counts by its start).
std::set<std::string> OpsOverlapping(const std::map<std::string, std::pair<int64_t, int64_t>>& ops,
                                     int64_t from, int64_t to);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_PERFETTO_TRACE_READER_H_
