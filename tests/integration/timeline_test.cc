// GetTimeline end to end: a real optraced, real producers (steps on two
// threads; host ops with device ops inside them), a real gRPC channel over
// the daemon's Unix socket, and a caller of another uid.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "optrace/v1/optrace.grpc.pb.h"
#include "producer_report.h"
#include "subprocess.h"
#include "temp_folder.h"
#include "test_producer.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using testing::DaemonProcess;
using testing::StartTestProducer;
using testing::Subprocess;
using testing::WaitUntil;

constexpr int kSteps = 5;

class TimelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(daemon_.Start()) << daemon_.log();
    stub_ = v1::OpTrace::NewStub(
        grpc::CreateChannel("unix:" + daemon_.socket_path(), grpc::InsecureChannelCredentials()));
  }

  // Runs the producer with `args` to its end; its stored session, once
  // every span it reported is stored.
  v1::Session Produce(const std::vector<std::string>& args) {
    auto producer = StartTestProducer(args);
    const auto status = producer->Wait(30s);
    EXPECT_TRUE(status && status->exited && status->code == 0) << producer->stderr_text();
    const uint64_t launches = testing::DoneCounts(*producer).at("launches");
    v1::Session found;
    EXPECT_TRUE(WaitUntil(
        [&] {
          grpc::ClientContext ctx;
          v1::ListSessionsRequest req;
          req.set_all(true);
          v1::ListSessionsResponse resp;
          if (!stub_->ListSessions(&ctx, req, &resp).ok()) return false;
          for (const v1::Session& s : resp.sessions()) {
            if (s.pid() == static_cast<uint32_t>(producer->pid()) &&
                s.state() != v1::SESSION_STATE_RUNNING && s.spans() == launches) {
              found = s;
              return true;
            }
          }
          return false;
        },
        20s))
        << daemon_.log();
    return found;
  }

  grpc::Status Timeline(uint64_t session, int64_t start, int64_t end, uint32_t width,
                        v1::GetTimelineResponse* out) {
    grpc::ClientContext ctx;
    v1::GetTimelineRequest req;
    req.set_session_id(session);
    req.set_start_unix_ns(start);
    req.set_end_unix_ns(end);
    req.set_width(width);
    return stub_->GetTimeline(&ctx, req, out);
  }

  testing::TempFolder folder_;
  DaemonProcess daemon_{folder_.path()};
  std::unique_ptr<v1::OpTrace::Stub> stub_;
};

// The spans and bucketed spans of a response, counted.
uint64_t CountedSpans(const v1::GetTimelineResponse& t) {
  uint64_t counted = 0;
  for (const v1::TimelineLane& lane : t.lanes()) {
    counted += static_cast<uint64_t>(lane.spans_size());
    for (const v1::TimelineBucket& b : lane.buckets()) counted += b.count();
  }
  return counted;
}

// The names of a lane's listed spans, in order.
std::vector<std::string> Names(const v1::GetTimelineResponse& t, const v1::TimelineLane& lane) {
  std::vector<std::string> names;
  for (const v1::TimelineSpan& s : lane.spans()) names.push_back(t.strings(s.name()));
  return names;
}

TEST_F(TimelineTest, StepsOnTwoThreads_WholeSessionOneLaneEachStepsNestedAndEverySpanCounted) {
  const v1::Session session = Produce({"--threads", "2", "--steps", std::to_string(kSteps)});
  ASSERT_NE(session.id(), 0u);
  v1::GetTimelineResponse t;
  const grpc::Status status = Timeline(session.id(), 0, 0, 2000, &t);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(t.spans(), session.spans());
  EXPECT_EQ(CountedSpans(t), session.spans());
  EXPECT_EQ(t.spans_left_out(), 0u);
  EXPECT_EQ(t.start_unix_ns(), t.session_start_unix_ns());
  EXPECT_EQ(t.end_unix_ns(), t.session_end_unix_ns());
  EXPECT_GT(t.session_end_unix_ns(), t.session_start_unix_ns() + kSteps * 8'000'000);

  // The main thread's "start" op, then the two step threads.
  std::vector<const v1::TimelineLane*> step_lanes;
  for (const v1::TimelineLane& lane : t.lanes()) {
    EXPECT_EQ(lane.device().target(), v1::TARGET_CPU);
    EXPECT_NE(lane.thread(), 0u);
    if (lane.spans_size() > 0 && t.strings(lane.spans(0).name()) == "optrace.step") {
      step_lanes.push_back(&lane);
    }
  }
  ASSERT_EQ(step_lanes.size(), 2u);
  EXPECT_NE(step_lanes[0]->thread(), step_lanes[1]->thread());
  for (const v1::TimelineLane* lane : step_lanes) {
    // Every op lasts at least 1 ms, above a pixel of the whole session.
    std::vector<std::string> expected;
    for (int i = 0; i < kSteps; ++i) {
      expected.insert(expected.end(),
                      {"optrace.step", "load_batch", "forward", "matmul", "backward"});
    }
    EXPECT_EQ(Names(t, *lane), expected);
    EXPECT_EQ(lane->buckets_size(), 0);
    EXPECT_EQ(lane->max_depth(), 2u);
    for (int i = 0; i < lane->spans_size(); ++i) {
      const v1::TimelineSpan& s = lane->spans(i);
      const std::string name = t.strings(s.name());
      const uint32_t depth = name == "optrace.step" ? 0 : name == "matmul" ? 2 : 1;
      EXPECT_EQ(s.depth(), depth) << name;
      EXPECT_GE(s.duration_ns(), name == "load_batch" ? 1'000'000u : 2'000'000u) << name;
      EXPECT_LE(s.self_ns(), s.duration_ns()) << name;
      if (name == "matmul") {
        const v1::TimelineSpan& forward = lane->spans(i - 1);
        EXPECT_EQ(s.parent_op_id(), forward.op_id());
        EXPECT_LE(forward.self_ns(), forward.duration_ns() - s.duration_ns());
      }
    }
  }
}

TEST_F(TimelineTest, ZoomedToOneStep_OnlyThatStepsOpsOnItsLaneAndNarrowerPixels) {
  const v1::Session session = Produce({"--steps", std::to_string(kSteps)});
  ASSERT_NE(session.id(), 0u);
  v1::GetTimelineResponse whole;
  ASSERT_TRUE(Timeline(session.id(), 0, 0, 1000, &whole).ok());
  const v1::TimelineLane* steps = nullptr;
  for (const v1::TimelineLane& lane : whole.lanes()) {
    if (lane.spans_size() > 0 && whole.strings(lane.spans(0).name()) == "optrace.step") {
      steps = &lane;
    }
  }
  ASSERT_NE(steps, nullptr);
  const v1::TimelineSpan& third = steps->spans(10);
  ASSERT_EQ(whole.strings(third.name()), "optrace.step");
  const int64_t from = third.start_unix_ns();
  const int64_t to = from + static_cast<int64_t>(third.duration_ns());

  v1::GetTimelineResponse zoomed;
  ASSERT_TRUE(Timeline(session.id(), from, to, 1000, &zoomed).ok());
  EXPECT_EQ(zoomed.start_unix_ns(), from);
  EXPECT_EQ(zoomed.end_unix_ns(), to);
  EXPECT_EQ(zoomed.session_start_unix_ns(), whole.session_start_unix_ns());
  EXPECT_EQ(zoomed.spans(), 5u);
  ASSERT_EQ(zoomed.lanes_size(), 1);
  EXPECT_EQ(
      Names(zoomed, zoomed.lanes(0)),
      (std::vector<std::string>{"optrace.step", "load_batch", "forward", "matmul", "backward"}));
  EXPECT_EQ(zoomed.lanes(0).spans(0).op_id(), third.op_id());

  // Half a pixel of the step for each op: all summed, in one bucket.
  v1::GetTimelineResponse narrow;
  ASSERT_TRUE(Timeline(session.id(), from, from + 2 * (to - from), 1, &narrow).ok());
  ASSERT_EQ(narrow.lanes_size(), 1);
  EXPECT_EQ(narrow.lanes(0).spans_size(), 0);
  ASSERT_EQ(narrow.lanes(0).buckets_size(), 1);
  const v1::TimelineBucket& bucket = narrow.lanes(0).buckets(0);
  EXPECT_EQ(bucket.count(), narrow.spans());
  EXPECT_GE(bucket.busy_ns(), 2 * 8'000'000u) << "the step and its ops";
  EXPECT_EQ(narrow.strings(bucket.name()), "optrace.step");
}

TEST_F(TimelineTest, HostOpsWithDeviceOps_DeviceStreamHasALaneOfItsOwn) {
  const v1::Session session = Produce({"--ops", "50"});
  ASSERT_NE(session.id(), 0u);
  v1::GetTimelineResponse t;
  ASSERT_TRUE(Timeline(session.id(), 0, 0, 8192, &t).ok());
  EXPECT_EQ(CountedSpans(t), session.spans());
  std::map<std::string, uint64_t> inner_by_lane;
  for (const v1::TimelineLane& lane : t.lanes()) {
    uint64_t inner = 0;
    for (const v1::TimelineBucket& b : lane.buckets()) {
      inner += t.strings(b.name()) == "inner" ? b.count() : 0;
    }
    for (const v1::TimelineSpan& s : lane.spans()) inner += t.strings(s.name()) == "inner";
    const std::string key =
        std::to_string(lane.device().target()) + ":" + std::to_string(lane.device().ordinal()) +
        ":" + std::to_string(lane.device().stream()) + ":" + std::to_string(lane.thread() != 0);
    inner_by_lane[key] += inner;
  }
  const std::string gpu1_stream7 = std::to_string(v1::TARGET_GPU) + ":1:7:0";
  ASSERT_TRUE(inner_by_lane.contains(gpu1_stream7)) << t.DebugString();
  EXPECT_GT(inner_by_lane[gpu1_stream7], 0u);
  EXPECT_EQ(t.lanes(t.lanes_size() - 1).device().target(), v1::TARGET_GPU)
      << "devices after host threads";
}

TEST_F(TimelineTest, BadRequests_InvalidArgumentNamingTheFieldAndNotFound) {
  const v1::Session session = Produce({"--ops", "5"});
  ASSERT_NE(session.id(), 0u);
  v1::GetTimelineResponse t;
  grpc::Status status = Timeline(session.id(), 0, 0, 0, &t);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("width 0"), std::string::npos) << status.error_message();
  status = Timeline(session.id(), 0, 0, 9000, &t);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("width 9000"), std::string::npos);
  status = Timeline(session.id(), 200, 100, 100, &t);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("end_unix_ns 100"), std::string::npos);
  status = Timeline(session.id() + 1000, 0, 0, 100, &t);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
}

TEST_F(TimelineTest, CallerOfAnotherUid_Refused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to call as another uid";
  const v1::Session session = Produce({"--ops", "5"});
  ASSERT_NE(session.id(), 0u);
  ASSERT_EQ(::chmod(folder_.path().c_str(), 0755), 0);
  ASSERT_EQ(::chmod((folder_.path() + "/run").c_str(), 0755), 0);
  ASSERT_EQ(::chmod(daemon_.socket_path().c_str(), 0666), 0);
  Subprocess other({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    OPTRACE_TEST_CLIENT, "probe-timeline", daemon_.socket_path(),
                    std::to_string(session.id())});
  ASSERT_TRUE(other.Wait(20s).has_value());
  EXPECT_EQ(other.stdout_text(), std::to_string(grpc::StatusCode::PERMISSION_DENIED) + "\n")
      << other.stderr_text();
  Subprocess own(
      {OPTRACE_TEST_CLIENT, "probe-timeline", daemon_.socket_path(), std::to_string(session.id())});
  ASSERT_TRUE(own.Wait(20s).has_value());
  EXPECT_EQ(own.stdout_text(), "0\n") << own.stderr_text();
}

}  // namespace
}  // namespace optrace
