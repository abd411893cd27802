// A gRPC client process for tests that need one they can kill, or one that
// runs as another user:
//   optrace-test-client tail SOCKET [LEVEL_NUMBER]
//     Opens Tail at LEVEL_TRACE (or the given v1::Level number), prints
//     "streaming", then one line per item ("event NAME", "span NAME",
//     "lag N").
//   optrace-test-client probe SOCKET SESSION_ID
//     Prints "<list code>:<sessions seen> <get session code> <global set
//     level code>" (gRPC status codes).
//   optrace-test-client probe-keeps SOCKET SESSION_ID
//     Prints "<keep range code> <list keeps code> <set window code> <get
//     source code>": a keep of the session's last second, its keeps, a
//     window of 1 s, the listing of its first op (gRPC status codes).
//   optrace-test-client probe-timeline SOCKET SESSION_ID
//     Prints the gRPC status code of the session's whole timeline
//     (GetTimeline, 100 pixels).
//   optrace-test-client stall SOCKET STREAMS CONNECTIONS [batch]
//     Opens STREAMS Tail streams spread over CONNECTIONS connections (in
//     TailBatch messages with "batch") and never reads them (as `optrace
//     tail | less` left paused), prints "opened STREAMS", then sleeps
//     until killed.
//   optrace-test-client stall-export SOCKET STREAMS SESSION_ID
//     The same with Export streams (CSV) of a stored session.
//   optrace-test-client read-session SOCKET SESSION_ID
//     Reads the session's first 1000 spans (QueryOps) and its CSV export
//     to the end, and prints "queryops CODE SPANS export CODE BYTES", then
//     each failure's message on a line of its own.
//   optrace-test-client status-loop SOCKET SECONDS
//     Calls GetStatus (5 s deadline) back to back for SECONDS, then prints
//     "answered N failed M p50_us A p99_us B max_us C" and the first
//     failure's message, if any, on a line "first_failure CODE MESSAGE".
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "optrace/v1/optrace.grpc.pb.h"

namespace {

int Tail(optrace::v1::OpTrace::Stub& stub, int level) {
  optrace::v1::TailRequest request;
  request.set_level(level != 0 ? static_cast<optrace::v1::Level>(level) : optrace::v1::LEVEL_TRACE);
  grpc::ClientContext context;
  auto stream = stub.Tail(&context, request);
  std::printf("streaming\n");
  std::fflush(stdout);
  optrace::v1::TailResponse item;
  while (stream->Read(&item)) {
    if (item.has_event()) std::printf("event %s\n", item.event().name().c_str());
    if (item.has_span()) std::printf("span %s\n", item.span().name().c_str());
    if (item.has_lag())
      std::printf("lag %llu\n", static_cast<unsigned long long>(item.lag().skipped()));
    std::fflush(stdout);
  }
  const grpc::Status status = stream->Finish();
  std::printf("finished %d %s\n", status.error_code(), status.error_message().c_str());
  return 0;
}

int Probe(optrace::v1::OpTrace::Stub& stub, uint64_t session) {
  int list_code, get_code, set_code, seen;
  {
    grpc::ClientContext ctx;
    optrace::v1::ListSessionsRequest req;
    req.set_all(true);
    optrace::v1::ListSessionsResponse resp;
    list_code = stub.ListSessions(&ctx, req, &resp).error_code();
    seen = resp.sessions_size();
  }
  {
    grpc::ClientContext ctx;
    optrace::v1::GetSessionRequest req;
    req.set_session_id(session);
    optrace::v1::GetSessionResponse resp;
    get_code = stub.GetSession(&ctx, req, &resp).error_code();
  }
  {
    grpc::ClientContext ctx;
    optrace::v1::SetLevelRequest req;
    req.set_level(optrace::v1::LEVEL_TRACE);
    optrace::v1::SetLevelResponse resp;
    set_code = stub.SetLevel(&ctx, req, &resp).error_code();
  }
  std::printf("%d:%d %d %d\n", list_code, seen, get_code, set_code);
  return 0;
}

int ProbeKeeps(optrace::v1::OpTrace::Stub& stub, uint64_t session) {
  int keep_code, keeps_code, window_code, source_code;
  {
    grpc::ClientContext ctx;
    optrace::v1::KeepRangeRequest req;
    req.set_session_id(session);
    req.set_last_ns(1'000'000'000);
    optrace::v1::KeepRangeResponse resp;
    keep_code = stub.KeepRange(&ctx, req, &resp).error_code();
  }
  {
    grpc::ClientContext ctx;
    optrace::v1::ListKeepsRequest req;
    req.set_session_id(session);
    optrace::v1::ListKeepsResponse resp;
    keeps_code = stub.ListKeeps(&ctx, req, &resp).error_code();
  }
  {
    grpc::ClientContext ctx;
    optrace::v1::SetWindowRequest req;
    req.set_session_id(session);
    req.set_keep_last_ns(1'000'000'000);
    optrace::v1::SetWindowResponse resp;
    window_code = stub.SetWindow(&ctx, req, &resp).error_code();
  }
  {
    grpc::ClientContext ctx;
    optrace::v1::GetSourceRequest req;
    req.set_session_id(session);
    req.set_op_id(1);
    optrace::v1::GetSourceResponse resp;
    source_code = stub.GetSource(&ctx, req, &resp).error_code();
  }
  std::printf("%d %d %d %d\n", keep_code, keeps_code, window_code, source_code);
  return 0;
}

int ProbeTimeline(optrace::v1::OpTrace::Stub& stub, uint64_t session) {
  grpc::ClientContext ctx;
  optrace::v1::GetTimelineRequest req;
  req.set_session_id(session);
  req.set_width(100);
  optrace::v1::GetTimelineResponse resp;
  std::printf("%d\n", stub.GetTimeline(&ctx, req, &resp).error_code());
  return 0;
}

// A channel on a connection of its own: gRPC shares one connection
// between channels with equal arguments.
std::shared_ptr<grpc::Channel> Connect(const std::string& socket, int id) {
  grpc::ChannelArguments args;
  args.SetInt("grpc.optrace_test_client_id", id);
  return grpc::CreateCustomChannel("unix:" + socket, grpc::InsecureChannelCredentials(), args);
}

// Starts `streams` calls of `start(stub, context)` spread over
// `connections` connections, never reads them, prints "opened N" and
// sleeps until killed.
template <typename Start>
int StallStreams(const std::string& socket, int streams, int connections, Start start) {
  std::vector<std::unique_ptr<optrace::v1::OpTrace::Stub>> stubs;
  for (int c = 0; c < std::max(1, connections); ++c) {
    stubs.push_back(optrace::v1::OpTrace::NewStub(Connect(socket, c)));
  }
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::shared_ptr<void>> readers;
  for (int i = 0; i < streams; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    readers.push_back(start(*stubs[static_cast<size_t>(i) % stubs.size()], contexts.back().get()));
  }
  std::printf("opened %d\n", streams);
  std::fflush(stdout);
  while (true) ::pause();
}

int Stall(const std::string& socket, int streams, int connections, bool batch) {
  optrace::v1::TailRequest request;
  request.set_level(optrace::v1::LEVEL_TRACE);
  request.set_batch(batch);
  return StallStreams(socket, streams, connections,
                      [&](optrace::v1::OpTrace::Stub& stub, grpc::ClientContext* context) {
                        return std::shared_ptr<void>(stub.Tail(context, request));
                      });
}

int StallExport(const std::string& socket, int streams, uint64_t session) {
  optrace::v1::ExportRequest request;
  request.set_session_id(session);
  request.set_format(optrace::v1::EXPORT_FORMAT_CSV);
  return StallStreams(socket, streams, 1,
                      [&](optrace::v1::OpTrace::Stub& stub, grpc::ClientContext* context) {
                        return std::shared_ptr<void>(stub.Export(context, request));
                      });
}

int ReadSession(optrace::v1::OpTrace::Stub& stub, uint64_t session) {
  std::string failures;
  const auto finish = [&](const grpc::Status& status) {
    if (!status.ok()) failures += status.error_message() + "\n";
    return status.error_code();
  };
  uint64_t spans = 0;
  int queryops_code = 0;
  {
    grpc::ClientContext ctx;
    optrace::v1::QueryOpsRequest request;
    request.set_session_id(session);
    auto stream = stub.QueryOps(&ctx, request);
    optrace::v1::QueryOpsResponse page;
    while (stream->Read(&page)) spans += static_cast<uint64_t>(page.spans_size());
    queryops_code = finish(stream->Finish());
  }
  uint64_t bytes = 0;
  int export_code = 0;
  {
    grpc::ClientContext ctx;
    optrace::v1::ExportRequest request;
    request.set_session_id(session);
    request.set_format(optrace::v1::EXPORT_FORMAT_CSV);
    auto stream = stub.Export(&ctx, request);
    optrace::v1::ExportChunk chunk;
    while (stream->Read(&chunk)) bytes += chunk.data().size();
    export_code = finish(stream->Finish());
  }
  std::printf("queryops %d %llu export %d %llu\n%s", queryops_code,
              static_cast<unsigned long long>(spans), export_code,
              static_cast<unsigned long long>(bytes), failures.c_str());
  return 0;
}

int StatusLoop(optrace::v1::OpTrace::Stub& stub, double seconds) {
  std::vector<int64_t> micros;
  int failed = 0;
  std::string first_failure;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    optrace::v1::GetStatusResponse response;
    const auto start = std::chrono::steady_clock::now();
    const grpc::Status status = stub.GetStatus(&ctx, optrace::v1::GetStatusRequest(), &response);
    micros.push_back(std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count());
    if (!status.ok() && failed++ == 0) {
      first_failure = std::to_string(status.error_code()) + " " + status.error_message();
    }
  }
  std::sort(micros.begin(), micros.end());
  auto at = [&](double q) {
    return micros.empty() ? 0
                          : micros[static_cast<size_t>(q * static_cast<double>(micros.size() - 1))];
  };
  std::printf("answered %zu failed %d p50_us %lld p99_us %lld max_us %lld\n",
              micros.size() - static_cast<size_t>(failed), failed, static_cast<long long>(at(0.5)),
              static_cast<long long>(at(0.99)), static_cast<long long>(at(1.0)));
  if (!first_failure.empty()) std::printf("first_failure %s\n", first_failure.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc >= 3 ? argv[1] : "";
  if (mode == "stall" && (argc == 5 || argc == 6)) {
    return Stall(argv[2], std::atoi(argv[3]), std::atoi(argv[4]),
                 argc == 6 && std::strcmp(argv[5], "batch") == 0);
  }
  if (mode == "stall-export" && argc == 5) {
    return StallExport(argv[2], std::atoi(argv[3]), std::strtoull(argv[4], nullptr, 10));
  }
  if (mode != "tail" && mode != "probe" && mode != "probe-keeps" && mode != "probe-timeline" &&
      !(mode == "read-session" && argc == 4) && !(mode == "status-loop" && argc == 4)) {
    std::fprintf(
        stderr,
        "usage: %s tail SOCKET [LEVEL] | probe SOCKET SESSION_ID | probe-keeps SOCKET SESSION_ID | "
        "probe-timeline SOCKET SESSION_ID | stall SOCKET STREAMS CONNECTIONS [batch] | "
        "stall-export SOCKET STREAMS SESSION_ID | "
        "read-session SOCKET SESSION_ID | status-loop SOCKET SECONDS\n",
        argv[0]);
    return 2;
  }
  auto channel =
      grpc::CreateChannel(std::string("unix:") + argv[2], grpc::InsecureChannelCredentials());
  auto stub = optrace::v1::OpTrace::NewStub(channel);
  if (mode == "tail") return Tail(*stub, argc > 3 ? std::atoi(argv[3]) : 0);
  if (mode == "status-loop") return StatusLoop(*stub, std::atof(argv[3]));
  const uint64_t session = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;
  if (mode == "probe-keeps") return ProbeKeeps(*stub, session);
  if (mode == "probe-timeline") return ProbeTimeline(*stub, session);
  if (mode == "read-session") return ReadSession(*stub, session);
  return Probe(*stub, session);
}
