// The Perfetto export, parsed back with the schema in proto/perfetto_minimal:
// every span a slice (or an instant) on the right track with its names,
// times and annotations resolved, device work joined to its launch by a
// flow, marks and counters, and the sequence's incremental state rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "api_test_store.h"
#include "export/chrome_trace_writer.h"
#include "export/session_export.h"
#include "optrace/abi.h"
#include "perfetto_trace_reader.h"
#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::ApiTestStore;
using testing::MakeSession;
using testing::PerfettoSlice;
using testing::PerfettoTrace;
using testing::ReadPerfettoTrace;

constexpr SessionId kSession = 3;
constexpr SessionId kRunningSession = 4;
constexpr int64_t kStart = 1'780'000'000'000'000'000;
constexpr int64_t kEnd = kStart + 90'000'000;
constexpr int32_t kPid = 4242;
constexpr auto kCpu = static_cast<uint8_t>(abi::TargetKind::kCpu);
constexpr auto kGpu = static_cast<uint8_t>(abi::TargetKind::kGpu);
constexpr auto kOther = static_cast<uint8_t>(abi::TargetKind::kOther);

std::string Export(SpanReader& reader, SessionId session, v1::ExportFormat format) {
  v1::ExportRequest request;
  request.set_session_id(session);
  request.set_format(format);
  std::string bytes;
  const Status status = ExportSession(
      reader, request, [](uint64_t) {},
      [&](std::string_view chunk, uint64_t) { return bytes.append(chunk), true; });
  EXPECT_TRUE(status.ok()) << status.message();
  return bytes;
}

class PerfettoExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const StringId matmul = store_.Intern("matmul");
    const StringId softmax = store_.Intern("softmax \"quoted\"");
    const StringId tag = store_.Intern("matmul_128x256x512_f32");
    const StringId src = store_.Intern("model.py:7");
    uint64_t op = 0;
    const auto add = [&](uint8_t target, uint32_t tid, int64_t start, uint64_t duration,
                         uint64_t device_ns, SpanStatus status, StringId name) {
      Span s;
      s.op_id = ++op;
      s.parent_op_id = op % 3 == 0 ? op - 1 : 0;
      s.start_ns = start;
      s.duration_ns = duration;
      s.device_ns = device_ns;
      s.name = name;
      s.tag = op % 2 == 0 ? tag : 0;
      s.srcloc = op % 4 == 0 ? 0 : src;
      s.launch_tid = status == SpanStatus::kCompleteWithoutLaunch ? 0 : tid;
      s.complete_tid = status == SpanStatus::kIncomplete ? 0 : tid + 1;
      s.stream = target == kCpu ? 0 : 1 + op % 2;
      s.target = target;
      s.status = status;
      spans_.push_back(s);
    };
    // Thread 100: a child stored before the parent that holds it; a span
    // shorter than a microsecond.
    add(kCpu, 100, kStart + 1'000, 300, 0, SpanStatus::kOk, softmax);
    add(kCpu, 100, kStart + 500, 2'000, 0, SpanStatus::kOk, matmul);
    add(kCpu, 100, kStart + 3'000, 1, 0, SpanStatus::kOk, matmul);
    add(kCpu, 101, kStart + 4'000, 5'000, 0, SpanStatus::kOk, softmax);
    // Device work: with a device time, without one, on another target.
    add(kGpu, 100, kStart + 10'000, 8'000, 3'000, SpanStatus::kOk, matmul);
    add(kGpu, 100, kStart + 11'000, 9'000, 2'000, SpanStatus::kOk, matmul);
    add(kGpu, 101, kStart + 30'000, 4'000, 0, SpanStatus::kOk, softmax);
    add(kOther, 101, kStart + 40'000, 6'000, 1'000, SpanStatus::kOk, matmul);
    // Before the session's start (another clock), and the other statuses.
    add(kCpu, 102, kStart - 7'000, 2'000, 0, SpanStatus::kOk, matmul);
    add(kCpu, 100, kStart + 50'000, 0, 0, SpanStatus::kIncomplete, matmul);
    add(kGpu, 101, kStart + 51'000, 0, 0, SpanStatus::kIncomplete, softmax);
    add(kCpu, 102, kStart + 52'000, 0, 0, SpanStatus::kCompleteWithoutLaunch, matmul);
    add(kGpu, 100, kStart + 53'000, 0, 0, SpanStatus::kDuplicate, matmul);

    Instant mark;
    mark.ts_ns = kStart + 2'500;
    mark.name = store_.Intern("epoch 1");
    mark.tag = tag;
    mark.parent_op_id = 2;
    mark.tid = 103;
    mark.kind = static_cast<uint8_t>(abi::EventKind::kMark);
    mark.level = static_cast<uint8_t>(abi::LevelValue::kInfo);
    instants_.push_back(mark);
    for (int64_t value : {12345, -7, 99}) {
      Instant counter;
      counter.ts_ns = kStart + 3'000 + static_cast<int64_t>(instants_.size()) * 100;
      counter.name = store_.Intern("mem_bytes");
      counter.value = value;
      counter.tid = 101;
      counter.kind = static_cast<uint8_t>(abi::EventKind::kCounter);
      instants_.push_back(counter);
    }

    SessionRecord record = MakeSession(kSession, SessionState::kExited, kStart, kEnd);
    record.pid = kPid;
    record.executable = "train";
    record.label = "run 7";
    store_.AddSession(record, spans_, instants_);
    SessionRecord running = MakeSession(kRunningSession, SessionState::kRunning, kStart);
    store_.AddSession(running, spans_);
  }

  PerfettoTrace Read(SessionId session) {
    const PerfettoTrace trace =
        ReadPerfettoTrace(Export(store_.reader(), session, v1::EXPORT_FORMAT_PERFETTO));
    for (const std::string& error : trace.errors) ADD_FAILURE() << error;
    return trace;
  }

  ApiTestStore store_;
  std::vector<Span> spans_;
  std::vector<Instant> instants_;
};

// The events of op `op_id` (slices and instants with its op_id annotation).
std::vector<const PerfettoSlice*> EventsOf(const PerfettoTrace& trace, uint64_t op_id) {
  std::vector<const PerfettoSlice*> found;
  for (const PerfettoSlice& s : trace.slices) {
    const auto at = s.args.find("op_id");
    if (at != s.args.end() && at->second == std::to_string(op_id)) found.push_back(&s);
  }
  return found;
}

// The uuid of the thread track of `tid`; 0 when there is none.
uint64_t ThreadTrackOf(const PerfettoTrace& trace, uint32_t tid) {
  for (const auto& [uuid, track] : trace.tracks) {
    if (track.thread && track.tid == static_cast<int32_t>(tid)) return uuid;
  }
  return 0;
}

TEST_F(PerfettoExportTest, EverySpanOnItsTrackWithNamesTimesAndAnnotations) {
  const PerfettoTrace trace = Read(kSession);
  ASSERT_TRUE(trace.errors.empty());
  const std::string suffixes[] = {"", " (incomplete)", " (complete without launch)",
                                  " (duplicate)"};
  for (const Span& span : spans_) {
    SCOPED_TRACE("op " + std::to_string(span.op_id));
    const std::vector<const PerfettoSlice*> events = EventsOf(trace, span.op_id);
    ASSERT_EQ(events.size(), 1u);
    const PerfettoSlice& e = *events[0];
    EXPECT_EQ(e.name, store_.Text(span.name) + suffixes[static_cast<int>(span.status)]);
    EXPECT_EQ(e.category, span.target == kCpu ? "cpu" : span.target == kGpu ? "gpu" : "other");
    EXPECT_EQ(e.args.count("tag"), span.tag != 0 ? 1u : 0u);
    if (span.tag != 0) {
      EXPECT_EQ(e.args.at("tag"), store_.Text(span.tag));
    }
    EXPECT_EQ(e.args.count("src"), span.srcloc != 0 ? 1u : 0u);
    if (span.srcloc != 0) {
      EXPECT_EQ(e.args.at("src"), store_.Text(span.srcloc));
    }
    EXPECT_EQ(e.args.count("parent_op_id"), span.parent_op_id != 0 ? 1u : 0u);
    if (span.parent_op_id != 0) {
      EXPECT_EQ(e.args.at("parent_op_id"), std::to_string(span.parent_op_id));
    }
    if (span.status == SpanStatus::kOk) {
      EXPECT_EQ(e.args.count("status"), 0u);
    } else {
      EXPECT_EQ(e.args.at("status"), SpanStatusName(span.status));
    }

    const bool device = span.target != kCpu;
    const uint32_t host_tid = span.launch_tid != 0 ? span.launch_tid : span.complete_tid;
    const auto& track = trace.tracks.at(e.track);
    if (device) {
      EXPECT_FALSE(track.thread);
      EXPECT_EQ(track.parent_uuid, 1u);
      EXPECT_EQ(track.name, std::string(span.target == kGpu ? "gpu" : "other") + ":" +
                                std::to_string(span.device) + " stream " +
                                std::to_string(span.stream));
    } else {
      EXPECT_TRUE(track.thread);
      EXPECT_EQ(track.tid, static_cast<int32_t>(host_tid));
      EXPECT_EQ(track.pid, kPid);
    }

    const int64_t end = span.start_ns + static_cast<int64_t>(span.duration_ns);
    switch (span.status) {
      case SpanStatus::kOk:
        EXPECT_FALSE(e.instant);
        EXPECT_EQ(e.end_ns, end);
        if (!device) {
          EXPECT_EQ(e.start_ns, span.start_ns);
          break;
        }
        // The device's own time, and a flow from the launch on the host.
        EXPECT_EQ(e.start_ns,
                  span.device_ns != 0 ? end - static_cast<int64_t>(span.device_ns) : span.start_ns);
        // The device time is the slice's own length, not repeated as an annotation.
        EXPECT_EQ(e.args.count("device_duration_ns"), 0u);
        ASSERT_EQ(e.terminating_flow_ids.size(), 1u);
        {
          const auto launch =
              std::find_if(trace.slices.begin(), trace.slices.end(), [&](const PerfettoSlice& s) {
                return s.flow_ids.size() == 1 && s.flow_ids[0] == e.terminating_flow_ids[0];
              });
          ASSERT_NE(launch, trace.slices.end());
          EXPECT_TRUE(launch->instant);
          EXPECT_EQ(launch->start_ns, span.start_ns);
          EXPECT_EQ(launch->name, store_.Text(span.name));
          EXPECT_EQ(launch->track, ThreadTrackOf(trace, host_tid));
        }
        break;
      case SpanStatus::kIncomplete:
        EXPECT_FALSE(e.instant);
        EXPECT_EQ(e.start_ns, span.start_ns);
        EXPECT_EQ(e.end_ns, kEnd);
        break;
      case SpanStatus::kCompleteWithoutLaunch:
      case SpanStatus::kDuplicate:
        EXPECT_TRUE(e.instant);
        EXPECT_EQ(e.start_ns, span.start_ns);
        break;
    }
  }
  // Nothing else: one launch instant per device-timed OK span.
  size_t launches = 0;
  for (const Span& s : spans_) launches += s.status == SpanStatus::kOk && s.target != kCpu;
  EXPECT_EQ(trace.slices.size(), spans_.size() + launches + 1);  // + the mark
}

TEST_F(PerfettoExportTest, ProcessThreadAndCounterTracks) {
  const PerfettoTrace trace = Read(kSession);
  const auto& process = trace.tracks.at(1);
  EXPECT_TRUE(process.process);
  EXPECT_EQ(process.pid, kPid);
  EXPECT_EQ(process.name, "train (run 7)");
  std::vector<int32_t> tids;
  for (const auto& [uuid, track] : trace.tracks) {
    if (track.thread) {
      tids.push_back(track.tid);
      EXPECT_EQ(track.name, "thread " + std::to_string(track.tid));
      EXPECT_EQ(track.parent_uuid, 1u);
    }
  }
  std::sort(tids.begin(), tids.end());
  EXPECT_EQ(tids, (std::vector<int32_t>{100, 101, 102, 103}));
  ASSERT_EQ(trace.counters.size(), 3u);
  const auto& counter_track = trace.tracks.at(trace.counters[0].track);
  EXPECT_TRUE(counter_track.counter);
  EXPECT_EQ(counter_track.name, "mem_bytes");
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(trace.counters[i].track, trace.counters[0].track);
    EXPECT_EQ(trace.counters[i].value, instants_[i + 1].value);
    EXPECT_EQ(trace.counters[i].ts_ns, instants_[i + 1].ts_ns);
  }
}

TEST_F(PerfettoExportTest, MarkIsAnInstantWithItsAnnotations) {
  const PerfettoTrace trace = Read(kSession);
  const auto mark = std::find_if(trace.slices.begin(), trace.slices.end(),
                                 [](const PerfettoSlice& s) { return s.category == "mark"; });
  ASSERT_NE(mark, trace.slices.end());
  EXPECT_TRUE(mark->instant);
  EXPECT_EQ(mark->name, "epoch 1");
  EXPECT_EQ(mark->start_ns, instants_[0].ts_ns);
  EXPECT_EQ(mark->track, ThreadTrackOf(trace, 103));
  EXPECT_EQ(mark->args.at("tag"), "matmul_128x256x512_f32");
  EXPECT_EQ(mark->args.at("parent_op_id"), "2");
  EXPECT_EQ(mark->args.at("level"), "info");
}

TEST_F(PerfettoExportTest, RunningSession_IncompleteSpansEndWhereTheLastSpanEnds) {
  const PerfettoTrace trace = Read(kRunningSession);
  int64_t last_end = 0;
  for (const Span& s : spans_) {
    last_end = std::max(last_end, s.start_ns + static_cast<int64_t>(s.duration_ns));
  }
  size_t incomplete = 0;
  for (const PerfettoSlice& s : trace.slices) {
    if (s.args.count("status") == 0 || s.args.at("status") != "incomplete") continue;
    ++incomplete;
    EXPECT_EQ(s.end_ns, last_end);
  }
  EXPECT_EQ(incomplete, 2u);
}

TEST_F(PerfettoExportTest, EachTextWrittenOnce) {
  const std::string bytes = Export(store_.reader(), kSession, v1::EXPORT_FORMAT_PERFETTO);
  for (const std::string text : {"matmul_128x256x512_f32", "model.py:7"}) {
    size_t count = 0;
    for (size_t at = bytes.find(text); at != std::string::npos; at = bytes.find(text, at + 1)) {
      ++count;
    }
    EXPECT_EQ(count, 1u) << text;
  }
}

// Spans stored in start order (nested on two threads, device work with
// and without a device time that fits): every event packet is written in
// time order on the delta clock, and the times decode exactly.
TEST(PerfettoExportTimesTest, InStartOrder_EventsInTimeOrderAndTimesExact) {
  ApiTestStore store;
  const StringId name = store.Intern("op");
  std::vector<Span> spans;
  int64_t at = kStart + 17;
  for (uint64_t step = 0; step < 200; ++step) {
    const auto add = [&](uint8_t target, uint32_t tid, int64_t start, uint64_t duration,
                         uint64_t device_ns) {
      Span s;
      s.op_id = spans.size() + 1;
      s.start_ns = start;
      s.duration_ns = duration;
      s.device_ns = device_ns;
      s.name = name;
      s.target = target;
      s.stream = 7;
      s.launch_tid = s.complete_tid = tid;
      s.status = SpanStatus::kOk;
      spans.push_back(s);
    };
    // A parent, a child that starts with it, a GPU launch inside it, a
    // span of 0 ns, and a second thread's span that overlaps them in time.
    add(kCpu, 100, at, 9'000 + step, 0);
    add(kCpu, 100, at, 1'000, 0);
    add(kGpu, 100, at + 2'000, 3'000, step % 2 == 0 ? 1'500 : 4'000);
    add(kCpu, 101, at + 2'500, 0, 0);
    add(kCpu, 101, at + 2'600, 7'000, 0);
    at += 10'000 + static_cast<int64_t>(step * 37);
  }
  store.AddSession(MakeSession(kSession, SessionState::kExited, kStart, at), spans);
  const PerfettoTrace trace =
      ReadPerfettoTrace(Export(store.reader(), kSession, v1::EXPORT_FORMAT_PERFETTO));
  for (const std::string& error : trace.errors) ADD_FAILURE() << error;
  EXPECT_EQ(trace.events_out_of_time_order, 0u);
  std::map<std::string, const PerfettoSlice*> slices;  // op id -> its (device) slice
  for (const PerfettoSlice& slice : trace.slices) {
    if (!slice.instant) slices[slice.args.at("op_id")] = &slice;
  }
  ASSERT_EQ(slices.size(), spans.size());
  for (const Span& span : spans) {
    SCOPED_TRACE("op " + std::to_string(span.op_id));
    const PerfettoSlice& slice = *slices.at(std::to_string(span.op_id));
    const int64_t end = span.start_ns + static_cast<int64_t>(span.duration_ns);
    EXPECT_EQ(slice.end_ns, end);
    if (span.target == kCpu) {
      EXPECT_EQ(slice.start_ns, span.start_ns);
    } else if (span.device_ns <= span.duration_ns) {
      EXPECT_EQ(slice.start_ns, end - static_cast<int64_t>(span.device_ns));
      EXPECT_EQ(slice.args.count("device_duration_ns"), 0u);
    } else {  // a device time longer than the span: the whole span, the time annotated
      EXPECT_EQ(slice.start_ns, span.start_ns);
      EXPECT_EQ(slice.args.at("device_duration_ns"), std::to_string(span.device_ns));
    }
  }
}

TEST(PerfettoExportExtremesTest, Malicious_ExtremeFieldValues_EverySpanStillReadBack) {
  ApiTestStore store;
  std::mt19937_64 rng(19);
  const std::vector<Span> spans = testing::RandomSpans(rng, 2000);
  store.AddSession(MakeSession(kSession, SessionState::kExited, kStart, kEnd), spans);
  const PerfettoTrace trace =
      ReadPerfettoTrace(Export(store.reader(), kSession, v1::EXPORT_FORMAT_PERFETTO));
  for (const std::string& error : trace.errors) ADD_FAILURE() << error;
  size_t with_op_id = 0;
  for (const PerfettoSlice& s : trace.slices) with_op_id += s.args.count("op_id");
  EXPECT_EQ(with_op_id, spans.size());
}

}  // namespace
}  // namespace optrace::daemon
