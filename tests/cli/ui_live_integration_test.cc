// `optrace ui`'s live stream (/api/live) and comparison (/api/diff)
// against a real optraced and real producers, spoken to byte by byte over
// loopback sockets: the event stream's access rules and errors, the
// producer's ops arriving as `optrace tail --json` items, the daemon's
// Tail cancelled when the page goes away or stops reading, and the diff
// endpoint answering what `optrace diff --json` prints.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli_harness.h"
#include "http_exchange.h"
#include "ui/event_stream_client.h"
#include "ui/ui_process.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;
using optrace::testing::HttpGet;
using optrace::testing::HttpReply;
using optrace::testing::Subprocess;

// The resident memory of process `pid` in KiB (VmRSS); 0 when unknown.
uint64_t ResidentKib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6));
  }
  return 0;
}

// The header `name` (lower case) of `reply`; "" when absent.
std::string HeaderOf(const HttpReply& reply, const std::string& name) {
  const auto found = reply.headers.find(name);
  return found == reply.headers.end() ? "" : found->second;
}

class UiLiveTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    runtime_ = folder_.path() + "/runtime";
    ASSERT_EQ(::mkdir(runtime_.c_str(), 0700), 0);
    ui_ = std::make_unique<UiProcess>(daemon_.socket_path(), runtime_);
    ASSERT_TRUE(ui_->ok()) << ui_->process().stderr_text();
    bearer_ = "Authorization: Bearer " + ui_->token() + "\r\n";
  }

  // An event stream of `target` with the token.
  std::unique_ptr<EventStreamClient> OpenStream(const std::string& target, int receive_buffer = 0) {
    return std::make_unique<EventStreamClient>(ui_->port(), target, ui_->host(), bearer_,
                                               receive_buffer);
  }

  // Polls `optrace status --json` (up to `timeout`) until it counts `tails`.
  bool WaitForTailsWithin(uint32_t tails, std::chrono::milliseconds timeout) {
    return optrace::testing::WaitUntil(
        [&] {
          const CliRun run = Cli({"status", "--json"});
          return run.exit_code == 0 && nlohmann::json::parse(run.out)["tails"] == tails;
        },
        timeout);
  }

  std::string runtime_;
  std::unique_ptr<UiProcess> ui_;
  std::string bearer_;
};

TEST_F(UiLiveTest, NoCredentials_EventStreamRefused) {
  const std::string accept = "Accept: text/event-stream\r\n";
  const HttpReply none = HttpGet(ui_->port(), "/api/live", ui_->host(), accept);
  EXPECT_EQ(none.status, 401) << none.raw;
  EXPECT_EQ(none.raw.find("event:"), std::string::npos) << none.raw;
  EXPECT_EQ(HeaderOf(none, "content-type").find("text/event-stream"), std::string::npos);
  const HttpReply wrong =
      HttpGet(ui_->port(), "/api/live?session=1", ui_->host(),
              accept + "Authorization: Bearer " + std::string(64, '0') + "\r\n");
  EXPECT_EQ(wrong.status, 401) << wrong.raw;
  const HttpReply foreign = HttpGet(ui_->port(), "/api/live", "evil.example", accept + bearer_);
  EXPECT_EQ(foreign.status, 403) << foreign.raw;
  EXPECT_EQ(foreign.raw.find("event:"), std::string::npos) << foreign.raw;
  EXPECT_TRUE(WaitForTails(0)) << "a refused request opened a Tail";
}

TEST_F(UiLiveTest, BadFilterOrUnknownSession_JsonErrorBeforeAnyEvent) {
  const HttpReply level = HttpGet(ui_->port(), "/api/live?level=loud", ui_->host(), bearer_);
  EXPECT_EQ(level.status, 400) << level.raw;
  EXPECT_NE(level.body.find("level=loud"), std::string::npos) << level.body;
  const HttpReply target = HttpGet(ui_->port(), "/api/live?target=tpu", ui_->host(), bearer_);
  EXPECT_EQ(target.status, 400) << target.raw;
  const HttpReply session = HttpGet(ui_->port(), "/api/live?session=987654", ui_->host(), bearer_);
  EXPECT_EQ(session.status, 404) << session.raw;
  EXPECT_NE(session.body.find("987654"), std::string::npos) << session.body;
  EXPECT_EQ(HeaderOf(session, "content-type"), "application/json");
}

TEST_F(UiLiveTest, RunningProducer_ItsOpsArriveAsTailJsonItems) {
  auto producer =
      StartTestProducer({"--forever", "--rate", "200"}, {{"OPTRACE_SESSION", "live-api"}});
  const nlohmann::json session = WaitForSession(static_cast<uint32_t>(producer->pid()), false);
  ASSERT_TRUE(session.is_object());
  const std::string id = std::to_string(session["id"].get<uint64_t>());
  auto stream = OpenStream("/api/live?session=" + id);
  ASSERT_TRUE(stream->ReadUntil("event: start", 20s)) << stream->text();
  EXPECT_NE(stream->text().find("Content-Type: text/event-stream"), std::string::npos)
      << stream->text();
  EXPECT_NE(stream->text().find("\"max_items\":200"), std::string::npos) << stream->text();
  ASSERT_TRUE(stream->ReadUntil("\"name\":\"inner\"", 30s)) << stream->text();
  ASSERT_TRUE(stream->ReadUntil("\"name\":\"outer\"", 30s)) << stream->text();
  // A batch's totals follow its items: the batch may still be arriving.
  ASSERT_TRUE(stream->ReadUntil("\"totals\":{", 30s)) << stream->text();
  const std::string& text = stream->text();
  EXPECT_NE(text.find("event: batch"), std::string::npos);
  EXPECT_NE(text.find("\"session_id\":" + id), std::string::npos);
  EXPECT_NE(text.find("\"label\":\"live-api\""), std::string::npos);
  producer->Kill(SIGTERM);
}

TEST_F(UiLiveTest, SpansAndNameFilter_OnlyMatchingSpans) {
  auto producer = StartTestProducer({"--forever", "--rate", "200"});
  const nlohmann::json session = WaitForSession(static_cast<uint32_t>(producer->pid()), false);
  ASSERT_TRUE(session.is_object());
  auto stream =
      OpenStream("/api/live?spans=1&name=%5Einner%24&pid=" + std::to_string(producer->pid()));
  ASSERT_TRUE(stream->ReadUntil("event: start", 20s)) << stream->text();
  // Enough spans that an op the filters drop would have come among them.
  ASSERT_TRUE(stream->ReadUntil("\"type\":\"span\"", 30s, 50)) << stream->text();
  const std::string& text = stream->text();
  EXPECT_NE(text.find("\"type\":\"span\""), std::string::npos) << text;
  EXPECT_EQ(text.find("\"type\":\"event\""), std::string::npos) << "an event in a spans stream";
  EXPECT_EQ(text.find("\"name\":\"outer\""), std::string::npos) << "an op the filter drops";
  producer->Kill(SIGTERM);
}

TEST_F(UiLiveTest, PageGoesAway_TailCancelled) {
  auto stream = OpenStream("/api/live");
  ASSERT_TRUE(stream->ReadUntil("event: start", 20s)) << stream->text();
  ASSERT_TRUE(WaitForTails(1)) << "the page's stream is one Tail of the daemon";
  stream.reset();  // the page closes
  EXPECT_TRUE(WaitForTails(0)) << "the Tail outlived its page";
}

TEST_F(UiLiveTest, FifthStream_503WhileFourAreOpen) {
  std::vector<std::unique_ptr<EventStreamClient>> open;
  for (int i = 0; i < 4; ++i) {
    open.push_back(OpenStream("/api/live"));
    ASSERT_TRUE(open.back()->ReadUntil("event: start", 20s)) << i << open.back()->text();
  }
  const HttpReply fifth = HttpGet(ui_->port(), "/api/live", ui_->host(), bearer_);
  EXPECT_EQ(fifth.status, 503) << fifth.raw;
  // The pages still answer while the streams hold their threads.
  EXPECT_EQ(HttpGet(ui_->port(), "/api/sessions", ui_->host(), bearer_).status, 200);
  open.pop_back();
  EXPECT_TRUE(WaitForTails(3));
  auto again = OpenStream("/api/live");
  EXPECT_TRUE(again->ReadUntil("event: start", 20s)) << "a closed stream's place is free again";
}

TEST_F(UiLiveTest, Malicious_PageNeverReadsUnderLoad_StreamEndsAndUiStaysSmall) {
  Subprocess load({OPTRACE_LOAD, "--threads", "1", "--rate", "0", "--seconds", "120"},
                  {{"OPTRACE_LEVEL", "trace"}});
  const nlohmann::json session = WaitForSession(static_cast<uint32_t>(load.pid()), false);
  ASSERT_TRUE(session.is_object());
  const uint64_t before_kib = ResidentKib(ui_->process().pid());
  // A page that reads its headers, then nothing: its socket's buffers
  // fill, the server's writes wait, and the I/O timeout ends the stream.
  auto stalled = OpenStream("/api/live", 4096);
  ASSERT_TRUE(stalled->ReadUntil("event: start", 20s)) << stalled->text();
  ASSERT_TRUE(WaitForTails(1));
  uint64_t most_kib = 0;
  const bool ended = optrace::testing::WaitUntil(
      [&] {
        most_kib = std::max(most_kib, ResidentKib(ui_->process().pid()));
        const CliRun run = Cli({"status", "--json"});
        return run.exit_code == 0 && nlohmann::json::parse(run.out)["tails"] == 0;
      },
      120s);
  EXPECT_TRUE(ended) << "the stalled page's Tail was never cancelled";
  // The relay holds one period's 200 items at most, whatever the rate:
  // the process grows by its threads' stacks and buffers, not by the load.
  EXPECT_LT(most_kib, before_kib + 32 * 1024) << "before " << before_kib << " KiB";
  load.Kill(SIGKILL);
}

TEST_F(UiLiveTest, DiffEndpoint_AnswersWhatDiffJsonPrints) {
  const ProducerRun a = Produce({"--ops", "30"}, "diff-a");
  const ProducerRun b = Produce({"--steps", "4"}, "diff-b");
  ASSERT_NE(a.session_id, 0u);
  ASSERT_NE(b.session_id, 0u);
  const std::string ids = std::to_string(a.session_id) + "/" + std::to_string(b.session_id);
  for (const std::string by : {"name", "tag"}) {
    const HttpReply reply =
        HttpGet(ui_->port(), "/api/diff/" + ids + "?by=" + by, ui_->host(), bearer_);
    ASSERT_EQ(reply.status, 200) << reply.raw;
    const CliRun cli = Cli(
        {"diff", std::to_string(a.session_id), std::to_string(b.session_id), "--by", by, "--json"});
    ASSERT_EQ(cli.exit_code, 0) << cli.err;
    EXPECT_EQ(nlohmann::json::parse(reply.body), nlohmann::json::parse(cli.out)) << by;
  }
  const HttpReply missing = HttpGet(
      ui_->port(), "/api/diff/" + std::to_string(a.session_id) + "/987654", ui_->host(), bearer_);
  EXPECT_EQ(missing.status, 404) << missing.raw;
  EXPECT_NE(missing.body.find("987654"), std::string::npos) << missing.body;
  const HttpReply bad_by =
      HttpGet(ui_->port(), "/api/diff/" + ids + "?by=target", ui_->host(), bearer_);
  EXPECT_EQ(bad_by.status, 400) << bad_by.raw;
  const HttpReply no_token = HttpGet(ui_->port(), "/api/diff/" + ids, ui_->host());
  EXPECT_EQ(no_token.status, 401) << no_token.raw;
}

}  // namespace
}  // namespace optrace::cli::testing
