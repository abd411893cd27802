// Ingest from a process's first op (issue 14): the start-up handshake, the
// wake-ups of a sleeping drain thread, and what happens when no daemon, or
// a stuck one, is there; and what a batch the database refuses costs. A
// real optraced, real producer processes, the daemon's counters over its
// real gRPC socket, its real SQLite file.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon_process.h"
#include "model/session_record.h"
#include "optrace/v1/optrace.grpc.pb.h"
#include "producer_report.h"
#include "storage/span_reader.h"
#include "storage/sqlite_connection.h"
#include "subprocess.h"
#include "temp_folder.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using daemon::SessionRecord;
using daemon::SessionState;
using testing::DaemonProcess;
using testing::DoneCounts;
using testing::Subprocess;
using testing::WaitUntil;

constexpr const char* kNoAttachMessage = "no daemon attached";

std::unique_ptr<Subprocess> StartProducer(std::vector<std::string> args,
                                          std::map<std::string, std::string> env = {}) {
  std::vector<std::string> argv = {OPTRACE_TEST_PRODUCER};
  argv.insert(argv.end(), args.begin(), args.end());
  env.emplace("OPTRACE_LEVEL", "trace");
  return std::make_unique<Subprocess>(argv, env);
}

class IngestTest : public ::testing::Test {
 protected:
  testing::TempFolder folder_;
  DaemonProcess daemon_{folder_.path()};

  // The stored session of process `pid` once its end is committed.
  std::optional<SessionRecord> WaitForEnd(uint32_t pid) {
    std::optional<SessionRecord> found;
    WaitUntil(
        [&] {
          auto reader = daemon::SpanReader::Open(daemon_.db_path());
          if (!reader.ok()) return false;
          auto sessions = reader.value()->ListSessions();
          if (!sessions.ok()) return false;
          for (const SessionRecord& r : sessions.value()) {
            if (r.pid == pid && r.state != SessionState::kRunning) found = r;
          }
          return found.has_value();
        },
        30s);
    return found;
  }

  std::unique_ptr<v1::OpTrace::Stub> Stub() {
    return v1::OpTrace::NewStub(
        grpc::CreateChannel("unix:" + daemon_.socket_path(), grpc::InsecureChannelCredentials()));
  }

  v1::GetStatusResponse StatusReport() {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 10s);
    v1::GetStatusResponse status;
    EXPECT_TRUE(Stub()->GetStatus(&ctx, v1::GetStatusRequest(), &status).ok());
    return status;
  }

  // One of the daemon's GetStatus counters.
  uint64_t Counter(const std::string& name) {
    const v1::GetStatusResponse status = StatusReport();
    auto it = status.counters().find(name);
    EXPECT_NE(it, status.counters().end()) << "no counter " << name;
    return it == status.counters().end() ? 0 : it->second;
  }
};

// The producer's two ops per iteration, plus the "start" op it opens with.
uint64_t EventsOf(const std::map<std::string, uint64_t>& done) {
  return done.at("launches") + done.at("completes");
}

TEST_F(IngestTest, RecordsFromFirstOp_RateDaemonSustains_NothingLost) {
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  // 50,000 events/s from the first op into the default 16384-event ring: a
  // wake at half full leaves the daemon 160 ms to answer, ample even on a
  // loaded machine. The handshake must have seen the daemon attach before
  // the first op (no message).
  auto producer = StartProducer({"--ops", "5000", "--rate", "25000"});
  ASSERT_TRUE(producer->Wait(60s).has_value());
  const auto done = DoneCounts(*producer);
  ASSERT_FALSE(done.empty()) << producer->stderr_text();
  EXPECT_EQ(producer->stderr_text().find(kNoAttachMessage), std::string::npos);
  EXPECT_EQ(done.at("ring_full"), 0u);
  const auto record = WaitForEnd(static_cast<uint32_t>(producer->pid()));
  ASSERT_TRUE(record.has_value()) << daemon_.log();
  EXPECT_EQ(record->events, EventsOf(done));
  EXPECT_EQ(record->spans, done.at("launches"));
  EXPECT_EQ(record->dropped_ring_full + record->dropped_shed + record->dropped_invalid, 0u);
}

TEST_F(IngestTest, RingPastWatermark_SleepingDaemon_WokenAndEverythingAccounted) {
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  auto producer = StartProducer({"--wait-stdin", "--ops", "50000"});
  // The segment line comes after the first op, hence after the attach.
  ASSERT_TRUE(producer->WaitForLine("segment=", 20s).has_value()) << producer->stderr_text();
  // Idle for a while: the drain thread backs off and sleeps.
  std::this_thread::sleep_for(300ms);
  const uint64_t wakes_before = Counter("producer_wakeups");
  producer->WriteStdin("go\n");
  ASSERT_TRUE(producer->Wait(60s).has_value());
  const auto done = DoneCounts(*producer);
  ASSERT_FALSE(done.empty()) << producer->stderr_text();
  const auto record = WaitForEnd(static_cast<uint32_t>(producer->pid()));
  ASSERT_TRUE(record.has_value()) << daemon_.log();
  // 200,000 events back to back cross the watermark of the 16384-event
  // ring while the daemon sleeps between passes.
  EXPECT_GT(Counter("producer_wakeups"), wakes_before);
  EXPECT_EQ(record->events + record->dropped_ring_full, EventsOf(done));
  EXPECT_EQ(record->dropped_ring_full, done.at("ring_full"));
}

TEST_F(IngestTest, NoDaemon_ProducerNeverWaits) {
  // A wait would take 10 s; the producer must be done long before.
  auto producer = StartProducer({"--ops", "1000"}, {{"OPTRACE_ATTACH_TIMEOUT_MS", "10000"}});
  const auto status = producer->Wait(5s);
  ASSERT_TRUE(status.has_value()) << "the producer waited without a daemon";
  EXPECT_TRUE(status->exited && status->code == 0);
  EXPECT_EQ(producer->stderr_text().find(kNoAttachMessage), std::string::npos);
}

TEST_F(IngestTest, DeadDaemonsControlSegment_ProducerNeverWaits) {
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  daemon_.Kill();  // SIGKILL leaves its control segment behind
  auto producer = StartProducer({"--ops", "1000"}, {{"OPTRACE_ATTACH_TIMEOUT_MS", "10000"}});
  const auto status = producer->Wait(5s);
  ASSERT_TRUE(status.has_value()) << "the producer waited for a dead daemon";
  EXPECT_TRUE(status->exited && status->code == 0);
  EXPECT_EQ(producer->stderr_text().find(kNoAttachMessage), std::string::npos);
}

TEST_F(IngestTest, StoppedDaemon_WaitBoundedThenRunsOnCountingDrops) {
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  ASSERT_EQ(::kill(daemon_.pid(), SIGSTOP), 0);
  // 80,000 events into one 16384-event ring that nobody drains.
  auto producer = StartProducer({"--ops", "20000"}, {{"OPTRACE_ATTACH_TIMEOUT_MS", "300"}});
  const auto status = producer->Wait(30s);
  ::kill(daemon_.pid(), SIGCONT);
  ASSERT_TRUE(status.has_value()) << "the start-up wait was not bounded";
  EXPECT_TRUE(status->exited && status->code == 0);
  EXPECT_NE(producer->stderr_text().find(kNoAttachMessage), std::string::npos)
      << producer->stderr_text();
  const auto done = DoneCounts(*producer);
  ASSERT_FALSE(done.empty());
  EXPECT_GT(done.at("ring_full"), 0u);
  // Continued, the daemon ingests what the ring kept and the drop count.
  const auto record = WaitForEnd(static_cast<uint32_t>(producer->pid()));
  ASSERT_TRUE(record.has_value()) << daemon_.log();
  EXPECT_EQ(record->dropped_ring_full, done.at("ring_full"));
  EXPECT_EQ(record->events + record->dropped_ring_full, EventsOf(done));
}

// Lossless mode (OPTRACE_FULL_RING=wait). The daemon is stopped only after
// it has attached (the "segment=" line comes after the first op, hence
// after the handshake), so that the producer knows a daemon is there.
TEST_F(IngestTest, Lossless_DaemonPausedMidBurst_ProducerWaitsNothingDropped) {
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  // 100,000 events into a 64-event ring: full within microseconds of the pause.
  auto producer = StartProducer({"--wait-stdin", "--ops", "50000"},
                                {{"OPTRACE_FULL_RING", "wait"},
                                 {"OPTRACE_RING_CAPACITY", "64"},
                                 {"OPTRACE_FULL_RING_TIMEOUT_MS", "60000"}});
  ASSERT_TRUE(producer->WaitForLine("segment=", 20s).has_value()) << producer->stderr_text();
  ASSERT_EQ(::kill(daemon_.pid(), SIGSTOP), 0);
  producer->WriteStdin("go\n");
  std::this_thread::sleep_for(300ms);
  ASSERT_EQ(::kill(daemon_.pid(), SIGCONT), 0);
  ASSERT_TRUE(producer->Wait(60s).has_value());
  const auto done = DoneCounts(*producer);
  ASSERT_FALSE(done.empty()) << producer->stderr_text();
  EXPECT_EQ(done.at("ring_full"), 0u);
  const auto record = WaitForEnd(static_cast<uint32_t>(producer->pid()));
  ASSERT_TRUE(record.has_value()) << daemon_.log();
  EXPECT_EQ(record->events, EventsOf(done));
  EXPECT_EQ(record->dropped_ring_full, 0u);
  EXPECT_EQ(record->full_ring_wait_timeouts, 0u);
  // The ring was full for as long as the daemon was stopped.
  EXPECT_GT(record->full_ring_wait_ns, 0u);
}

TEST_F(IngestTest, Lossless_StoppedDaemon_WaitRunsOutThenDropsCounted) {
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  // 40,000 events into one 16384-event ring that nobody drains.
  auto producer =
      StartProducer({"--wait-stdin", "--ops", "20000"},
                    {{"OPTRACE_FULL_RING", "wait"}, {"OPTRACE_FULL_RING_TIMEOUT_MS", "100"}});
  ASSERT_TRUE(producer->WaitForLine("segment=", 20s).has_value()) << producer->stderr_text();
  ASSERT_EQ(::kill(daemon_.pid(), SIGSTOP), 0);
  producer->WriteStdin("go\n");
  const auto status = producer->Wait(30s);
  ::kill(daemon_.pid(), SIGCONT);
  ASSERT_TRUE(status.has_value()) << "the lossless wait was not bounded";
  EXPECT_TRUE(status->exited && status->code == 0);
  const auto done = DoneCounts(*producer);
  ASSERT_FALSE(done.empty()) << producer->stderr_text();
  EXPECT_GT(done.at("ring_full"), 0u);
  const auto record = WaitForEnd(static_cast<uint32_t>(producer->pid()));
  ASSERT_TRUE(record.has_value()) << daemon_.log();
  // One wait ran out; the ring did not wait again while the daemon had not
  // read, so the rest dropped at once, each counted.
  EXPECT_EQ(record->full_ring_wait_timeouts, 1u);
  EXPECT_GE(record->full_ring_wait_ns, 100'000'000u);
  EXPECT_EQ(record->dropped_ring_full, done.at("ring_full"));
  EXPECT_EQ(record->events + record->dropped_ring_full, EventsOf(done));
}

TEST_F(IngestTest, Lossless_NoDaemon_ProducerNeverWaits) {
  // A wait would take a minute; the producer must be done long before.
  auto producer = StartProducer({"--ops", "20000"}, {{"OPTRACE_FULL_RING", "wait"},
                                                     {"OPTRACE_FULL_RING_TIMEOUT_MS", "60000"},
                                                     {"OPTRACE_ATTACH_TIMEOUT_MS", "0"}});
  const auto status = producer->Wait(30s);
  ASSERT_TRUE(status.has_value()) << "the producer waited without a daemon";
  EXPECT_TRUE(status->exited && status->code == 0);
  const auto done = DoneCounts(*producer);
  ASSERT_FALSE(done.empty()) << producer->stderr_text();
  EXPECT_GT(done.at("ring_full"), 0u);
}

TEST_F(IngestTest, Lossless_UnknownModeOrTimeout_NamedOnStderrDefaultsUsed) {
  auto producer = StartProducer({"--ops", "10"}, {{"OPTRACE_FULL_RING", "sometimes"},
                                                  {"OPTRACE_FULL_RING_TIMEOUT_MS", "0"},
                                                  {"OPTRACE_ATTACH_TIMEOUT_MS", "0"}});
  const auto status = producer->Wait(30s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->exited && status->code == 0);
  EXPECT_NE(producer->stderr_text().find(
                "optrace: OPTRACE_FULL_RING=sometimes is not wait or drop; using drop"),
            std::string::npos)
      << producer->stderr_text();
  EXPECT_NE(producer->stderr_text().find("optrace: OPTRACE_FULL_RING_TIMEOUT_MS=0 is not a number "
                                         "in [1, 60000]; using 1000"),
            std::string::npos)
      << producer->stderr_text();
}

TEST_F(IngestTest, DatabaseRefusesABatch_LossInTheSessionsDropsNamesKeptSegmentGoesOnlyOnceEnded) {
  // A database that refuses one op's aggregates, and with them the whole
  // batch that carries that op: a constraint of SQLite's own, added while
  // no daemon runs.
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  ASSERT_EQ(daemon_.Stop(), 0);
  {
    auto db = daemon::SqliteConnection::Open(daemon_.db_path(),
                                             daemon::SqliteOpenMode::kReadWriteCreate, 1000);
    ASSERT_TRUE(db.ok()) << db.status().message();
    const optrace::Status created = db.value()->Exec(
        "CREATE TRIGGER refuse_poison BEFORE INSERT ON op_aggregates WHEN NEW.name IN "
        "(SELECT id FROM strings WHERE text = 'poison_op') BEGIN "
        "SELECT RAISE(ABORT, 'refused by the test'); END");
    ASSERT_TRUE(created.ok()) << created.message();
  }
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();

  // Its last op is the refused one, which it runs right before it exits.
  auto victim = StartProducer({"--ops", "100", "--tagged", "poison_op", "t"});
  const auto segment_line = victim->WaitForLine("segment=", 20s);
  ASSERT_TRUE(segment_line.has_value()) << victim->stderr_text();
  const std::string segment = "/dev/shm/" + segment_line->substr(std::string("segment=").size());
  ASSERT_TRUE(victim->Wait(30s).has_value());
  const auto done = DoneCounts(*victim);
  ASSERT_FALSE(done.empty()) << victim->stderr_text();
  ASSERT_TRUE(WaitUntil([&] { return Counter("batches_dropped") >= 1; }, 30s)) << daemon_.log();

  // A second process runs the same ops, whose names were interned for the
  // refused batch: its own batches carry only their ids.
  auto witness = StartProducer({"--ops", "50"});
  ASSERT_TRUE(witness->Wait(30s).has_value());
  const auto witness_record = WaitForEnd(static_cast<uint32_t>(witness->pid()));
  ASSERT_TRUE(witness_record.has_value()) << daemon_.log();

  // The victim's segment goes only once its end is stored.
  ASSERT_TRUE(WaitUntil([&] { return ::access(segment.c_str(), F_OK) != 0; }, 30s))
      << segment << " was never removed";
  auto reader = daemon::SpanReader::Open(daemon_.db_path());
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  std::optional<SessionRecord> victim_record;
  auto sessions = reader.value()->ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status().message();
  for (const SessionRecord& r : sessions.value()) {
    if (r.pid == static_cast<uint32_t>(victim->pid())) victim_record = r;
  }
  ASSERT_TRUE(victim_record.has_value()) << "segment removed, session never stored";
  EXPECT_EQ(victim_record->state, SessionState::kExited) << "segment removed while running";

  // Every event the victim wrote is stored or counted in its own drops.
  auto db =
      daemon::SqliteConnection::Open(daemon_.db_path(), daemon::SqliteOpenMode::kReadOnly, 1000);
  ASSERT_TRUE(db.ok()) << db.status().message();
  const auto stored_spans = db.value()->QueryInt64(
      "SELECT coalesce(sum(span_count), 0) FROM span_pages "
      "WHERE session_id = " +
      std::to_string(victim_record->id));
  ASSERT_TRUE(stored_spans.ok()) << stored_spans.status().message();
  EXPECT_GT(victim_record->dropped_shed, 0u) << "the refused batch is the session's loss";
  EXPECT_EQ(victim_record->events, EventsOf(done));
  EXPECT_EQ(2 * static_cast<uint64_t>(stored_spans.value()) + victim_record->dropped_shed,
            EventsOf(done))
      << "stored " << stored_spans.value() << " spans, dropped " << victim_record->dropped_shed;

  // GetSession (optrace sessions show) and GetStatus (optrace status) say so.
  grpc::ClientContext session_context;
  v1::GetSessionRequest session_request;
  session_request.set_session_id(victim_record->id);
  v1::GetSessionResponse session;
  ASSERT_TRUE(Stub()->GetSession(&session_context, session_request, &session).ok());
  EXPECT_EQ(session.session().drops().shed(), victim_record->dropped_shed);
  EXPECT_GE(session.session().drops().total(), victim_record->dropped_shed);
  const v1::GetStatusResponse status = StatusReport();
  EXPECT_GE(status.all_sessions_drops().shed(), victim_record->dropped_shed);
  const auto counter = [&](const std::string& name) {
    const auto it = status.counters().find(name);
    return it == status.counters().end() ? uint64_t{0} : it->second;
  };
  EXPECT_EQ(counter("events_refused"), victim_record->dropped_shed);
  EXPECT_EQ(counter("batches_dropped"), 1u);

  // The witness's spans have their names.
  grpc::ClientContext ops_context;
  v1::QueryOpsRequest ops_request;
  ops_request.set_session_id(witness_record->id);
  ops_request.set_limit(100000);
  auto ops = Stub()->QueryOps(&ops_context, ops_request);
  v1::QueryOpsResponse page;
  uint64_t named = 0;
  uint64_t spans = 0;
  while (ops->Read(&page)) {
    for (const v1::Span& span : page.spans()) {
      ++spans;
      if (!span.name().empty()) ++named;
    }
  }
  ASSERT_TRUE(ops->Finish().ok());
  EXPECT_EQ(spans, witness_record->spans);
  EXPECT_EQ(named, spans) << "names that came with the refused batch are stored with a later one";
}

}  // namespace
}  // namespace optrace
