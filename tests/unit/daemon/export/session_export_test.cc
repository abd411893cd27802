// Export: Chrome trace JSON parsed back and checked span by span, CSV
// parsed back (RFC 4180 quoting), the SQLite file opened and counted, the
// chunk contract, and a client that goes away.
#include "export/session_export.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api_test_store.h"
#include "export/chrome_trace_writer.h"
#include "export/csv_writer.h"
#include "export/export_buffer.h"
#include "optrace/abi.h"
#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using nlohmann::json;
using testing::ApiTestStore;
using testing::MakeSession;
using testing::QueryColumn;

constexpr SessionId kSession = 5;
constexpr SessionId kRunningSession = 6;
constexpr SessionId kBigSession = 7;
constexpr SessionId kRangeSession = 8;
constexpr int64_t kStart = 1'780'000'000'000'000'000;
constexpr int64_t kEnd = kStart + 50'000'000;
constexpr auto kCpu = static_cast<uint8_t>(abi::TargetKind::kCpu);
constexpr auto kGpu = static_cast<uint8_t>(abi::TargetKind::kGpu);
constexpr auto kOther = static_cast<uint8_t>(abi::TargetKind::kOther);
// A name that JSON, CSV and SQL must all carry unharmed.
const std::string kTrickyName = "weird \"name\", with \\ and, commas";
const std::string kTrickyTag = "line one\nline two\r\n\ttab";

// Everything one export sent.
struct Received {
  std::string bytes;
  std::vector<uint64_t> spans_done;  // per chunk
  std::vector<size_t> chunk_sizes;
  int span_count_calls = 0;
  uint64_t span_count = 0;
  bool span_count_before_first_chunk = false;
};

// Parses RFC 4180 text into rows of fields.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    std::string& field = rows.back().back();
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      rows.emplace_back(1);
    } else {
      field += c;
    }
  }
  if (rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();  // after the last CRLF
  return rows;
}

class SessionExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const StringId matmul = store_.Intern("matmul");
    const StringId tricky = store_.Intern(kTrickyName);
    const StringId tag = store_.Intern(kTrickyTag);
    const StringId src = store_.Intern("model.py:7");
    uint64_t op = 0;
    const auto add = [&](uint8_t target, uint16_t device, uint32_t stream, uint32_t tid,
                         SpanStatus status, StringId name) {
      Span s;
      s.op_id = ++op;
      s.parent_op_id = op > 1 ? op - 1 : 0;
      s.start_ns = kStart + static_cast<int64_t>(op) * 1'000'123;
      s.duration_ns = status == SpanStatus::kOk ? 1000 + op * 777 : 0;
      s.children_ns = s.duration_ns / 3;  // as the correlator leaves it: at most the duration
      // GPU ops measured on the device, a duplicate's 0 ns included; an
      // incomplete one never finished there.
      s.has_device_ns = target == kGpu && status != SpanStatus::kIncomplete;
      s.device_ns = s.has_device_ns ? s.duration_ns / 2 : 0;
      s.name = name;
      s.tag = tag;
      s.srcloc = src;
      s.launch_tid = status == SpanStatus::kCompleteWithoutLaunch ? 0 : tid;
      s.complete_tid = status == SpanStatus::kIncomplete ? 0 : tid + 1;
      s.stream = stream;
      s.device = device;
      s.target = target;
      s.status = status;
      spans_.push_back(s);
    };
    for (int round = 0; round < 3; ++round) {
      add(kCpu, 0, 0, 100, SpanStatus::kOk, matmul);
      add(kCpu, 0, 0, 101, SpanStatus::kOk, tricky);
      add(kGpu, 0, 1, 100, SpanStatus::kOk, matmul);
      add(kGpu, 1, 0, 101, SpanStatus::kOk, tricky);
      add(kOther, 0, 0, 100, SpanStatus::kOk, matmul);
    }
    add(kCpu, 0, 0, 100, SpanStatus::kIncomplete, matmul);
    add(kGpu, 0, 1, 100, SpanStatus::kIncomplete, tricky);
    add(kCpu, 0, 0, 102, SpanStatus::kCompleteWithoutLaunch, matmul);
    add(kGpu, 1, 0, 100, SpanStatus::kDuplicate, matmul);

    Instant mark;
    mark.ts_ns = kStart + 2'500'000;
    mark.name = store_.Intern("epoch 1");
    mark.tag = tag;
    mark.tid = 100;
    mark.kind = static_cast<uint8_t>(abi::EventKind::kMark);
    mark.level = static_cast<uint8_t>(abi::LevelValue::kInfo);
    Instant counter;
    counter.ts_ns = kStart + 3'000'000;
    counter.name = store_.Intern("mem_bytes");
    counter.value = 12345;
    counter.tid = 101;
    counter.kind = static_cast<uint8_t>(abi::EventKind::kCounter);
    instants_ = {mark, counter};

    record_ = MakeSession(kSession, SessionState::kExited, kStart, kEnd);
    record_.label = "label \"quoted\"";
    store_.AddSession(record_, spans_, instants_);
    SessionRecord running = MakeSession(kRunningSession, SessionState::kRunning, kStart);
    store_.AddSession(running, spans_);
  }

  Status Export(SessionId session, v1::ExportFormat format, Received* got,
                int refuse_after_chunks = -1, int64_t start_unix_ns = 0, int64_t end_unix_ns = 0) {
    v1::ExportRequest request;
    request.set_session_id(session);
    request.set_format(format);
    request.set_start_unix_ns(start_unix_ns);
    request.set_end_unix_ns(end_unix_ns);
    return ExportSession(
        store_.reader(), request,
        [got](uint64_t count) {
          ++got->span_count_calls;
          got->span_count = count;
          got->span_count_before_first_chunk = got->chunk_sizes.empty();
        },
        [got, refuse_after_chunks](std::string_view bytes, uint64_t spans_done) {
          if (refuse_after_chunks >= 0 &&
              got->chunk_sizes.size() >= static_cast<size_t>(refuse_after_chunks)) {
            return false;
          }
          got->bytes.append(bytes);
          got->chunk_sizes.push_back(bytes.size());
          got->spans_done.push_back(spans_done);
          return true;
        });
  }

  // The parsed Chrome trace of `session`; fails the test when it is not JSON.
  json ChromeTrace(SessionId session) {
    Received got;
    const Status status = Export(session, v1::EXPORT_FORMAT_CHROME_JSON, &got);
    EXPECT_TRUE(status.ok()) << status.message();
    json trace = json::parse(got.bytes, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(trace.is_discarded()) << "not valid JSON:\n" << got.bytes.substr(0, 2000);
    return trace;
  }

  ApiTestStore store_;
  std::vector<Span> spans_;
  std::vector<Instant> instants_;
  SessionRecord record_;
};

double Micros(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

TEST_F(SessionExportTest, ChromeJson_EverySpanOnceOnItsTrackWithTimesInMicroseconds) {
  const json trace = ChromeTrace(kSession);
  ASSERT_TRUE(trace.is_object());
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  EXPECT_EQ(trace["otherData"]["id"], kSession);
  EXPECT_EQ(trace["otherData"]["label"], record_.label);
  EXPECT_EQ(trace["otherData"]["start_unix_ns"], kStart);
  EXPECT_EQ(trace["otherData"]["state"], "exited");

  std::map<uint64_t, std::string> track_names;  // tid -> thread_name
  std::map<uint64_t, std::vector<json>> by_op;  // op id -> span events
  std::string process_name;
  std::vector<json> instants;
  for (const json& e : trace["traceEvents"]) {
    ASSERT_EQ(e["pid"], record_.pid);
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      EXPECT_EQ(track_names.count(e["tid"]), 0u) << "each track named once";
      track_names[e["tid"]] = e["args"]["name"];
    } else if (e["ph"] == "M" && e["name"] == "process_name") {
      process_name = e["args"]["name"];
    } else if (e.contains("args") && e["args"].contains("op_id")) {
      by_op[e["args"]["op_id"]].push_back(e);
    } else {
      instants.push_back(e);
    }
  }
  EXPECT_EQ(process_name, record_.executable + " (" + record_.label + ")");
  ASSERT_EQ(by_op.size(), spans_.size());
  for (const Span& s : spans_) {
    SCOPED_TRACE("op " + std::to_string(s.op_id));
    ASSERT_EQ(by_op[s.op_id].size(), 1u) << "every span exactly once";
    const json& e = by_op[s.op_id][0];
    EXPECT_EQ(e["name"], store_.Text(s.name));
    EXPECT_EQ(e["cat"], s.target == kCpu ? "cpu" : s.target == kGpu ? "gpu" : "other");
    EXPECT_EQ(e["args"]["parent_op_id"], s.parent_op_id);
    EXPECT_EQ(e["args"]["tag"], kTrickyTag);
    EXPECT_EQ(e["args"]["src"], "model.py:7");
    if (s.has_device_ns) {
      EXPECT_EQ(e["args"]["device_duration_ns"], s.device_ns);
    } else {
      EXPECT_FALSE(e["args"].contains("device_duration_ns")) << "unknown: left out";
    }
    EXPECT_EQ(e["args"]["status"], std::string(SpanStatusName(s.status)));
    EXPECT_NEAR(e["ts"].get<double>(), Micros(s.start_ns - kStart), 1e-6);
    const std::string track = track_names[e["tid"]];
    if (s.target == kCpu) {
      EXPECT_EQ(e["tid"], s.launch_tid != 0 ? s.launch_tid : s.complete_tid);
      EXPECT_EQ(track, "thread " + std::to_string(e["tid"].get<uint64_t>()));
    } else {
      EXPECT_EQ(track, std::string(s.target == kGpu ? "gpu:" : "other:") +
                           std::to_string(s.device) + " stream " + std::to_string(s.stream));
      EXPECT_GE(e["tid"].get<uint64_t>(), ChromeTraceWriter::kDeviceTrackTidBase);
    }
    switch (s.status) {
      case SpanStatus::kOk:
        EXPECT_EQ(e["ph"], "X");
        EXPECT_NEAR(e["dur"].get<double>(), Micros(static_cast<int64_t>(s.duration_ns)), 1e-6);
        break;
      case SpanStatus::kIncomplete:
        EXPECT_EQ(e["ph"], "X");
        EXPECT_NEAR(e["dur"].get<double>(), Micros(kEnd - s.start_ns), 1e-6)
            << "until the session's end";
        break;
      case SpanStatus::kCompleteWithoutLaunch:
      case SpanStatus::kDuplicate:
        EXPECT_EQ(e["ph"], "i");
        EXPECT_FALSE(e.contains("dur"));
        break;
    }
  }
  ASSERT_EQ(instants.size(), 2u);
  EXPECT_EQ(instants[0]["ph"], "i");
  EXPECT_EQ(instants[0]["name"], "epoch 1");
  EXPECT_EQ(instants[0]["tid"], 100);
  EXPECT_EQ(instants[0]["args"]["level"], "info");
  EXPECT_NEAR(instants[0]["ts"].get<double>(), 2500.0, 1e-9);
  EXPECT_EQ(instants[1]["ph"], "C");
  EXPECT_EQ(instants[1]["args"]["mem_bytes"], 12345);
}

TEST_F(SessionExportTest, ChromeJson_TimesKeepNanosecondDigits) {
  Received got;
  ASSERT_TRUE(Export(kSession, v1::EXPORT_FORMAT_CHROME_JSON, &got).ok());
  // Op 1 starts 1'000'123 ns after the session: 1000.123 us.
  EXPECT_NE(got.bytes.find("\"ts\":1000.123,"), std::string::npos);
  // Its duration is 1777 ns.
  EXPECT_NE(got.bytes.find("\"dur\":1.777,"), std::string::npos);
}

TEST(ChromeJsonTimesTest, SpansShorterThanAMicrosecond_KeepTheirNanoseconds) {
  ApiTestStore store;
  const StringId name = store.Intern("tiny");
  std::vector<Span> spans;
  for (const auto& [offset, duration] :
       {std::pair<int64_t, uint64_t>{0, 1}, {1, 999}, {1'000, 0}}) {
    Span s = testing::MakeSpan(spans.size() + 1, kStart + offset, name, duration);
    s.target = kCpu;
    s.launch_tid = s.complete_tid = 7;
    spans.push_back(s);
  }
  store.AddSession(MakeSession(kSession, SessionState::kExited, kStart, kEnd), spans);
  v1::ExportRequest request;
  request.set_session_id(kSession);
  request.set_format(v1::EXPORT_FORMAT_CHROME_JSON);
  std::string bytes;
  ASSERT_TRUE(ExportSession(
                  store.reader(), request, [](uint64_t) {},
                  [&](std::string_view chunk, uint64_t) { return bytes.append(chunk), true; })
                  .ok());
  std::vector<std::pair<double, double>> times;  // ts, dur of each span, in op order
  const json trace = json::parse(bytes);
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X") times.emplace_back(e["ts"].get<double>(), e["dur"].get<double>());
  }
  ASSERT_EQ(times.size(), 3u);
  EXPECT_NE(bytes.find("\"ts\":0.000,"), std::string::npos);
  EXPECT_NE(bytes.find("\"ts\":0.001,"), std::string::npos);
  EXPECT_NE(bytes.find("\"dur\":0.001,"), std::string::npos);
  EXPECT_NE(bytes.find("\"dur\":0.999,"), std::string::npos);
  EXPECT_NE(bytes.find("\"dur\":0.000,"), std::string::npos);
  EXPECT_LT(times[0].first, times[1].first) << "1 ns apart, still apart";
}

TEST_F(SessionExportTest, ChromeJson_RunningSession_IncompleteSpansEndAtTheLastSpan) {
  int64_t last_end = 0;
  for (const Span& s : spans_) {
    last_end = std::max(last_end, s.start_ns + static_cast<int64_t>(s.duration_ns));
  }
  const json trace = ChromeTrace(kRunningSession);
  int incomplete = 0;
  for (const json& e : trace["traceEvents"]) {
    if (!e.contains("args") || e["args"].value("status", "") != "incomplete") continue;
    ++incomplete;
    const Span& s = spans_[e["args"]["op_id"].get<size_t>() - 1];
    EXPECT_NEAR(e["dur"].get<double>(), Micros(last_end - s.start_ns), 1e-6);
  }
  EXPECT_EQ(incomplete, 2);
}

TEST_F(SessionExportTest, Csv_HeaderAndOneQuotedRowPerSpan) {
  Received got;
  const Status status = Export(kSession, v1::EXPORT_FORMAT_CSV, &got);
  ASSERT_TRUE(status.ok()) << status.message();
  const std::vector<std::vector<std::string>> rows = ParseCsv(got.bytes);
  ASSERT_EQ(rows.size(), spans_.size() + 1);
  EXPECT_EQ(got.bytes.substr(0, got.bytes.find("\r\n")),
            "session_id,op_id,parent_op_id,name,tag,source_location,target,device,stream,"
            "start_unix_ns,duration_ns,device_duration_ns,launch_thread,complete_thread,status,"
            "self_ns");
  for (size_t i = 0; i < spans_.size(); ++i) {
    const Span& s = spans_[i];
    const std::vector<std::string>& row = rows[i + 1];
    SCOPED_TRACE("op " + std::to_string(s.op_id));
    ASSERT_EQ(row.size(), 16u);
    EXPECT_EQ(row[0], std::to_string(kSession));
    EXPECT_EQ(row[1], std::to_string(s.op_id));
    EXPECT_EQ(row[2], std::to_string(s.parent_op_id));
    EXPECT_EQ(row[3], store_.Text(s.name));
    EXPECT_EQ(row[4], kTrickyTag);
    EXPECT_EQ(row[5], "model.py:7");
    EXPECT_EQ(row[6], s.target == kCpu ? "cpu" : s.target == kGpu ? "gpu" : "other");
    EXPECT_EQ(row[7], std::to_string(s.device));
    EXPECT_EQ(row[8], std::to_string(s.stream));
    EXPECT_EQ(row[9], std::to_string(s.start_ns));
    // Unknown durations are empty fields; measured ones (0 included) numbers.
    EXPECT_EQ(row[10], s.status == SpanStatus::kOk ? std::to_string(s.duration_ns) : "");
    EXPECT_EQ(row[11], s.has_device_ns ? std::to_string(s.device_ns) : "");
    EXPECT_EQ(row[12], std::to_string(s.launch_tid));
    EXPECT_EQ(row[13], std::to_string(s.complete_tid));
    EXPECT_EQ(row[14], std::string(SpanStatusName(s.status)));
    EXPECT_EQ(row[15], s.status == SpanStatus::kOk ? std::to_string(SelfNs(s)) : "");
  }
}

TEST_F(SessionExportTest, CsvField_SpecialCharacters_QuotedWithQuotesDoubled) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField(""), "");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvField("back\\slash"), "back\\slash");
}

// Issue 29, finding 11: op names and tags come from producers, and a cell a
// spreadsheet would run as a formula starts with a single quote (OWASP's
// CSV injection advice), then is quoted as any other field.
TEST_F(SessionExportTest, Malicious_CsvFieldLikeAFormula_StartsWithAQuote) {
  EXPECT_EQ(CsvField("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
  EXPECT_EQ(CsvField("=1+2"), "'=1+2");
  EXPECT_EQ(CsvField("+1"), "'+1");
  EXPECT_EQ(CsvField("-2+3"), "'-2+3");
  EXPECT_EQ(CsvField("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(CsvField("\t=1"), "'\t=1");
  EXPECT_EQ(CsvField("\r=1"), "\"'\r=1\"");
  EXPECT_EQ(CsvField("=a,b"), "\"'=a,b\"");
  EXPECT_EQ(CsvField("a=b+c"), "a=b+c");  // only the first character counts
  EXPECT_EQ(CsvField("'quoted"), "'quoted");
}

TEST_F(SessionExportTest, JsonString_QuotesBackslashesControlsAndBadUtf8_StillValidJson) {
  for (const std::string& text : {kTrickyName, kTrickyTag, std::string("bad \xff\xfe utf8"),
                                  std::string("nul \0 inside", 12)}) {
    const std::string literal = JsonString(text);
    const json parsed = json::parse(literal, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << literal;
    if (text.find('\xff') == std::string::npos) {
      EXPECT_EQ(parsed, text);
    }
  }
}

TEST_F(SessionExportTest, Sqlite_FileWithSessionSpansAndInstantsAsText) {
  const testing::TempFolder temp;
  ASSERT_EQ(::setenv("TMPDIR", temp.path().c_str(), 1), 0);
  Received got;
  const Status status = Export(kSession, v1::EXPORT_FORMAT_SQLITE, &got);
  ::unsetenv("TMPDIR");
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(std::filesystem::is_empty(temp.path())) << "the temporary file is deleted";
  EXPECT_EQ(got.bytes.substr(0, 16), std::string("SQLite format 3\0", 16));

  const std::string path = temp.path() + "/export.db";
  std::ofstream(path, std::ios::binary) << got.bytes;
  EXPECT_EQ(QueryColumn(path, "SELECT count(*) FROM sessions"), std::vector<std::string>{"1"});
  EXPECT_EQ(QueryColumn(path, "SELECT label FROM sessions"),
            std::vector<std::string>{record_.label});
  EXPECT_EQ(QueryColumn(path, "SELECT count(*) FROM spans"),
            std::vector<std::string>{std::to_string(spans_.size())});
  EXPECT_EQ(QueryColumn(path, "SELECT name FROM spans WHERE op_id = 2"),
            std::vector<std::string>{kTrickyName});
  EXPECT_EQ(QueryColumn(path, "SELECT tag FROM spans WHERE op_id = 2"),
            std::vector<std::string>{kTrickyTag});
  EXPECT_EQ(QueryColumn(path, "SELECT count(*) FROM spans WHERE status = 'incomplete'"),
            std::vector<std::string>{"2"});
  EXPECT_EQ(QueryColumn(path, "SELECT sum(duration_ns) FROM spans WHERE target = 'gpu'"),
            std::vector<std::string>{std::to_string([&] {
              uint64_t total = 0;
              for (const Span& s : spans_) total += s.target == kGpu ? s.duration_ns : 0;
              return total;
            }())});
  const auto count = [&](auto&& predicate) {
    return std::to_string(std::count_if(spans_.begin(), spans_.end(), predicate));
  };
  EXPECT_EQ(
      QueryColumn(path, "SELECT count(*) FROM spans WHERE duration_ns IS NULL"),
      std::vector<std::string>{count([](const Span& s) { return s.status != SpanStatus::kOk; })});
  EXPECT_EQ(QueryColumn(path, "SELECT count(*) FROM spans WHERE device_duration_ns IS NULL"),
            std::vector<std::string>{count([](const Span& s) { return !s.has_device_ns; })});
  EXPECT_EQ(QueryColumn(path, "SELECT sum(self_ns) FROM spans"),
            std::vector<std::string>{std::to_string([&] {
              uint64_t self = 0;
              for (const Span& s : spans_) self += SelfNs(s);
              return self;
            }())});
  EXPECT_EQ(
      QueryColumn(path, "SELECT count(*) FROM spans WHERE self_ns IS NULL"),
      std::vector<std::string>{count([](const Span& s) { return s.status != SpanStatus::kOk; })});
  EXPECT_EQ(QueryColumn(path, "SELECT count(*) FROM spans WHERE device_duration_ns = 0"),
            std::vector<std::string>{
                count([](const Span& s) { return s.has_device_ns && s.device_ns == 0; })});
  EXPECT_EQ(QueryColumn(path, "SELECT kind || ':' || name || ':' || value FROM instants"),
            (std::vector<std::string>{"mark:epoch 1:0", "counter:mem_bytes:12345"}));
}

TEST_F(SessionExportTest, Chunks_SpanCountFirstThenBoundedChunksCountingSpans) {
  std::vector<Span> many = testing::SpanRun(1, kStart, 20'000);
  for (Span& s : many) s.name = s.tag = s.srcloc = store_.Intern("op");
  store_.AddSession(MakeSession(kBigSession, SessionState::kExited, kStart, kEnd), many);
  for (v1::ExportFormat format :
       {v1::EXPORT_FORMAT_CHROME_JSON, v1::EXPORT_FORMAT_CSV, v1::EXPORT_FORMAT_SQLITE}) {
    SCOPED_TRACE("format " + std::to_string(format));
    Received got;
    const Status status = Export(kBigSession, format, &got);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(got.span_count_calls, 1);
    EXPECT_EQ(got.span_count, many.size());
    EXPECT_TRUE(got.span_count_before_first_chunk);
    ASSERT_GE(got.chunk_sizes.size(), 2u) << "a few MiB in several chunks";
    for (size_t size : got.chunk_sizes) EXPECT_LE(size, ExportBuffer::kChunkBytes + 4096);
    for (size_t i = 1; i < got.spans_done.size(); ++i) {
      EXPECT_GE(got.spans_done[i], got.spans_done[i - 1]);
    }
    EXPECT_EQ(got.spans_done.back(), many.size());
  }
}

TEST_F(SessionExportTest, ClientGone_ExportStopsUnavailableAndTempFileRemoved) {
  std::vector<Span> many = testing::SpanRun(1, kStart, 20'000);
  store_.AddSession(MakeSession(kBigSession, SessionState::kExited, kStart, kEnd), many);
  const testing::TempFolder temp;
  ASSERT_EQ(::setenv("TMPDIR", temp.path().c_str(), 1), 0);
  for (v1::ExportFormat format :
       {v1::EXPORT_FORMAT_CHROME_JSON, v1::EXPORT_FORMAT_CSV, v1::EXPORT_FORMAT_SQLITE}) {
    SCOPED_TRACE("format " + std::to_string(format));
    Received got;
    const Status status = Export(kBigSession, format, &got, /*refuse_after_chunks=*/0);
    EXPECT_EQ(status.code(), Status::Code::kUnavailable) << status.message();
    EXPECT_TRUE(got.chunk_sizes.empty());
  }
  ::unsetenv("TMPDIR");
  EXPECT_TRUE(std::filesystem::is_empty(temp.path()));
}

TEST_F(SessionExportTest, BadRequests_UnknownSessionNotFoundBadFormatInvalidArgument) {
  Received got;
  EXPECT_EQ(Export(999, v1::EXPORT_FORMAT_CSV, &got).code(), Status::Code::kNotFound);
  const Status unset = Export(kSession, v1::EXPORT_FORMAT_UNSPECIFIED, &got);
  EXPECT_EQ(unset.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(unset.message().find("format"), std::string::npos);
  const Status unknown = Export(kSession, static_cast<v1::ExportFormat>(17), &got);
  EXPECT_EQ(unknown.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(unknown.message().find("format 17"), std::string::npos);
  EXPECT_TRUE(got.bytes.empty());
  EXPECT_EQ(got.span_count_calls, 0);
}

// Spans around the range [kStart + 10 ms, kStart + 20 ms): in it, across
// its edges, a long one from far before it (found by the lookback), and
// those that only touch it.
TEST_F(SessionExportTest, Range_OnlyTheSpansThatOverlapItAndTheInstantsInIt_EveryFormat) {
  constexpr int64_t kFrom = kStart + 10'000'000;
  constexpr int64_t kTo = kStart + 20'000'000;
  const StringId name = store_.Intern("op");
  const auto span = [&](uint64_t op_id, int64_t start, uint64_t duration, SpanStatus status) {
    Span s;
    s.op_id = op_id;
    s.start_ns = start;
    s.duration_ns = duration;
    s.status = status;
    s.name = s.tag = s.srcloc = name;
    s.target = kCpu;
    s.launch_tid = s.complete_tid = 100;
    return s;
  };
  const std::vector<Span> spans = {
      span(1, kStart, 15'000'000, SpanStatus::kOk),             // from before, ends inside: in
      span(2, kStart + 1'000'000, 9'000'000, SpanStatus::kOk),  // ends at the start: out
      span(3, kFrom - 5, 0, SpanStatus::kIncomplete),           // no duration, before: out
      span(4, kFrom, 0, SpanStatus::kOk),                       // 0 ns at the start: in
      span(5, kFrom + 1'000, 500, SpanStatus::kOk),             // inside: in
      span(6, kFrom + 2'000, 0, SpanStatus::kIncomplete),       // no duration, inside: in
      span(7, kTo - 1, 50'000'000, SpanStatus::kOk),            // starts in, ends after: in
      span(8, kTo, 10, SpanStatus::kOk),                        // starts at the end: out
      span(9, kTo + 3'000'000, 10, SpanStatus::kOk),            // after: out
  };
  const std::vector<std::string> in_range = {"1", "4", "5", "6", "7"};
  Instant inside = instants_[0];
  inside.ts_ns = kFrom + 10;
  Instant at_end = instants_[0];
  at_end.ts_ns = kTo;
  Instant before = instants_[1];
  before.ts_ns = kFrom - 1;
  store_.AddSession(MakeSession(kRangeSession, SessionState::kExited, kStart, kTo + 10'000'000),
                    spans, {before, inside, at_end});

  Received csv;
  Status status = Export(kRangeSession, v1::EXPORT_FORMAT_CSV, &csv, -1, kFrom, kTo);
  ASSERT_TRUE(status.ok()) << status.message();
  std::vector<std::string> op_ids;
  for (const auto& row : ParseCsv(csv.bytes)) op_ids.push_back(row[1]);
  op_ids.erase(op_ids.begin());  // the header
  EXPECT_EQ(op_ids, in_range);
  EXPECT_EQ(csv.span_count, in_range.size());
  EXPECT_EQ(csv.spans_done.back(), in_range.size());

  Received chrome;
  status = Export(kRangeSession, v1::EXPORT_FORMAT_CHROME_JSON, &chrome, -1, kFrom, kTo);
  ASSERT_TRUE(status.ok()) << status.message();
  const json trace = json::parse(chrome.bytes);
  std::vector<std::string> json_ops;
  std::vector<double> instant_times;
  for (const json& event : trace["traceEvents"]) {
    if (event.contains("args") && event["args"].contains("op_id")) {
      json_ops.push_back(event["args"]["op_id"].dump());
    } else if (event.value("ph", "") == "i" || event.value("ph", "") == "C") {
      instant_times.push_back(event["ts"].get<double>());
    }
  }
  std::sort(json_ops.begin(), json_ops.end());
  EXPECT_EQ(json_ops, in_range);
  EXPECT_EQ(instant_times.size(), 1u) << chrome.bytes.substr(0, 2000);
  EXPECT_EQ(chrome.span_count, in_range.size());

  const testing::TempFolder temp;
  ASSERT_EQ(::setenv("TMPDIR", temp.path().c_str(), 1), 0);
  for (v1::ExportFormat format : {v1::EXPORT_FORMAT_SQLITE, v1::EXPORT_FORMAT_PERFETTO}) {
    SCOPED_TRACE("format " + std::to_string(format));
    Received got;
    status = Export(kRangeSession, format, &got, -1, kFrom, kTo);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(got.span_count, in_range.size());
    EXPECT_EQ(got.spans_done.back(), in_range.size());
  }
  ::unsetenv("TMPDIR");
}

TEST_F(SessionExportTest, Malicious_BadRanges_InvalidArgumentNamingTheField) {
  struct Case {
    int64_t start, end;
    std::string field;
  };
  for (const Case& c : std::vector<Case>{{-5, 10, "start_unix_ns -5"},
                                         {5, -10, "end_unix_ns -10"},
                                         {kStart, 0, "end_unix_ns is not set"},
                                         {0, kStart, "start_unix_ns is not set"},
                                         {kStart, kStart, "end_unix_ns " + std::to_string(kStart)},
                                         {kEnd, kStart, "end_unix_ns " + std::to_string(kStart)}}) {
    Received got;
    const Status status = Export(kSession, v1::EXPORT_FORMAT_CSV, &got, -1, c.start, c.end);
    EXPECT_EQ(status.code(), Status::Code::kInvalidArgument) << c.field;
    EXPECT_NE(status.message().find(c.field), std::string::npos) << status.message();
    EXPECT_TRUE(got.bytes.empty());
    EXPECT_EQ(got.span_count_calls, 0);
  }
}

}  // namespace
}  // namespace optrace::daemon
