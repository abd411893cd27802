// libFuzzer target: arbitrary bytes as API requests. The first byte picks
// the RPC; the rest is parsed as its request message (protobuf accepts most
// byte strings) and run through the same validation and query code as the
// service, against a small real store built once.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "export/session_export.h"
#include "live/tail_hub.h"
#include "query/call_tree.h"
#include "query/session_steps.h"
#include "query/span_queries.h"
#include "storage/span_reader.h"
#include "storage/span_store.h"

namespace {

using namespace optrace::daemon;

std::unique_ptr<SpanReader> g_reader;
std::unique_ptr<TailHub> g_tails;

// Two small sessions with a few names, tags, targets, statuses and parents.
void BuildStore(const std::string& db) {
  StoreOptions options;
  options.db_path = db;
  auto store = SpanStore::Open(options);
  if (!store.ok()) std::abort();
  StoreBatch batch;
  batch.sequence = 1;
  batch.new_strings = {{1, "matmul"},
                       {2, "rms_norm"},
                       {3, "matmul_64x64x64_f32"},
                       {4, "a.cc:1"},
                       {5, "optrace.step"}};
  for (SessionId id : {1, 2}) {
    SessionRecord r;
    r.id = id;
    r.segment_name = "fuzz." + std::to_string(id);
    r.start_ns = 1'000'000;
    batch.sessions.push_back(r);
    SessionSpans spans{id, {}};
    for (uint64_t i = 1; i <= 200; ++i) {
      Span s;
      s.op_id = i;
      s.parent_op_id = i / 2;  // a binary tree of calls, for GetTree
      s.start_ns = static_cast<int64_t>(1'000'000 + i * 1000);
      s.duration_ns = i * 10;
      s.children_ns = i * 3;
      s.name = static_cast<StringId>(1 + i % 2);
      if (id == 2 && i % 10 == 0) s.name = 5;  // steps, for GetSteps and ExplainStep
      s.tag = i % 3 == 0 ? 3 : 0;
      s.srcloc = 4;
      s.target = static_cast<uint8_t>(1 + i % 2);
      s.device = static_cast<uint16_t>(i % 2);
      s.status = static_cast<SpanStatus>(i % 4);
      spans.spans.push_back(s);
    }
    batch.spans.push_back(std::move(spans));
  }
  store.value()->Submit(std::move(batch));
  store.value()->Flush(10'000);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string folder = "/tmp/optrace-request-fuzz-" + std::to_string(::getpid());
  std::filesystem::create_directories(folder);
  BuildStore(folder + "/ops.db");
  auto reader = SpanReader::Open(folder + "/ops.db");
  if (!reader.ok()) std::abort();
  g_reader = std::move(reader).value();
  g_tails = std::make_unique<TailHub>();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 8) {
    case 0: {
      optrace::v1::QueryOpsRequest r;
      if (r.ParseFromString(body)) QueryOps(*g_reader, r);
      break;
    }
    case 1: {
      optrace::v1::GetStatsRequest r;
      optrace::v1::GetStatsResponse out;
      if (r.ParseFromString(body)) GetStats(*g_reader, r, QueryLimits{}, &out);
      break;
    }
    case 2: {
      optrace::v1::CompareSessionsRequest r;
      optrace::v1::CompareSessionsResponse out;
      if (r.ParseFromString(body)) CompareSessions(*g_reader, r, QueryLimits{}, &out);
      break;
    }
    case 3: {
      optrace::v1::ExportRequest r;
      if (r.ParseFromString(body) && r.format() != optrace::v1::EXPORT_FORMAT_SQLITE) {
        ExportSession(
            *g_reader, r, [](uint64_t) {}, [](std::string_view, uint64_t) { return true; });
      }
      break;
    }
    case 4: {
      optrace::v1::TailRequest r;
      if (r.ParseFromString(body)) {
        auto sub = g_tails->Subscribe(r, std::nullopt);
        if (sub.ok()) g_tails->Unsubscribe(sub.value());
      }
      break;
    }
    case 5: {
      optrace::v1::GetTreeRequest r;
      optrace::v1::GetTreeResponse out;
      if (r.ParseFromString(body)) GetTree(*g_reader, r, &out);
      break;
    }
    case 6: {
      optrace::v1::GetStepsRequest r;
      optrace::v1::GetStepsResponse out;
      if (r.ParseFromString(body)) GetSteps(*g_reader, r, &out);
      break;
    }
    case 7: {
      optrace::v1::ExplainStepRequest r;
      optrace::v1::ExplainStepResponse out;
      if (r.ParseFromString(body)) ExplainStep(*g_reader, r, &out);
      break;
    }
  }
  return 0;
}
