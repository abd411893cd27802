// A gRPC client process for tests that need one they can kill, or one that
// runs as another user:
//   optrace-test-client tail SOCKET [LEVEL_NUMBER]
//     Opens Tail at LEVEL_TRACE (or the given v1::Level number), prints
//     "streaming", then one line per item ("event NAME", "span NAME",
//     "lag N").
//   optrace-test-client probe SOCKET SESSION_ID
//     Prints "<list code>:<sessions seen> <get session code> <global set
//     level code>" (gRPC status codes).
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (std::strcmp(argv[1], "tail") != 0 && std::strcmp(argv[1], "probe") != 0)) {
    std::fprintf(stderr, "usage: %s tail SOCKET [LEVEL] | probe SOCKET SESSION_ID\n", argv[0]);
    return 2;
  }
  auto channel =
      grpc::CreateChannel(std::string("unix:") + argv[2], grpc::InsecureChannelCredentials());
  auto stub = optrace::v1::OpTrace::NewStub(channel);
  if (std::strcmp(argv[1], "tail") == 0) return Tail(*stub, argc > 3 ? std::atoi(argv[3]) : 0);
  return Probe(*stub, argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0);
}
