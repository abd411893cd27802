#include "perfetto_trace_reader.h"

#include <optional>

#include "perfetto_minimal/perfetto_trace.pb.h"

namespace optrace::testing {
namespace {

namespace pm = optrace::perfetto_minimal;

constexpr uint32_t kRealtime = 1;

// One packet sequence's incremental state.
struct SequenceState {
  std::map<uint64_t, std::string> names;
  std::map<uint64_t, std::string> categories;
  std::map<uint64_t, std::string> annotation_names;
  std::map<uint64_t, std::string> strings;
  std::map<uint32_t, int64_t> clock_offsets;  // clock id -> Unix ns at its 0
  // Incremental clocks: clock id -> the last time on it (packets give deltas).
  std::map<uint32_t, int64_t> incremental_clocks;
  uint32_t default_clock = 0;
  uint64_t default_track = 0;
  bool cleared = false;
};

template <typename Entries>
void AddEntries(const Entries& entries, std::map<uint64_t, std::string>* index, const char* what,
                std::vector<std::string>* errors) {
  for (const auto& entry : entries) {
    std::string text;
    if constexpr (requires { entry.str(); }) {
      text = entry.str();
    } else {
      text = entry.name();
    }
    const auto [at, added] = index->emplace(entry.iid(), text);
    if (!added && at->second != text) {
      errors->push_back(std::string(what) + " iid " + std::to_string(entry.iid()) +
                        " interned twice with different texts");
    }
  }
}

std::string Lookup(const std::map<uint64_t, std::string>& index, uint64_t iid, const char* what,
                   std::vector<std::string>* errors) {
  const auto at = index.find(iid);
  if (at != index.end()) return at->second;
  errors->push_back(std::string(what) + " iid " + std::to_string(iid) + " was never interned");
  return "";
}

}  // namespace

PerfettoTrace ReadPerfettoTrace(const std::string& bytes) {
  PerfettoTrace out;
  pm::Trace trace;
  if (!trace.ParseFromString(bytes)) {
    out.errors.push_back("not a Trace message");
    return out;
  }
  out.packets = static_cast<size_t>(trace.packet_size());
  std::map<uint32_t, SequenceState> sequences;
  std::map<uint64_t, std::vector<size_t>> open;  // track -> indexes of open slices
  std::optional<int64_t> last_event_ts;
  for (int i = 0; i < trace.packet_size(); ++i) {
    const pm::TracePacket& packet = trace.packet(i);
    const std::string where = "packet " + std::to_string(i) + ": ";
    std::vector<std::string>* errors = &out.errors;
    if (!packet.has_trusted_packet_sequence_id()) {
      errors->push_back(where + "no trusted_packet_sequence_id");
    }
    SequenceState& seq = sequences[packet.trusted_packet_sequence_id()];
    if ((packet.sequence_flags() & pm::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED) != 0) {
      seq = SequenceState{};
      seq.cleared = true;
    }
    const bool needs =
        (packet.sequence_flags() & pm::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE) != 0;
    if (needs && !seq.cleared) errors->push_back(where + "needs incremental state never cleared");
    if (packet.has_trace_packet_defaults()) {
      seq.default_clock = packet.trace_packet_defaults().timestamp_clock_id();
      seq.default_track = packet.trace_packet_defaults().track_event_defaults().track_uuid();
    }
    if (packet.has_interned_data()) {
      const pm::InternedData& data = packet.interned_data();
      AddEntries(data.event_names(), &seq.names, "event name", errors);
      AddEntries(data.event_categories(), &seq.categories, "category", errors);
      AddEntries(data.debug_annotation_names(), &seq.annotation_names, "annotation name", errors);
      AddEntries(data.debug_annotation_string_values(), &seq.strings, "annotation string", errors);
    }
    if (packet.has_clock_snapshot()) {
      std::optional<int64_t> realtime;
      for (const auto& clock : packet.clock_snapshot().clocks()) {
        if (clock.clock_id() == kRealtime) realtime = static_cast<int64_t>(clock.timestamp());
      }
      if (!realtime) errors->push_back(where + "clock snapshot without REALTIME");
      for (const auto& clock : packet.clock_snapshot().clocks()) {
        seq.clock_offsets[clock.clock_id()] =
            realtime.value_or(0) - static_cast<int64_t>(clock.timestamp());
        if (clock.is_incremental() && clock.clock_id() < 64) {
          errors->push_back(where + "builtin clock " + std::to_string(clock.clock_id()) +
                            " marked incremental");
        }
        if (clock.is_incremental()) {
          seq.incremental_clocks[clock.clock_id()] = static_cast<int64_t>(clock.timestamp());
        }
      }
      if (packet.clock_snapshot().primary_trace_clock() != pm::BUILTIN_CLOCK_REALTIME) {
        errors->push_back(where + "primary trace clock is not REALTIME");
      }
    }
    if (packet.has_track_descriptor()) {
      const pm::TrackDescriptor& d = packet.track_descriptor();
      PerfettoTrack track;
      track.uuid = d.uuid();
      track.parent_uuid = d.parent_uuid();
      track.name = d.name();
      track.process = d.has_process();
      track.thread = d.has_thread();
      track.counter = d.has_counter();
      if (d.has_process()) {
        track.pid = d.process().pid();
        if (track.name.empty()) track.name = d.process().process_name();
      }
      if (d.has_thread()) {
        track.pid = d.thread().pid();
        track.tid = d.thread().tid();
        if (track.name.empty()) track.name = d.thread().thread_name();
      }
      if (track.parent_uuid != 0 && out.tracks.count(track.parent_uuid) == 0) {
        errors->push_back(where + "track " + std::to_string(track.uuid) + " has unknown parent");
      }
      if (!out.tracks.emplace(track.uuid, track).second) {
        errors->push_back(where + "track " + std::to_string(track.uuid) + " described twice");
      }
    }
    if (!packet.has_track_event()) continue;

    const pm::TrackEvent& event = packet.track_event();
    const uint32_t clock =
        packet.has_timestamp_clock_id() ? packet.timestamp_clock_id() : seq.default_clock;
    if (clock != kRealtime && !needs) {
      errors->push_back(where + "timed on a sequence clock without SEQ_NEEDS_INCREMENTAL_STATE");
    }
    const auto offset = seq.clock_offsets.find(clock);
    if (offset == seq.clock_offsets.end()) {
      errors->push_back(where + "clock " + std::to_string(clock) + " is not defined");
    }
    int64_t on_clock = static_cast<int64_t>(packet.timestamp());
    if (const auto incremental = seq.incremental_clocks.find(clock);
        incremental != seq.incremental_clocks.end()) {
      on_clock = incremental->second += on_clock;  // a delta from the last time on it
    }
    const int64_t ts = on_clock + (offset == seq.clock_offsets.end() ? 0 : offset->second);
    if (last_event_ts && ts < *last_event_ts) ++out.events_out_of_time_order;
    last_event_ts = ts;
    const uint64_t track_uuid = event.has_track_uuid() ? event.track_uuid() : seq.default_track;
    const auto track = out.tracks.find(track_uuid);
    if (track == out.tracks.end()) {
      errors->push_back(where + "event on undescribed track " + std::to_string(track_uuid));
      continue;
    }
    if ((event.type() == pm::TrackEvent::TYPE_COUNTER) != track->second.counter) {
      errors->push_back(where + "counter event and track do not match");
    }
    const bool interned = event.has_name_iid() || event.category_iids_size() > 0 ||
                          event.debug_annotations_size() > 0;
    if (interned && !needs) {
      errors->push_back(where + "refers to interned data without SEQ_NEEDS_INCREMENTAL_STATE");
    }
    switch (event.type()) {
      case pm::TrackEvent::TYPE_SLICE_BEGIN:
      case pm::TrackEvent::TYPE_INSTANT: {
        PerfettoSlice slice;
        slice.track = track_uuid;
        slice.start_ns = slice.end_ns = ts;
        slice.instant = event.type() == pm::TrackEvent::TYPE_INSTANT;
        slice.name = event.has_name_iid()
                         ? Lookup(seq.names, event.name_iid(), "event name", errors)
                         : event.name();
        for (uint64_t iid : event.category_iids()) {
          slice.category += Lookup(seq.categories, iid, "category", errors);
        }
        for (const pm::DebugAnnotation& a : event.debug_annotations()) {
          const std::string name =
              Lookup(seq.annotation_names, a.name_iid(), "annotation name", errors);
          std::string value;
          if (a.has_uint_value()) value = std::to_string(a.uint_value());
          if (a.has_int_value()) value = std::to_string(a.int_value());
          if (a.has_string_value()) value = a.string_value();
          if (a.has_string_value_iid()) {
            value = Lookup(seq.strings, a.string_value_iid(), "annotation string", errors);
          }
          slice.args[name] = value;
        }
        slice.flow_ids.assign(event.flow_ids().begin(), event.flow_ids().end());
        slice.terminating_flow_ids.assign(event.terminating_flow_ids().begin(),
                                          event.terminating_flow_ids().end());
        if (!slice.instant) open[slice.track].push_back(out.slices.size());
        out.slices.push_back(std::move(slice));
        break;
      }
      case pm::TrackEvent::TYPE_SLICE_END: {
        std::vector<size_t>& stack = open[track_uuid];
        if (stack.empty()) {
          errors->push_back(where + "SLICE_END without a BEGIN on its track");
          break;
        }
        PerfettoSlice& slice = out.slices[stack.back()];
        stack.pop_back();
        slice.end_ns = ts;
        if (ts < slice.start_ns) errors->push_back(where + "slice ends before it begins");
        break;
      }
      case pm::TrackEvent::TYPE_COUNTER:
        out.counters.push_back({track_uuid, ts, event.counter_value()});
        break;
      default:
        errors->push_back(where + "event without a type");
    }
  }
  for (const auto& [track, stack] : open) {
    if (!stack.empty())
      out.errors.push_back("track " + std::to_string(track) + ": slice left open");
  }
  return out;
}

std::map<std::string, std::pair<int64_t, int64_t>> OpSliceTimes(const PerfettoTrace& trace) {
  std::map<std::string, std::pair<int64_t, int64_t>> ops;
  for (const PerfettoSlice& slice : trace.slices) {
    const auto op_id = slice.args.find("op_id");
    if (!slice.instant && op_id != slice.args.end()) {
      ops[op_id->second] = {slice.start_ns, slice.end_ns};
    }
  }
  return ops;
}

std::set<std::string> OpsOverlapping(const std::map<std::string, std::pair<int64_t, int64_t>>& ops,
                                     int64_t from, int64_t to) {
  std::set<std::string> overlapping;
  for (const auto& [op, times] : ops) {
    if (times.first < to && (times.first >= from || times.second > from)) overlapping.insert(op);
  }
  return overlapping;
}

}  // namespace optrace::testing
