// The OpTrace gRPC service: request validation, access control, and
// dispatch to the drain loop (live state), the tail hub and the stored
// data (one SpanReader per handler thread).
#ifndef OPTRACE_DAEMON_API_OP_TRACE_SERVICE_H_
#define OPTRACE_DAEMON_API_OP_TRACE_SERVICE_H_

#include <chrono>
#include <string>
#include <vector>

#include "api/accept_counters.h"
#include "api/blocking_stream.h"
#include "api/caller_identity.h"
#include "api/stream_quota.h"
#include "config/daemon_config.h"
#include "drain/drain_loop.h"
#include "fleet/fleet_queries.h"
#include "forward/clickhouse_forwarder.h"
#include "live/tail_hub.h"
#include "optrace/v1/optrace.grpc.pb.h"
#include "query/span_queries.h"
#include "storage/span_store.h"

namespace optrace::daemon {

// Everything the service reads; all must outlive it.
struct ServiceContext {
  DrainLoop* drain = nullptr;
  TailHub* tails = nullptr;
  StreamQuota* streams = nullptr;  // per-uid caps of the streaming calls
  SpanStore* store = nullptr;
  const CallerIdentifier* callers = nullptr;
  std::string db_path;
  std::string ns;
  std::string version;
  std::vector<LevelRule> rules;  // as configured at start
  std::chrono::steady_clock::time_point started;
  // Fleet queries (`fleet` in GetStats, QueryOps, CompareSessions); null
  // when the daemon has no ClickHouse (they answer FAILED_PRECONDITION).
  const FleetQueries* fleet = nullptr;
  // For GetStatus; null when the daemon does not forward.
  const ClickHouseForwarder* forwarder = nullptr;
  const AcceptCounters* accepts = nullptr;  // for GetStatus; REQUIRES: not null
  WindowLimits window;  // the daemon's rolling window (keep_last, keep_last_bytes)
  // Its TCP and HTTP listeners, as configured at start (for GetStatus).
  std::vector<v1::Listener> listeners;
  // What one GetStats or CompareSessions may hold (max_query_groups,
  // max_query_durations_bytes); `second_thread` is set per call from the
  // caller's share of threads (StreamQuota::TryTakeThread).
  QueryLimits query_limits;
  size_t max_open_ops_returned = 1000;  // open ops one GetSession returns
};

// Thread rules: gRPC calls handlers concurrently; every handler is safe to
// run in parallel with the others. The streaming calls are served by the
// callback API, so that no stream holds one of gRPC's handler threads:
// Tail as a reactor per stream, QueryOps and Export on a thread of their
// own once admitted (BlockingStream, at most max_threaded_streams, and
// max_threaded_streams_per_uid of one uid; a GetStats pass over a large
// session takes its second thread from the same shares or reads on one). The
// unary calls run on gRPC's thread pool. Tail is served raw: it parses its
// TailRequest itself and sends TailResponse bytes written by
// TailMessageEncoder, without protobuf objects per item.
class OpTraceService final
    : public v1::OpTrace::WithCallbackMethod_Export<v1::OpTrace::WithCallbackMethod_QueryOps<
          v1::OpTrace::WithRawCallbackMethod_Tail<v1::OpTrace::Service>>> {
 public:
  explicit OpTraceService(ServiceContext context);

  grpc::ServerWriteReactor<grpc::ByteBuffer>* Tail(grpc::CallbackServerContext* ctx,
                                                   const grpc::ByteBuffer* request) override;
  grpc::Status GetLevel(grpc::ServerContext* ctx, const v1::GetLevelRequest* request,
                        v1::GetLevelResponse* response) override;
  grpc::Status SetLevel(grpc::ServerContext* ctx, const v1::SetLevelRequest* request,
                        v1::SetLevelResponse* response) override;
  grpc::Status ListSessions(grpc::ServerContext* ctx, const v1::ListSessionsRequest* request,
                            v1::ListSessionsResponse* response) override;
  grpc::Status GetSession(grpc::ServerContext* ctx, const v1::GetSessionRequest* request,
                          v1::GetSessionResponse* response) override;
  grpc::ServerWriteReactor<v1::QueryOpsResponse>* QueryOps(
      grpc::CallbackServerContext* ctx, const v1::QueryOpsRequest* request) override;
  grpc::Status GetStats(grpc::ServerContext* ctx, const v1::GetStatsRequest* request,
                        v1::GetStatsResponse* response) override;
  grpc::Status GetTree(grpc::ServerContext* ctx, const v1::GetTreeRequest* request,
                       v1::GetTreeResponse* response) override;
  grpc::Status GetSteps(grpc::ServerContext* ctx, const v1::GetStepsRequest* request,
                        v1::GetStepsResponse* response) override;
  grpc::Status ExplainStep(grpc::ServerContext* ctx, const v1::ExplainStepRequest* request,
                           v1::ExplainStepResponse* response) override;
  grpc::Status CompareSessions(grpc::ServerContext* ctx, const v1::CompareSessionsRequest* request,
                               v1::CompareSessionsResponse* response) override;
  grpc::ServerWriteReactor<v1::ExportChunk>* Export(grpc::CallbackServerContext* ctx,
                                                    const v1::ExportRequest* request) override;
  grpc::Status GetStatus(grpc::ServerContext* ctx, const v1::GetStatusRequest* request,
                         v1::GetStatusResponse* response) override;
  // What GetStatus answers an admin: the whole report, every uid's
  // sessions (the metrics endpoint's source). False when the drain thread
  // did not answer in time. Thread rules: any thread, as GetStatus.
  bool FullStatus(v1::GetStatusResponse* response) const;
  grpc::Status KeepRange(grpc::ServerContext* ctx, const v1::KeepRangeRequest* request,
                         v1::KeepRangeResponse* response) override;
  grpc::Status SetWindow(grpc::ServerContext* ctx, const v1::SetWindowRequest* request,
                         v1::SetWindowResponse* response) override;
  grpc::Status ListKeeps(grpc::ServerContext* ctx, const v1::ListKeepsRequest* request,
                         v1::ListKeepsResponse* response) override;
  grpc::Status GetSource(grpc::ServerContext* ctx, const v1::GetSourceRequest* request,
                         v1::GetSourceResponse* response) override;
  grpc::Status GetTimeline(grpc::ServerContext* ctx, const v1::GetTimelineRequest* request,
                           v1::GetTimelineResponse* response) override;

 private:
  // The stored session `id` if the caller may see it: NOT_FOUND or
  // PERMISSION_DENIED otherwise.
  grpc::Status LoadSession(SessionId id, const Caller& caller, SessionRecord* out);
  // Answers a query of one session (GetTree, GetSteps, ...): `query` over
  // this thread's reader, once the caller may see the session.
  template <typename Request, typename Response>
  grpc::Status SessionQuery(grpc::ServerContext* ctx, const Request& request, Response* response,
                            Status (*query)(SpanReader&, const Request&, Response*));
  // OK unless a running producer with process id `pid` belongs to another
  // uid than the non-admin `caller`'s (PERMISSION_DENIED, naming its
  // session); UNAVAILABLE when the drain thread does not answer.
  grpc::Status CheckPidControllable(uint32_t pid, const Caller& caller) const;
  // OK when `caller` may ask a fleet query and this daemon can answer it:
  // PERMISSION_DENIED for callers who are not admins, then
  // FAILED_PRECONDITION without ClickHouse.
  grpc::Status CheckFleetAllowed(const Caller& caller) const;
  // Opens stream `name` for the caller (refused past their quota) and runs
  // `body` (QueryOpsBody, ExportBody) for it on a thread of its own.
  template <typename Response, typename Request>
  grpc::ServerWriteReactor<Response>* StartThreadedStream(
      grpc::CallbackServerContext* ctx, const char* name, const Request& request,
      grpc::Status (OpTraceService::*body)(const Caller&, const Request&,
                                           BlockingStream<Response>*));
  // The bodies of QueryOps and Export, on the stream's own thread.
  grpc::Status QueryOpsBody(const Caller& caller, const v1::QueryOpsRequest& request,
                            BlockingStream<v1::QueryOpsResponse>* writer);
  grpc::Status ExportBody(const Caller& caller, const v1::ExportRequest& request,
                          BlockingStream<v1::ExportChunk>* writer);

  const ServiceContext ctx_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_OP_TRACE_SERVICE_H_
