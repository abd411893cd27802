// Live fan-out and serving at scale (issue 15): stalled tails cost the
// drain nothing and memory a cursor each, one uid's flood of streams
// never locks another uid out, the per-uid caps refuse only the offender
// and name themselves, a slow tail is told exactly what it missed, and a
// client that vanishes gives its share back.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "other_uid_stage.h"
#include "reliability_harness.h"
#include "temp_folder.h"

namespace optrace::testing {
namespace {

using namespace std::chrono_literals;

// What one stalled tail may cost: its cursor and scratch, the one message
// it has in flight, and what gRPC holds for a stream whose client's
// window is full.
constexpr uint64_t kStalledTailBoundKib = 128;

// What one stalled batched tail waiting for its uid's share may cost: its
// cursor and gRPC's state of the stream, no message (a batch is up to 64
// KiB, about 110 KiB before batches had a byte bound).
constexpr uint64_t kParkedTailBoundKib = 32;

// The daemon's own memory (heap, stacks, its files' pages) beside 300
// stalled tails and a producer at 500k pairs/s. The producer's rings that
// the daemon maps are the producer's memory, counted apart (RssShmem).
constexpr uint64_t kPrivatePeakBoundKib = 128 << 10;

std::string WriteConfig(const TempFolder& folder, const std::string& text) {
  const std::string path = folder.path() + "/optraced.toml";
  std::ofstream(path) << text;
  return path;
}

// Lets other uids reach the daemon's socket: the API decides what they may.
void OpenSocketToAll(const TempFolder& folder, const DaemonProcess& daemon) {
  ASSERT_EQ(::chmod(folder.path().c_str(), 0755), 0);
  ASSERT_EQ(::chmod((folder.path() + "/run").c_str(), 0755), 0);
  ASSERT_EQ(::chmod(daemon.socket_path().c_str(), 0666), 0);
}

uint64_t Counter(const v1::GetStatusResponse& status, const std::string& name) {
  const auto it = status.counters().find(name);
  return it == status.counters().end() ? 0 : it->second;
}

// Waits until the daemon serves `tails` tails (GetStatus.tails).
bool WaitForTails(v1::OpTrace::Stub& stub, uint32_t tails, std::chrono::milliseconds timeout) {
  return WaitUntil(
      [&] {
        const auto status = DaemonStatus(stub);
        return status && status->tails() == tails;
      },
      timeout);
}

// One load run: the share of the producer's events the daemon stored.
struct LoadRun {
  uint64_t written = 0;
  uint64_t stored = 0;
  double stored_share() const {
    return written == 0 ? 0 : static_cast<double>(stored) / static_cast<double>(written);
  }
};

LoadRun RunLoad(StoreView& store, int pairs_per_second, double seconds) {
  auto load = StartLoadProducer(2, pairs_per_second, seconds,
                                {{"OPTRACE_RING_CAPACITY", std::to_string(1 << 20)}});
  LoadRun run;
  const auto exited =
      load->Wait(std::chrono::milliseconds(static_cast<int>(seconds * 1000) + 60'000));
  EXPECT_TRUE(exited.has_value());
  if (!exited) return run;
  const auto session = store.WaitForEnd(static_cast<uint32_t>(load->pid()), 30s);
  EXPECT_TRUE(session.has_value());
  if (!session) return run;
  const auto done = DoneCounts(*load);
  run.written = done.at("launches") + done.at("completes");
  run.stored = CountStored(store, session->id).events;
  return run;
}

TEST(LiveFanoutTest, StalledTails300BesideProducerAt500kPairs_DrainUnslowedRssBounded) {
  const int pairs = 500'000;
  const double seconds = Sized(3, 10);
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  const pid_t pid = DaemonPid(daemon);
  ASSERT_GT(pid, 0);
  StoreView store(daemon.db_path());
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  std::this_thread::sleep_for(500ms);
  const uint64_t idle_kib = ResidentKib(pid);

  // The same load with no tail: what the ingest side does on this machine.
  RssSampler alone_rss(pid);
  const LoadRun alone = RunLoad(store, pairs, seconds);
  alone_rss.Stop();

  const int tails = 300;
  Subprocess stalled(
      {OPTRACE_TEST_CLIENT, "stall", daemon.socket_path(), std::to_string(tails), "10"});
  ASSERT_TRUE(stalled.WaitForLine("opened", 20s).has_value()) << stalled.stderr_text();
  ASSERT_TRUE(WaitForTails(*stub, tails, 20s)) << "every stalled tail is served";
  RssSampler tailed_rss(pid);
  const LoadRun tailed = RunLoad(store, pairs, seconds);
  const auto status = DaemonStatus(*stub);
  tailed_rss.Stop();
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->tails(), static_cast<uint32_t>(tails)) << "the stalled tails stayed";
  // Memory is bounded per client: what the tails add to the peak of the
  // same load is at most a small fixed share each, however many events.
  const uint64_t tails_kib = tailed_rss.peak_kib() > alone_rss.peak_kib()
                                 ? tailed_rss.peak_kib() - alone_rss.peak_kib()
                                 : 0;
  EXPECT_LT(tails_kib, tails * kStalledTailBoundKib);
  EXPECT_LT(tailed_rss.private_peak_kib(), kPrivatePeakBoundKib)
      << "the daemon's own memory beside " << tails << " stalled tails";
  // The drain is not slowed by tails: as much is stored beside 300
  // stalled tails as with none, and all of it when the machine allows.
  EXPECT_GE(tailed.stored_share(), std::min(0.999, alone.stored_share() - 0.001))
      << "alone " << alone.stored << "/" << alone.written << ", tailed " << tailed.stored << "/"
      << tailed.written;

  stalled.Kill(SIGKILL);
  ASSERT_TRUE(WaitForTails(*stub, 0, 20s));
  uint64_t after_kib = 0;
  const bool returned = WaitUntil(
      [&] {
        after_kib = ResidentKib(pid);
        return after_kib * 2 <= idle_kib * 3;
      },
      10s);
  EXPECT_TRUE(returned) << "RSS " << (after_kib >> 10) << " MiB 10 s after the load, idle "
                        << (idle_kib >> 10) << " MiB";
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure("producer at " + std::to_string(pairs) + " pairs/s for " +
               std::to_string(static_cast<int>(seconds)) + " s: stored " +
               std::to_string(alone.stored) + "/" + std::to_string(alone.written) +
               " events with no tail, " + std::to_string(tailed.stored) + "/" +
               std::to_string(tailed.written) + " beside " + std::to_string(tails) +
               " stalled tails; RSS idle " + std::to_string(idle_kib >> 10) + " MiB, peak alone " +
               std::to_string(alone_rss.peak_kib() >> 10) + " MiB, peak with the tails " +
               std::to_string(tailed_rss.peak_kib() >> 10) +
               " MiB (the tails: " + std::to_string(tails_kib) + " KiB, bound " +
               std::to_string(tails * kStalledTailBoundKib) + "; without the rings' shared pages " +
               std::to_string(tailed_rss.private_peak_kib() >> 10) + " MiB, bound " +
               std::to_string(kPrivatePeakBoundKib >> 10) + "), " +
               std::to_string(after_kib >> 10) + " MiB after the load ended (bound 1.5x idle)");
}

TEST(LiveFanoutTest, SlowTail_DeliveredPlusSkippedEqualsPublishedExactly) {
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  StoreView store(daemon.db_path());
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  grpc::ClientContext ctx;
  auto stream = stub->Tail(&ctx, v1::TailRequest());
  std::atomic<uint64_t> delivered{0}, skipped{0}, lags{0};
  std::thread reader([&] {
    v1::TailResponse item;
    for (uint64_t n = 0; stream->Read(&item); ++n) {
      if (item.has_lag()) {
        skipped += item.lag().skipped();
        ++lags;
      } else {
        ++delivered;
      }
      // Far slower than the producer for a while: it must be overtaken.
      if (n % 200 == 0 && n < 400'000) std::this_thread::sleep_for(2ms);
    }
  });
  ASSERT_TRUE(WaitForTails(*stub, 1, 10s));
  auto load =
      StartLoadProducer(1, 200'000, 2, {{"OPTRACE_RING_CAPACITY", std::to_string(1 << 20)}});
  ASSERT_TRUE(load->Wait(60s).has_value());
  const auto session = store.WaitForEnd(static_cast<uint32_t>(load->pid()), 30s);
  ASSERT_TRUE(session.has_value());
  const uint64_t published = session->events;
  WaitUntil([&] { return delivered + skipped >= published; }, 30s);
  std::this_thread::sleep_for(300ms);  // anything more would be counted too
  ctx.TryCancel();
  reader.join();
  EXPECT_GT(lags.load(), 0u) << "the tail was overtaken";
  EXPECT_GT(delivered.load(), 0u);
  EXPECT_EQ(delivered + skipped, published)
      << "delivered " << delivered << " + skipped " << skipped << " vs published " << published;
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure("one tail of every event: " + std::to_string(published) +
               " published = " + std::to_string(delivered) + " delivered + " +
               std::to_string(skipped) + " skipped (in " + std::to_string(lags) + " lag markers)");
}

TEST(LiveFanoutTest, ThousandStreamsOfOneUid_OtherUidUnaryAlwaysAnswered) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to call as another uid";
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  OpenSocketToAll(folder, daemon);
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  // A stored session whose export is far more than a stalled client takes.
  StoreView store(daemon.db_path());
  auto stored = StartTestProducer({"--ops", "200000"});
  ASSERT_TRUE(stored->Wait(60s).has_value());
  const auto session = store.WaitForEnd(static_cast<uint32_t>(stored->pid()), 30s);
  ASSERT_TRUE(session.has_value()) << daemon.log();
  auto load = StartLoadProducer(1, 20'000, 600);
  Subprocess tails({OPTRACE_TEST_CLIENT, "stall", daemon.socket_path(), "900", "20"});
  Subprocess exports({OPTRACE_TEST_CLIENT, "stall-export", daemon.socket_path(), "100",
                      std::to_string(session->id)});
  ASSERT_TRUE(tails.WaitForLine("opened", 30s).has_value()) << tails.stderr_text();
  ASSERT_TRUE(exports.WaitForLine("opened", 30s).has_value()) << exports.stderr_text();
  ASSERT_TRUE(WaitForTails(*stub, 900, 60s))
      << "the server is not exhausted by 900 tails; now "
      << (DaemonStatus(*stub) ? DaemonStatus(*stub)->DebugString() : "no status");
  Subprocess other({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    OPTRACE_TEST_CLIENT, "status-loop", daemon.socket_path(),
                    std::to_string(Sized(5, 30))});
  ASSERT_TRUE(other.Wait(120s).has_value());
  const auto status = DaemonStatus(*stub);
  tails.Kill(SIGKILL);
  exports.Kill(SIGKILL);
  load->Kill(SIGKILL);
  const std::string out = other.stdout_text();
  EXPECT_NE(out.find("answered "), std::string::npos) << out << other.stderr_text();
  EXPECT_NE(out.find(" failed 0 "), std::string::npos) << out;
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->tails(), 900u);
  const uint64_t open = Counter(*status, "streams_open");
  EXPECT_GE(open, 900u + 1) << "stalled exports are served too, up to max_threaded_streams";
  EXPECT_LE(open, 900u + 16);
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure("900 stalled tails on 20 connections and 100 stalled exports of uid 0 (" +
               std::to_string(open - 900) +
               " exports served, the rest refused), 20k pairs/s "
               "traced; uid 65534's GetStatus loop: " +
               out.substr(0, out.find('\n')));
}

TEST(LiveFanoutTest, StreamCapPerUid_OffenderRefusedNamingTheCapOtherUidServed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to call as another uid";
  TempFolder folder;
  DaemonProcess daemon(folder.path(),
                       {"--config", WriteConfig(folder, "max_streams_per_uid = 4\n")});
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  OpenSocketToAll(folder, daemon);
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  Subprocess four({OPTRACE_TEST_CLIENT, "stall", daemon.socket_path(), "4", "1"});
  ASSERT_TRUE(four.WaitForLine("opened 4", 20s).has_value());
  ASSERT_TRUE(WaitForTails(*stub, 4, 20s));
  grpc::ClientContext ctx;
  auto fifth = stub->Tail(&ctx, v1::TailRequest());
  v1::TailResponse item;
  EXPECT_FALSE(fifth->Read(&item));
  const grpc::Status refused = fifth->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("max_streams_per_uid is 4"), std::string::npos)
      << refused.error_message();
  // Another uid is not the offender: its tail is served.
  Subprocess other({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    OPTRACE_TEST_CLIENT, "tail", daemon.socket_path()});
  EXPECT_TRUE(WaitForTails(*stub, 5, 20s));
  EXPECT_EQ(other.stdout_text().find("finished"), std::string::npos) << other.stdout_text();
  other.Kill(SIGKILL);
  four.Kill(SIGKILL);
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure("cap 4 streams per uid: the fifth of uid 0 got RESOURCE_EXHAUSTED \"" +
               refused.error_message() + "\"; uid 65534's tail was served");
}

TEST(LiveFanoutTest, BytesInFlightCap_NewStreamRefusedNamingTheCap) {
  TempFolder folder;
  DaemonProcess daemon(
      folder.path(),
      {"--config", WriteConfig(folder, "max_bytes_in_flight_per_uid = \"64KiB\"\n")});
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  auto load = StartLoadProducer(1, 50'000, 600);
  Subprocess stalled({OPTRACE_TEST_CLIENT, "stall", daemon.socket_path(), "20", "2", "batch"});
  ASSERT_TRUE(stalled.WaitForLine("opened 20", 20s).has_value());
  grpc::Status refused;
  const bool got_refused = WaitUntil(
      [&] {
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + 2s);
        auto tail = stub->Tail(&ctx, v1::TailRequest());
        v1::TailResponse item;
        if (tail->Read(&item)) {
          ctx.TryCancel();
          tail->Finish();
          return false;
        }
        refused = tail->Finish();
        return refused.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED;
      },
      30s);
  stalled.Kill(SIGKILL);
  load->Kill(SIGKILL);
  EXPECT_TRUE(got_refused) << refused.error_message();
  EXPECT_NE(refused.error_message().find("max_bytes_in_flight_per_uid is 65536"), std::string::npos)
      << refused.error_message();
  // What the stalled streams held is released with them.
  EXPECT_TRUE(WaitUntil(
      [&] {
        const auto status = DaemonStatus(*stub);
        return status && Counter(*status, "stream_bytes_in_flight") == 0 &&
               Counter(*status, "streams_open") == 0;
      },
      20s));
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure("cap 64 KiB in flight per uid, 20 stalled tails: a new tail got \"" +
               refused.error_message() + "\"");
}

TEST(LiveFanoutTest, StalledBatchedTailsOfOneUid_HeldBytesWithinItsBoundOtherUidServed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to call as another uid";
  constexpr uint64_t kBound = 64 << 10;
  constexpr int kTails = 500;
  TempFolder folder;
  DaemonProcess daemon(
      folder.path(),
      {"--config", WriteConfig(folder, "max_bytes_in_flight_per_uid = \"64KiB\"\n")});
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  OpenSocketToAll(folder, daemon);
  const pid_t pid = DaemonPid(daemon);
  ASSERT_GT(pid, 0);
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  // Opened before anything flows: a uid at its bound may open no stream.
  Subprocess stalled(
      {OPTRACE_TEST_CLIENT, "stall", daemon.socket_path(), std::to_string(kTails), "10", "batch"});
  ASSERT_TRUE(stalled.WaitForLine("opened", 30s).has_value()) << stalled.stderr_text();
  ASSERT_TRUE(WaitForTails(*stub, kTails, 30s));
  std::this_thread::sleep_for(500ms);
  const uint64_t before_kib = PrivateResidentKib(pid);
  // Every tail has a full batch to send at every moment.
  auto load = StartLoadProducer(1, 50'000, 600);
  std::this_thread::sleep_for(2s);
  // What uid 0's streams hold, as the daemon counts it and in the daemon's
  // memory, while the stalled tails have filled what their clients take.
  RssSampler rss(pid);
  uint64_t most_held = 0;
  for (int i = 0; i < 100; ++i) {
    const auto status = DaemonStatus(*stub);
    ASSERT_TRUE(status.has_value());
    most_held = std::max(most_held, Counter(*status, "stream_bytes_in_flight"));
    std::this_thread::sleep_for(20ms);
  }
  rss.Stop();
  const uint64_t stalled_kib = rss.private_peak_kib();
  // Another uid is not the offender: its tail is served its own events.
  OtherUidStage stage;
  Subprocess other_load(
      stage.Command(OPTRACE_LOAD, {"--threads", "1", "--rate", "1000", "--seconds", "600"}),
      {{"OPTRACE_LEVEL", "trace"}});
  Subprocess other({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    OPTRACE_TEST_CLIENT, "tail", daemon.socket_path()});
  const bool served = other.WaitForLine("event ", 20s).has_value();
  other.Kill(SIGKILL);
  other_load.Kill(SIGKILL);
  stalled.Kill(SIGKILL);
  load->Kill(SIGKILL);
  EXPECT_LE(most_held, kBound) << "uid 0's streams held more than max_bytes_in_flight_per_uid";
  EXPECT_GT(most_held, 0u) << "the stalled tails held nothing: did they stall?";
  // A stalled tail waiting for its uid's share holds no message: what the
  // load and the tails add to the daemon is the ingest's working memory
  // and the bound, not a batch (about 110 KiB) each.
  const uint64_t added_kib = stalled_kib > before_kib ? stalled_kib - before_kib : 0;
  EXPECT_LT(added_kib, kTails * kParkedTailBoundKib + (kBound >> 10))
      << kTails << " stalled tails added " << added_kib << " KiB";
  EXPECT_TRUE(served) << other.stdout_text() << other.stderr_text();
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure("cap 64 KiB in flight per uid, " + std::to_string(kTails) +
               " stalled batched tails of uid 0 beside 50k pairs/s: at most " +
               std::to_string(most_held) + " bytes held (stream_bytes_in_flight), " +
               std::to_string(added_kib) + " KiB added to the daemon's own memory by the load " +
               "(bound " + std::to_string(kTails * kParkedTailBoundKib + (kBound >> 10)) +
               "); uid 65534's tail " + (served ? "served" : "not served"));
}

TEST(LiveFanoutTest, ClientKilledMidStream_ItsShareReleasedAtOnce) {
  TempFolder folder;
  DaemonProcess daemon(folder.path(),
                       {"--config", WriteConfig(folder, "max_streams_per_uid = 1\n")});
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  auto load = StartLoadProducer(1, 20'000, 600);
  Subprocess tail({OPTRACE_TEST_CLIENT, "tail", daemon.socket_path()});
  ASSERT_TRUE(tail.WaitForLine("event ", 20s).has_value()) << tail.stdout_text();
  tail.Kill(SIGKILL);
  tail.Wait(10s);
  // The uid's one stream is free again: a new tail of the same uid streams.
  const bool reused = WaitUntil(
      [&] {
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + 2s);
        auto again = stub->Tail(&ctx, v1::TailRequest());
        v1::TailResponse item;
        const bool streamed = again->Read(&item);
        ctx.TryCancel();
        again->Finish();
        return streamed;
      },
      10s);
  load->Kill(SIGKILL);
  EXPECT_TRUE(reused) << "the killed client's stream was not released";
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
}

}  // namespace
}  // namespace optrace::testing
