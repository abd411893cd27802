// The stored-data RPCs on one large session, beside the reader's own
// decode speed measured in the same run:
//   BM_ReadAllSpans          SpanReader::ForEachSpan over the whole session
//                            (the floor of any full pass)
//   BM_GetStats/by_name      GetStats grouped by name, no filter: from the
//                            session's op_aggregates
//   BM_GetStats/by_name_exact  the same with `exact`: a pass over the spans
//   BM_GetStats/by_target(_exact)  grouped by target/device
//   BM_GetStats/filtered     a name pattern and a target filter
//   BM_QueryOps/first_page   the first 1000 spans, no filter
//   BM_QueryOps/middle_page  1000 spans after a cursor half-way through
//   BM_QueryOps/rare_name    the first 1000 spans of a name 1 span in 1000
//                            has (the scan crosses most of the session)
//   BM_CompareSessions       by tag, from the op aggregates
//   BM_GetStatsThreads       GetStats by name with each thread's busy share
//                            (a pass over the spans beside the aggregates)
//   BM_GetTimeline/whole, /tenth, /hundredth, /thousandth  the steps
//                            session's timeline 1,500 pixels wide: the whole
//                            session, then a tenth, a hundredth and a
//                            thousandth of it around its middle (zoom levels)
//   Export/chrome_json, Export/perfetto, Export/csv   the whole session to
//                            a sink that only counts the bytes (one
//                            iteration each: seconds)
// The session: 10,000,000 spans (kSessionSpans) written through SpanStore
// in batches of 65536 (one page each), 50 op names, 200 tags, CPU and GPU
// spans on 2 devices, about 1 us apart, durations 1-100 us. A second
// session of 1,000,000 such spans is the other side of the comparison; a
// third of 1,000,000 holds 1,000 steps (every 1,000th span an
// optrace.step span over the next 999), for GetSteps, ExplainStep and
// GetTree of step 500.
// Building them takes a few seconds before the first benchmark. With
// OPTRACE_BENCH_DB=PATH the database is written at PATH and kept.
// docs/BENCHMARKS.md has the command and the figures.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "export/session_export.h"
#include "model/store_batch.h"
#include "query/call_tree.h"
#include "query/session_steps.h"
#include "query/span_queries.h"
#include "query/timeline_query.h"
#include "storage/span_reader.h"
#include "storage/span_store.h"
#include "temp_folder.h"

namespace {

using optrace::Result;
using optrace::Status;
using optrace::daemon::SessionId;
using optrace::daemon::Span;
using optrace::daemon::SpanReader;
using optrace::daemon::SpanStore;
using optrace::daemon::StoreBatch;
using optrace::daemon::StringId;
namespace v1 = optrace::v1;

constexpr SessionId kSession = 1;
constexpr SessionId kOtherSession = 2;
constexpr SessionId kStepsSession = 3;
constexpr size_t kSpansPerStep = 1000;
constexpr size_t kSessionSpans = 10'000'000;
constexpr size_t kOtherSessionSpans = 1'000'000;
constexpr size_t kSpansPerBatch = 65536;
constexpr StringId kNames = 50;
constexpr StringId kTags = 200;
constexpr int64_t kEpochNs = 1'780'000'000'000'000'000;
// Dictionary ids: names 1..50, tags 51..250, one rare name 251.
constexpr StringId kRareName = kNames + kTags + 1;
constexpr StringId kStepName = kRareName + 1;

// The database with both sessions, built once for every benchmark.
class QueryBenchData {
 public:
  static QueryBenchData& Get() {
    static QueryBenchData data;
    return data;
  }

  // An error message, or "" when the data is ready.
  const std::string& error() const { return error_; }
  SpanReader& reader() { return *reader_; }

 private:
  QueryBenchData() {
    // OPTRACE_BENCH_DB keeps the database at that path (it must not exist),
    // for tests/bench/stats_vs_clickhouse.sh.
    const char* keep = std::getenv("OPTRACE_BENCH_DB");
    const std::string path = keep != nullptr ? keep : folder_.path() + "/trace.db";
    Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path});
    if (!store.ok()) {
      error_ = store.status().message();
      return;
    }
    uint64_t sequence = 0;
    StoreBatch strings;
    strings.sequence = ++sequence;
    for (StringId id = 1; id <= kNames; ++id) {
      strings.new_strings.emplace_back(id, "op_" + std::to_string(id));
    }
    for (StringId id = kNames + 1; id <= kNames + kTags; ++id) {
      strings.new_strings.emplace_back(
          id, "op_" + std::to_string(id % kNames + 1) + "_shape_" + std::to_string(id));
    }
    strings.new_strings.emplace_back(kRareName, "rare_op");
    strings.new_strings.emplace_back(kStepName, "optrace.step");
    for (SessionId id : {kSession, kOtherSession, kStepsSession}) {
      optrace::daemon::SessionRecord& record = strings.sessions.emplace_back();
      record.id = id;
      record.segment_name = "/bench." + std::to_string(id);
      record.pid = 4000 + static_cast<uint32_t>(id);
      record.executable = "/usr/bin/python3";
      record.label = "bench";
      record.start_ns = kEpochNs;
      record.end_ns = kEpochNs + static_cast<int64_t>(kSessionSpans) * 1000 + 1'000'000;
      record.state = optrace::daemon::SessionState::kExited;
    }
    if (!Submit(*store.value(), std::move(strings))) return;
    for (const auto& [session, count] :
         {std::pair{kSession, kSessionSpans}, std::pair{kOtherSession, kOtherSessionSpans},
          std::pair{kStepsSession, kOtherSessionSpans}}) {
      std::mt19937_64 rng(session);
      for (size_t first = 0; first < count; first += kSpansPerBatch) {
        StoreBatch batch;
        batch.sequence = ++sequence;
        std::vector<Span>& spans = batch.spans.emplace_back().spans;
        batch.spans.back().session = session;
        for (size_t i = first; i < std::min(count, first + kSpansPerBatch); ++i) {
          spans.push_back(MakeSpan(rng, i));
          if (session == kStepsSession && i % kSpansPerStep == 0) {
            spans.back().name = kStepName;
            spans.back().tag = 0;
            spans.back().duration_ns = kSpansPerStep * 1000;
          }
        }
        if (!Submit(*store.value(), std::move(batch))) return;
      }
    }
    if (!store.value()->Flush(600'000)) {
      error_ = "flush timed out";
      return;
    }
    Result<std::unique_ptr<SpanReader>> reader = SpanReader::Open(path);
    if (!reader.ok()) {
      error_ = reader.status().message();
      return;
    }
    reader_ = std::move(reader).value();
  }

  static Span MakeSpan(std::mt19937_64& rng, size_t i) {
    Span s;
    s.op_id = i + 1;
    s.parent_op_id = i % 8 == 0 ? 0 : i - i % 8 + 1;
    s.start_ns = kEpochNs + static_cast<int64_t>(i) * 1000 + static_cast<int64_t>(rng() % 500);
    s.duration_ns = 1000 + rng() % 99'000;
    s.name = i % 1000 == 999 ? kRareName : static_cast<StringId>(1 + rng() % kNames);
    s.tag = kNames + 1 + (s.name * 4 + static_cast<StringId>(rng() % 4)) % kTags;
    s.srcloc = s.name;
    s.launch_tid = 1000 + static_cast<uint32_t>(i % 4);
    s.complete_tid = s.launch_tid;
    s.target = i % 2 == 0 ? 2 : 1;
    s.device = static_cast<uint16_t>(i % 4 < 2 ? 0 : 1);
    s.stream = i % 2 == 0 ? 1 : 0;
    s.has_device_ns = s.target == 2;
    s.device_ns = s.has_device_ns ? s.duration_ns - s.duration_ns / 4 : 0;
    return s;
  }

  // Submits `batch`, waiting for room in the writer's queue.
  bool Submit(SpanStore& store, StoreBatch batch) {
    while (store.GetStatus().queued_batches >= 8) store.Flush(1);
    if (!store.Submit(std::move(batch))) {
      error_ = "queue full";
      return false;
    }
    return true;
  }

  optrace::testing::TempFolder folder_;
  std::unique_ptr<SpanReader> reader_;
  std::string error_;
};

// The shared data, or nullptr after marking `state` skipped.
QueryBenchData* Data(benchmark::State& state) {
  QueryBenchData& data = QueryBenchData::Get();
  if (!data.error().empty()) {
    state.SkipWithError(data.error().c_str());
    return nullptr;
  }
  return &data;
}

void BM_ReadAllSpans(benchmark::State& state) {
  QueryBenchData* data = Data(state);
  if (data == nullptr) return;
  uint64_t spans = 0;
  for (auto _ : state) {
    spans = 0;
    Status read = data->reader().ForEachSpan(kSession, std::numeric_limits<int64_t>::min(),
                                             std::numeric_limits<int64_t>::max(),
                                             [&](const Span&) { return ++spans, true; });
    if (!read.ok()) return state.SkipWithError(read.message().c_str());
  }
  state.counters["spans"] = static_cast<double>(spans);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(spans));
}
BENCHMARK(BM_ReadAllSpans)->Unit(benchmark::kMillisecond)->UseRealTime();

// `exact`: the pass over the stored spans; without it, an unfiltered
// request is answered from the session's op_aggregates.
void GetStats(benchmark::State& state, v1::GroupBy by, const char* name_pattern, v1::Target target,
              bool exact) {
  QueryBenchData* data = Data(state);
  if (data == nullptr) return;
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_by(by);
  request.mutable_filter()->set_name_pattern(name_pattern);
  request.mutable_filter()->set_target(target);
  request.set_exact(exact);
  v1::GetStatsResponse response;
  // As the daemon answers a caller with a thread to spare.
  optrace::daemon::QueryLimits limits;
  limits.second_thread = [] { return true; };
  for (auto _ : state) {
    Status done = optrace::daemon::GetStats(data->reader(), request, limits, &response);
    if (!done.ok()) return state.SkipWithError(done.message().c_str());
  }
  state.counters["rows"] = response.rows_size();
  state.counters["spans"] = static_cast<double>(response.spans());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kSessionSpans));
}
BENCHMARK_CAPTURE(GetStats, by_name, v1::GROUP_BY_NAME, "", v1::TARGET_UNSPECIFIED, false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(GetStats, by_name_exact, v1::GROUP_BY_NAME, "", v1::TARGET_UNSPECIFIED, true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(GetStats, by_target, v1::GROUP_BY_TARGET, "", v1::TARGET_UNSPECIFIED, false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(GetStats, by_target_exact, v1::GROUP_BY_TARGET, "", v1::TARGET_UNSPECIFIED, true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(GetStats, filtered, v1::GROUP_BY_TAG, "^op_(1|2)[0-9]?$", v1::TARGET_GPU, false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void QueryOps(benchmark::State& state, const char* name_pattern, bool from_middle) {
  QueryBenchData* data = Data(state);
  if (data == nullptr) return;
  v1::QueryOpsRequest request;
  request.set_session_id(kSession);
  request.mutable_filter()->set_name_pattern(name_pattern);
  if (from_middle) {
    // A cursor after the span at the session's middle (about).
    request.set_cursor(std::to_string(kEpochNs + static_cast<int64_t>(kSessionSpans / 2) * 1000) +
                       ":0:1");
  }
  size_t spans = 0;
  for (auto _ : state) {
    Result<optrace::daemon::QueryPage> page = optrace::daemon::QueryOps(data->reader(), request);
    if (!page.ok()) return state.SkipWithError(page.status().message().c_str());
    spans = page->spans.size();
  }
  state.counters["spans"] = static_cast<double>(spans);
}
BENCHMARK_CAPTURE(QueryOps, first_page, "", false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(QueryOps, middle_page, "", true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(QueryOps, rare_name, "^rare_op$", false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_CompareSessions(benchmark::State& state) {
  QueryBenchData* data = Data(state);
  if (data == nullptr) return;
  v1::CompareSessionsRequest request;
  request.set_session_a(kSession);
  request.set_session_b(kOtherSession);
  request.set_by(v1::GROUP_BY_TAG);
  v1::CompareSessionsResponse response;
  for (auto _ : state) {
    Status done = optrace::daemon::CompareSessions(data->reader(), request, {}, &response);
    if (!done.ok()) return state.SkipWithError(done.message().c_str());
  }
  state.counters["rows"] = response.rows_size();
}
BENCHMARK(BM_CompareSessions)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GetSteps(benchmark::State& state) {
  QueryBenchData* data = Data(state);
  if (data == nullptr) return;
  v1::GetStepsRequest request;
  request.set_session_id(kStepsSession);
  v1::GetStepsResponse response;
  for (auto _ : state) {
    Status done = optrace::daemon::GetSteps(data->reader(), request, &response);
    if (!done.ok()) return state.SkipWithError(done.message().c_str());
  }
  state.counters["steps"] = static_cast<double>(response.steps_total());
}
BENCHMARK(BM_GetSteps)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ExplainStep(benchmark::State& state) {
  QueryBenchData* data = Data(state);
  if (data == nullptr) return;
  v1::ExplainStepRequest request;
  request.set_session_id(kStepsSession);
  request.set_step(500);
  v1::ExplainStepResponse response;
  for (auto _ : state) {
    Status done = optrace::daemon::ExplainStep(data->reader(), request, &response);
    if (!done.ok()) return state.SkipWithError(done.message().c_str());
  }
  state.counters["ops"] = response.ops_size();
}
BENCHMARK(BM_ExplainStep)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GetTreeOfStep(benchmark::State& state) {
  QueryBenchData* data = Data(state);
  if (data == nullptr) return;
  v1::GetTreeRequest request;
  request.set_session_id(kStepsSession);
  request.set_step(500);
  request.set_has_step(true);
  v1::GetTreeResponse response;
  for (auto _ : state) {
    Status done = optrace::daemon::GetTree(data->reader(), request, &response);
    if (!done.ok()) return state.SkipWithError(done.message().c_str());
  }
  state.counters["spans"] = static_cast<double>(response.spans());
}
BENCHMARK(BM_GetTreeOfStep)->Unit(benchmark::kMillisecond)->UseRealTime();

// GetStats from the aggregates plus each thread's busy share: the pass
// over the stored spans that `threads` adds.
void BM_GetStatsThreads(benchmark::State& state) {
  QueryBenchData* data = Data(state);
  if (data == nullptr) return;
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_threads(true);
  v1::GetStatsResponse response;
  for (auto _ : state) {
    Status done = optrace::daemon::GetStats(data->reader(), request, {}, &response);
    if (!done.ok()) return state.SkipWithError(done.message().c_str());
  }
  state.counters["threads"] = response.threads_size();
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kSessionSpans));
}
BENCHMARK(BM_GetStatsThreads)->Unit(benchmark::kMillisecond)->UseRealTime();

// The steps session spans about a second (1,000,000 spans 1 us apart).
void GetTimeline(benchmark::State& state, int64_t zoom) {
  QueryBenchData* data = Data(state);
  if (data == nullptr) return;
  constexpr int64_t kSpanNs = static_cast<int64_t>(kOtherSessionSpans) * 1000;
  v1::GetTimelineRequest request;
  request.set_session_id(kStepsSession);
  request.set_width(1500);
  if (zoom > 1) {
    const int64_t middle = kEpochNs + kSpanNs / 2;
    request.set_start_unix_ns(middle - kSpanNs / zoom / 2);
    request.set_end_unix_ns(middle + kSpanNs / zoom / 2);
  }
  v1::GetTimelineResponse response;
  for (auto _ : state) {
    Status done = optrace::daemon::GetTimeline(data->reader(), request,
                                               optrace::daemon::TimelineBounds{}, &response);
    if (!done.ok()) return state.SkipWithError(done.message().c_str());
  }
  int64_t listed = 0;
  int64_t buckets = 0;
  for (const v1::TimelineLane& lane : response.lanes()) {
    listed += lane.spans_size();
    buckets += lane.buckets_size();
  }
  state.counters["spans"] = static_cast<double>(response.spans());
  state.counters["listed"] = static_cast<double>(listed);
  state.counters["buckets"] = static_cast<double>(buckets);
  state.counters["bytes"] = static_cast<double>(response.ByteSizeLong());
}
BENCHMARK_CAPTURE(GetTimeline, whole, 1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(GetTimeline, tenth, 10)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(GetTimeline, hundredth, 100)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(GetTimeline, thousandth, 1000)->Unit(benchmark::kMillisecond)->UseRealTime();

void Export(benchmark::State& state, v1::ExportFormat format) {
  QueryBenchData* data = Data(state);
  if (data == nullptr) return;
  v1::ExportRequest request;
  request.set_session_id(kSession);
  request.set_format(format);
  uint64_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    Status done = optrace::daemon::ExportSession(
        data->reader(), request, [](uint64_t) {},
        [&](std::string_view chunk, uint64_t) { return bytes += chunk.size(), true; });
    if (!done.ok()) return state.SkipWithError(done.message().c_str());
  }
  state.counters["bytes_per_span"] = static_cast<double>(bytes) / kSessionSpans;
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kSessionSpans));
}
BENCHMARK_CAPTURE(Export, chrome_json, v1::EXPORT_FORMAT_CHROME_JSON)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(Export, perfetto, v1::EXPORT_FORMAT_PERFETTO)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK_CAPTURE(Export, csv, v1::EXPORT_FORMAT_CSV)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
