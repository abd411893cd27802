// `optrace ui` against a real optraced with a real producer, spoken to as
// a browser would, byte by byte over a loopback socket: the access rules
// (no token, a foreign Host, the token exchange) and the JSON API.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli_harness.h"
#include "http_exchange.h"
#include "perfetto_trace_reader.h"
#include "ui/ui_process.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;
using optrace::testing::DecodeChunkedBody;
using optrace::testing::HttpGet;
using optrace::testing::HttpReply;

class UiTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    runtime_ = folder_.path() + "/runtime";
    ASSERT_EQ(::mkdir(runtime_.c_str(), 0700), 0);
  }

  std::string runtime_;
};

TEST_F(UiTest, NoToken_RefusedWithNoData) {
  const ProducerRun p = Produce({"--ops", "20"});
  ASSERT_NE(p.session_id, 0u);
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();
  const std::string session = std::to_string(p.session_id);
  for (const std::string& target : std::vector<std::string>{
           "/", "/api/sessions", "/api/sessions/" + session, "/assets/app.js", "/session/1"}) {
    const HttpReply reply = HttpGet(ui.port(), target, ui.host());
    EXPECT_EQ(reply.status, 401) << target << "\n" << reply.raw;
    EXPECT_EQ(reply.body.find("optrace-test-producer"), std::string::npos) << target;
    EXPECT_EQ(reply.headers.count("set-cookie"), 0u) << target;
  }
  const HttpReply wrong =
      HttpGet(ui.port(), "/api/sessions", ui.host(), "Cookie: optrace_ui_x=" + ui.token() + "\r\n");
  EXPECT_EQ(wrong.status, 401) << "the token under another cookie's name";
  const HttpReply guessed = HttpGet(ui.port(), "/?token=" + std::string(64, '0'), ui.host());
  EXPECT_EQ(guessed.status, 401) << guessed.raw;
}

TEST_F(UiTest, ForeignHost_Refused_AnyLoopbackPortServed) {
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();
  const std::string bearer = "Authorization: Bearer " + ui.token() + "\r\n";
  for (const char* host :
       {"evil.example", "evil.example:80", "127.0.0.1.evil.example", "10.0.0.1"}) {
    const HttpReply reply = HttpGet(ui.port(), "/api/sessions", host, bearer);
    EXPECT_EQ(reply.status, 403) << host << "\n" << reply.raw;
    EXPECT_EQ(reply.body.find("sessions\""), std::string::npos) << host;
  }
  const HttpReply no_host = optrace::testing::ParseHttpReply(
      optrace::testing::Exchange(ui.port(), "GET /api/sessions HTTP/1.0\r\n" + bearer + "\r\n"));
  EXPECT_EQ(no_host.status, 403) << no_host.raw;
  // An ssh -L tunnel: another port of a loopback name.
  for (const char* host : {"localhost:18090", "[::1]:9", "127.0.0.1"}) {
    EXPECT_EQ(HttpGet(ui.port(), "/api/sessions", host, bearer).status, 200) << host;
  }
}

TEST_F(UiTest, TokenExchange_StrictCookieAndRedirect_ThenTheApiAnswers) {
  const ProducerRun p = Produce({"--ops", "30"});
  ASSERT_NE(p.session_id, 0u);
  const std::string id = std::to_string(p.session_id);
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();

  const HttpReply exchange =
      HttpGet(ui.port(), "/session/" + id + "?token=" + ui.token() + "&by=tag", ui.host());
  ASSERT_EQ(exchange.status, 303) << exchange.raw;
  EXPECT_EQ(exchange.headers.at("location"), "/session/" + id + "?by=tag");
  const std::string cookie = exchange.headers.at("set-cookie");
  EXPECT_NE(cookie.find("; HttpOnly"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("; SameSite=Strict"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("; Path=/"), std::string::npos) << cookie;
  EXPECT_EQ(exchange.body, "");
  const std::string cookie_header = "Cookie: " + cookie.substr(0, cookie.find(';')) + "\r\n";

  const HttpReply sessions = HttpGet(ui.port(), "/api/sessions", ui.host(), cookie_header);
  ASSERT_EQ(sessions.status, 200) << sessions.raw;
  EXPECT_EQ(sessions.headers.at("content-type"), "application/json");
  EXPECT_EQ(sessions.headers.count("access-control-allow-origin"), 0u);
  EXPECT_NE(sessions.headers.at("content-security-policy").find("default-src 'none'"),
            std::string::npos);
  bool listed = false;
  for (const auto& s : JsonMember(sessions.body, "sessions")) {
    listed = listed || s.at("id") == p.session_id;
  }
  EXPECT_TRUE(listed) << sessions.body;

  const HttpReply stats =
      HttpGet(ui.port(), "/api/sessions/" + id + "/stats", ui.host(), cookie_header);
  ASSERT_EQ(stats.status, 200) << stats.raw;
  EXPECT_EQ(nlohmann::json::parse(stats.body).at("spans"), p.done.at("launches"));

  const HttpReply page = HttpGet(ui.port(), "/session/" + id, ui.host(), cookie_header);
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("/assets/app.js"), std::string::npos);
}

TEST_F(UiTest, ApiErrors_JsonWithStatus) {
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();
  const std::string bearer = "Authorization: Bearer " + ui.token() + "\r\n";
  const HttpReply missing = HttpGet(ui.port(), "/api/sessions/999999", ui.host(), bearer);
  EXPECT_EQ(missing.status, 404) << missing.raw;
  EXPECT_EQ(nlohmann::json::parse(missing.body).at("message"),
            "no session 999999; see optrace sessions");
  const HttpReply bad = HttpGet(ui.port(), "/api/sessions/1/stats?by=color", ui.host(), bearer);
  EXPECT_EQ(bad.status, 400) << bad.raw;
  EXPECT_NE(nlohmann::json::parse(bad.body).at("message").get<std::string>().find("by=color"),
            std::string::npos);
  EXPECT_EQ(HttpGet(ui.port(), "/api/sessions?limit=-1", ui.host(), bearer).status, 400);
  EXPECT_EQ(HttpGet(ui.port(), "/api/nothing", ui.host(), bearer).status, 404);

  // No daemon any more: 503, and the server goes on.
  ASSERT_EQ(daemon_.Stop(), 0);
  const HttpReply gone = HttpGet(ui.port(), "/api/sessions", ui.host(), bearer);
  EXPECT_EQ(gone.status, 503) << gone.raw;
  EXPECT_NE(nlohmann::json::parse(gone.body).at("message").get<std::string>().find("no daemon"),
            std::string::npos);
}

TEST_F(UiTest, TimelineEndpoint_WholeSessionThenARangeAndBadParametersNamed) {
  const ProducerRun p = Produce({"--steps", "3"});
  ASSERT_NE(p.session_id, 0u);
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();
  const std::string bearer = "Authorization: Bearer " + ui.token() + "\r\n";
  const std::string base = "/api/sessions/" + std::to_string(p.session_id) + "/timeline";
  const HttpReply whole = HttpGet(ui.port(), base + "?width=800", ui.host(), bearer);
  ASSERT_EQ(whole.status, 200) << whole.raw;
  const nlohmann::json t = nlohmann::json::parse(whole.body);
  EXPECT_EQ(t.at("width"), 800);
  EXPECT_EQ(t.at("spans"), p.done.at("launches"));
  EXPECT_EQ(t.at("strings").at(0), "");
  uint64_t listed = 0;
  int64_t step_start = 0, step_ns = 0;
  // Spans are arrays in the order of span_fields.
  const nlohmann::json& fields = t.at("span_fields");
  auto field = [&](const std::string& name) {
    return static_cast<size_t>(std::find(fields.begin(), fields.end(), name) - fields.begin());
  };
  for (const nlohmann::json& lane : t.at("lanes")) {
    for (const nlohmann::json& span : lane.at("spans")) {
      ++listed;
      const std::string name = t.at("strings").at(span.at(field("name")).get<size_t>());
      if (name == "optrace.step" && step_ns == 0) {
        step_start = span.at(field("start_unix_ns"));
        step_ns = span.at(field("duration_ns"));
      }
    }
  }
  EXPECT_EQ(listed, 3u * 5) << "every step op is a pixel wide or more";
  ASSERT_GT(step_ns, 0) << whole.body;

  // The first step's time: its five spans only. Times as JSON numbers
  // lose nothing here (they are written as integers).
  const std::string range = "?from=" + std::to_string(step_start) +
                            "&to=" + std::to_string(step_start + step_ns) + "&width=100";
  const HttpReply step = HttpGet(ui.port(), base + range, ui.host(), bearer);
  ASSERT_EQ(step.status, 200) << step.raw;
  const nlohmann::json s = nlohmann::json::parse(step.body);
  EXPECT_EQ(s.at("start_unix_ns"), step_start);
  EXPECT_EQ(s.at("spans"), 5);

  for (const auto& [query, named] :
       std::vector<std::pair<std::string, std::string>>{{"?width=0", "width 0"},
                                                        {"?width=x", "width=x"},
                                                        {"?from=soon", "from=soon"},
                                                        {"?from=20&to=10", "end_unix_ns 10"}}) {
    const HttpReply bad = HttpGet(ui.port(), base + query, ui.host(), bearer);
    EXPECT_EQ(bad.status, 400) << query << " " << bad.raw;
    EXPECT_NE(nlohmann::json::parse(bad.body).at("message").get<std::string>().find(named),
              std::string::npos)
        << bad.body;
  }
  EXPECT_EQ(HttpGet(ui.port(), "/api/sessions/999999/timeline", ui.host(), bearer).status, 404);
}

// The slices of the Perfetto trace `bytes` by op id (OpSliceTimes); a
// failure for each error in it.
std::map<std::string, std::pair<int64_t, int64_t>> OpSlicesOf(const std::string& bytes) {
  const optrace::testing::PerfettoTrace trace = optrace::testing::ReadPerfettoTrace(bytes);
  for (const std::string& error : trace.errors) ADD_FAILURE() << error;
  return optrace::testing::OpSliceTimes(trace);
}

TEST_F(UiTest, ExportEndpoint_PerfettoTraceOfTheRangeOnly_RefusedWithoutCredentials) {
  const ProducerRun p = Produce({"--ops", "60"});
  ASSERT_NE(p.session_id, 0u);
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();
  const std::string bearer = "Authorization: Bearer " + ui.token() + "\r\n";
  const std::string id = std::to_string(p.session_id);
  const std::string base = "/api/sessions/" + id + "/export";

  const HttpReply whole = HttpGet(ui.port(), base, ui.host(), bearer);
  ASSERT_EQ(whole.status, 200) << whole.raw.substr(0, 2000);
  EXPECT_EQ(whole.headers.at("content-disposition"),
            "attachment; filename=\"session-" + id + ".pftrace\"");
  EXPECT_EQ(whole.headers.at("content-type"), "application/octet-stream");
  const std::optional<std::string> whole_bytes = DecodeChunkedBody(whole.body);
  ASSERT_TRUE(whole_bytes.has_value()) << whole.raw.substr(0, 2000);
  const auto all = OpSlicesOf(*whole_bytes);
  ASSERT_EQ(all.size(), p.done.at("launches"));

  // A range from just after a third of the starts to two thirds of them.
  std::vector<int64_t> starts;
  for (const auto& [op, times] : all) starts.push_back(times.first);
  std::sort(starts.begin(), starts.end());
  const int64_t from = starts[starts.size() / 3] + 1;
  const int64_t to = starts[2 * starts.size() / 3];
  const std::set<std::string> expected = optrace::testing::OpsOverlapping(all, from, to);
  ASSERT_LT(expected.size(), all.size());
  const std::string range =
      "?format=perfetto&from=" + std::to_string(from) + "&to=" + std::to_string(to);
  const HttpReply part = HttpGet(ui.port(), base + range, ui.host(), bearer);
  ASSERT_EQ(part.status, 200) << part.raw.substr(0, 2000);
  const std::optional<std::string> part_bytes = DecodeChunkedBody(part.body);
  ASSERT_TRUE(part_bytes.has_value());
  std::set<std::string> got;
  for (const auto& [op, times] : OpSlicesOf(*part_bytes)) {
    got.insert(op);
    EXPECT_EQ(times, all.at(op)) << "op " << op;
  }
  EXPECT_EQ(got, expected);

  // Without the token or cookie: refused, and not a byte of the trace.
  const HttpReply refused = HttpGet(ui.port(), base + range, ui.host());
  EXPECT_EQ(refused.status, 401) << refused.raw;
  EXPECT_EQ(refused.headers.count("content-disposition"), 0u);
  EXPECT_EQ(refused.body.find("optrace-test-producer"), std::string::npos);
  for (const auto& [query, named] : std::vector<std::pair<std::string, std::string>>{
           {"?format=pdf", "format=pdf"},
           {"?from=x&to=5", "from=x"},
           {"?from=20&to=10", "end_unix_ns 10 is not after start_unix_ns 20"},
           {"?from=20", "end_unix_ns is not set"}}) {
    const HttpReply bad = HttpGet(ui.port(), base + query, ui.host(), bearer);
    EXPECT_EQ(bad.status, 400) << query << " " << bad.raw;
    EXPECT_NE(bad.body.find(named), std::string::npos) << query << " " << bad.body;
    EXPECT_EQ(bad.headers.count("content-disposition"), 0u) << query;
  }
  EXPECT_EQ(HttpGet(ui.port(), "/api/sessions/999999/export", ui.host(), bearer).status, 404);
}

TEST_F(UiTest, TokenFile_0600WhileServing_RemovedOnCtrlC) {
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();
  const std::string path = runtime_ + "/optrace/ui-" + std::to_string(ui.port()) + ".token";
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0) << path;
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  std::ifstream file(path);
  std::string stored;
  std::getline(file, stored);
  EXPECT_EQ(stored, ui.token());
  const std::string open_page =
      runtime_ + "/optrace/ui-" + std::to_string(ui.port()) + "-open.html";
  ASSERT_EQ(::stat(open_page.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);

  ui.process().Kill(SIGINT);
  const auto status = ui.process().Wait(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->exited);
  EXPECT_EQ(status->code, 0) << ui.process().stderr_text();
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "the token file outlived the server";
  EXPECT_NE(::access(open_page.c_str(), F_OK), 0);
}

}  // namespace
}  // namespace optrace::cli::testing
