// Tail latency: the time from COMPLETE in the producer (the event's own
// timestamp) to the event reaching a Tail client, over a real gRPC stream.
//   optrace-tail-latency SOCKET SECONDS [events|spans]
// events (the default) tails LAUNCH and COMPLETE events, as `optrace tail`
// does; spans tails finished spans, one item per op, whose COMPLETE time is
// their start plus their duration.
// Prints "events=N p50_us=... p90_us=... p99_us=... max_us=... lags=N".
#include <grpcpp/grpcpp.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "optrace/v1/optrace.grpc.pb.h"
#include "tail_stream.h"

namespace {

int64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double Percentile(std::vector<int64_t>& v, double q) {
  if (v.empty()) return 0;
  const size_t rank =
      static_cast<size_t>(std::max(1.0, q * static_cast<double>(v.size()) + 0.999999)) - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank), v.end());
  return static_cast<double>(v[rank]) / 1000.0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string items = argc > 3 ? argv[3] : "events";
  if (argc < 3 || (items != "events" && items != "spans")) {
    std::fprintf(stderr, "usage: %s SOCKET SECONDS [events|spans]\n", argv[0]);
    return 2;
  }
  auto stub = optrace::v1::OpTrace::NewStub(
      grpc::CreateChannel(std::string("unix:") + argv[1], grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() +
                   std::chrono::milliseconds(static_cast<int64_t>(std::atof(argv[2]) * 1000)));
  optrace::v1::TailRequest request;
  request.set_level(optrace::v1::LEVEL_TRACE);
  request.set_events(items == "events");
  request.set_spans(items == "spans");
  request.set_batch(true);
  auto stream = stub->Tail(&ctx, request);
  std::vector<int64_t> latency;
  latency.reserve(1 << 22);
  uint64_t lags = 0;
  optrace::cli::ReadTailStream(*stream, [&](const optrace::v1::TailResponse& response) {
    const int64_t now = RealtimeNs();
    for (const optrace::v1::TailResponse& item : response.batch().items()) {
      if (item.has_lag()) lags += item.lag().skipped();
      if (item.has_event() && item.event().kind() == optrace::v1::LiveEvent::KIND_COMPLETE) {
        latency.push_back(now - item.event().unix_ns());
      }
      if (item.has_span()) {
        latency.push_back(now - item.span().start_unix_ns() -
                          static_cast<int64_t>(item.span().duration_ns()));
      }
    }
  });
  const size_t n = latency.size();
  const double p50 = Percentile(latency, 0.50);
  const double p90 = Percentile(latency, 0.90);
  const double p99 = Percentile(latency, 0.99);
  const double max =
      n ? static_cast<double>(*std::max_element(latency.begin(), latency.end())) / 1000.0 : 0;
  std::printf("events=%zu p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f lags=%llu\n", n, p50, p90,
              p99, max, static_cast<unsigned long long>(lags));
  return 0;
}
