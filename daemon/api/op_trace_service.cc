#include "api/op_trace_service.h"

#include <grpcpp/impl/codegen/proto_utils.h>
#include <time.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/refused_stream.h"
#include "api/status_report.h"
#include "api/tail_reactor.h"
#include "common/clock_now.h"
#include "export/session_export.h"
#include "log/log.h"
#include "query/call_tree.h"
#include "query/session_steps.h"
#include "query/source_query.h"
#include "query/span_queries.h"
#include "query/timeline_query.h"
#include "wire/proto_convert.h"

namespace optrace::daemon {
namespace {

using grpc::StatusCode;

grpc::Status ToGrpc(const Status& st) {
  switch (st.code()) {
    case Status::Code::kOk:
      return grpc::Status::OK;
    case Status::Code::kInvalidArgument:
      return {StatusCode::INVALID_ARGUMENT, st.message()};
    case Status::Code::kNotFound:
      return {StatusCode::NOT_FOUND, st.message()};
    case Status::Code::kPermissionDenied:
      return {StatusCode::PERMISSION_DENIED, st.message()};
    case Status::Code::kUnavailable:
      return {StatusCode::UNAVAILABLE, st.message()};
    case Status::Code::kResourceExhausted:
      return {StatusCode::RESOURCE_EXHAUSTED, st.message()};
    case Status::Code::kFailedPrecondition:
      return {StatusCode::FAILED_PRECONDITION, st.message()};
    case Status::Code::kUnauthenticated:
      return {StatusCode::UNAUTHENTICATED, st.message()};
    default:
      return {StatusCode::INTERNAL, st.message()};
  }
}

// A KeepRange waits this long for the store's writer, which records keeps
// between batches.
constexpr int kKeepTimeoutMs = 10'000;
// What a caller may give as a keep's reason.
constexpr size_t kMaxKeepRequestReasonBytes = 200;

// A SetWindow waits this long for the store's writer, as a KeepRange does.
constexpr int kSetWindowTimeoutMs = kKeepTimeoutMs;

// The keeps of a trimmed session that start before its trim: their spans
// are stored although older. 0 when it was not trimmed, or the keeps
// cannot be read (the session is worth answering without them).
uint32_t KeepsBeforeTrim(SpanReader& reader, const SessionRecord& record) {
  if (record.trim.before_ns == 0) return 0;
  Result<std::vector<KeepRecord>> keeps = reader.Keeps(record.id);
  if (!keeps.ok()) {
    LogWarning("session {}: keeps not read: {}", record.id, keeps.status().message());
    return 0;
  }
  return static_cast<uint32_t>(
      std::count_if(keeps->begin(), keeps->end(),
                    [&](const KeepRecord& keep) { return keep.first_ns < record.trim.before_ns; }));
}

// `record` as a Session message with the window in force for it (its own,
// else the daemon's `daemon_window`) and the keeps older than its trim.
void SessionToProto(SpanReader& reader, const SessionRecord& record,
                    const WindowLimits& daemon_window, v1::Session* out) {
  ToProto(record, out);
  if (!record.window.overridden) ToProto(daemon_window, false, out->mutable_window());
  out->set_keeps_before_trim(KeepsBeforeTrim(reader, record));
}

grpc::Status DrainBusy() {
  return {StatusCode::UNAVAILABLE, "the daemon's drain thread did not answer in time; try again"};
}

// A read connection of this handler thread's own (SQLite connections are
// not shared between threads).
Result<SpanReader*> ThreadReader(const std::string& db_path) {
  thread_local std::unique_ptr<SpanReader> reader;
  if (!reader) {
    auto opened = SpanReader::Open(db_path);
    if (!opened.ok()) return opened.status();
    reader = std::move(opened).value();
  }
  return reader.get();
}

// QueryOps over this daemon's database.
Result<QueryPage> LocalQueryOps(const std::string& db_path, const v1::QueryOpsRequest& request) {
  auto reader = ThreadReader(db_path);
  if (!reader.ok()) return reader.status();
  return daemon::QueryOps(*reader.value(), request);
}

// Into `state`: the drops of every stored session not in `live` (those
// are counted fresher by the drain loop) and the stored sessions by state.
// A database that cannot be read leaves them unset, with a warning: the
// rest of the status is still worth answering (it says what is wrong with
// the writer).
void ReadStoredSessions(const std::string& db_path, std::span<const SessionId> live,
                        StatusSnapshot* state) {
  auto reader = ThreadReader(db_path);
  Status status = reader.status();
  if (status.ok()) {
    auto drops = reader.value()->SumOfDropsExcept(live);
    auto by_state = reader.value()->SessionsByState();
    status = drops.ok() ? by_state.status() : drops.status();
    if (status.ok()) {
      state->stored_drops = std::move(drops).value();
      state->stored_sessions = std::move(by_state).value();
      return;
    }
  }
  LogWarning("status: stored sessions not read: {}", status.message());
}

void FillOpenOp(const HalfOp& h, const std::string& name, const std::string& tag,
                const std::string& srcloc, int64_t until_ns, v1::OpenOp* out) {
  out->set_op_id(h.op_id);
  out->set_parent_op_id(h.parent_op_id);
  out->set_name(name);
  out->set_tag(tag);
  out->set_source_location(srcloc);
  out->mutable_device()->set_target(TargetToProto(h.target));
  out->mutable_device()->set_ordinal(h.device);
  out->mutable_device()->set_stream(h.stream);
  out->set_start_unix_ns(h.ts_ns);
  out->set_open_for_ns(until_ns > h.ts_ns ? static_cast<uint64_t>(until_ns - h.ts_ns) : 0);
  out->set_thread(h.tid);
}

}  // namespace

OpTraceService::OpTraceService(ServiceContext context) : ctx_(std::move(context)) {}

grpc::Status OpTraceService::LoadSession(SessionId id, const Caller& caller, SessionRecord* out) {
  if (id == 0) return {StatusCode::INVALID_ARGUMENT, "session_id is required"};
  auto reader = ThreadReader(ctx_.db_path);
  if (!reader.ok()) return ToGrpc(reader.status());
  auto session = reader.value()->GetSession(id);
  if (!session.ok()) return ToGrpc(session.status());
  if (!session.value()) {
    return {StatusCode::NOT_FOUND, "no session " + std::to_string(id)};
  }
  if (Status st = CheckMaySee(caller, *session.value()); !st.ok()) return ToGrpc(st);
  *out = std::move(*session.value());
  return grpc::Status::OK;
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* OpTraceService::Tail(grpc::CallbackServerContext* ctx,
                                                                 const grpc::ByteBuffer* raw) {
  v1::TailRequest request;
  if (grpc::ByteBuffer copy(*raw);
      !grpc::GenericDeserialize<grpc::ProtoBufferReader, v1::TailRequest>(&copy, &request).ok()) {
    return RefuseStream<grpc::ByteBuffer>(
        {StatusCode::INVALID_ARGUMENT, "Tail: the request does not parse as a TailRequest"});
  }
  const Caller caller = ctx_.callers->Identify(*ctx);
  if (request.session_id() != 0 && !caller.admin) {
    // Another user's session is refused, not silently tailed to nothing; a
    // session not stored yet is left to the tail's own scope.
    SessionRecord record;
    grpc::Status st = LoadSession(request.session_id(), caller, &record);
    if (st.error_code() == StatusCode::PERMISSION_DENIED) return RefuseStream<grpc::ByteBuffer>(st);
  }
  StreamQuota::Lease lease;
  if (grpc::Status st = ctx_.streams->Open(caller.uid, "Tail", &lease); !st.ok()) {
    return RefuseStream<grpc::ByteBuffer>(st);
  }
  auto subscribed = ctx_.tails->Subscribe(request, caller.restriction());
  if (!subscribed.ok()) return RefuseStream<grpc::ByteBuffer>(ToGrpc(subscribed.status()));
  return new TailReactor(ctx_.tails, std::move(subscribed).value(), request.batch(),
                         std::move(lease));
}

grpc::Status OpTraceService::GetLevel(grpc::ServerContext* ctx, const v1::GetLevelRequest*,
                                      v1::GetLevelResponse* response) {
  const Caller caller = ctx_.callers->Identify(*ctx);
  const auto status = ctx_.drain->LiveStatus();
  const auto producers = ctx_.drain->LiveProducers();
  if (!status || !producers) return DrainBusy();
  response->set_default_level(LevelToProto(status->default_level));
  for (const LevelRule& r : ctx_.rules) {
    v1::LevelRule* rule = response->add_rules();
    rule->set_label_pattern(r.label_pattern);
    rule->set_level(LevelToProto(r.level));
  }
  for (const LiveProducer& p : *producers) {
    if (!caller.MaySee(p.record)) continue;
    v1::ProducerLevel* out = response->add_producers();
    out->set_session_id(p.record.id);
    out->set_pid(p.record.pid);
    out->set_label(p.record.label);
    out->set_live(LevelToProto(p.live));
    out->set_requested(LevelToProto(p.requested));
    if (p.override_level) out->set_override(LevelToProto(*p.override_level));
    if (p.tail != abi::LevelValue::kOff) out->set_tail(LevelToProto(p.tail));
  }
  return grpc::Status::OK;
}

grpc::Status OpTraceService::SetLevel(grpc::ServerContext* ctx, const v1::SetLevelRequest* request,
                                      v1::SetLevelResponse* response) {
  const Caller caller = ctx_.callers->Identify(*ctx);
  LevelChange change;
  change.clear = request->clear();
  if (!change.clear) {
    const auto level = LevelFromProto(request->level());
    if (!level) {
      return {StatusCode::INVALID_ARGUMENT,
              "level is required (LEVEL_OFF .. LEVEL_TRACE), or clear to remove overrides"};
    }
    change.level = *level;
  }
  const int scopes =
      (request->session_id() != 0) + (request->pid() != 0) + !request->label().empty();
  if (scopes > 1) {
    return {StatusCode::INVALID_ARGUMENT, "give at most one of session_id, pid and label"};
  }
  if (request->label().size() >= abi::kLabelBytes) {
    return {StatusCode::INVALID_ARGUMENT, "label is longer than a session label can be (63 bytes)"};
  }
  if (Status st = CheckLevelScope(caller, *request); !st.ok()) return ToGrpc(st);
  if (request->session_id() != 0) {
    SessionRecord record;
    if (grpc::Status st = LoadSession(request->session_id(), caller, &record); !st.ok()) return st;
  }
  if (request->pid() != 0 && !caller.admin) {
    if (grpc::Status st = CheckPidControllable(request->pid(), caller); !st.ok()) return st;
  }
  change.session = request->session_id();
  change.pid = request->pid();
  change.label = request->label();
  change.uid = caller.restriction();
  const auto reached = ctx_.drain->ApplyLevelChange(change);
  if (!reached) return DrainBusy();
  response->set_producers_reached(*reached);
  response->set_level(change.clear ? v1::LEVEL_UNSPECIFIED : LevelToProto(change.level));
  return grpc::Status::OK;
}

grpc::Status OpTraceService::ListSessions(grpc::ServerContext* ctx,
                                          const v1::ListSessionsRequest* request,
                                          v1::ListSessionsResponse* response) {
  const Caller caller = ctx_.callers->Identify(*ctx);
  auto reader = ThreadReader(ctx_.db_path);
  if (!reader.ok()) return ToGrpc(reader.status());
  auto sessions =
      request->all() ? reader.value()->ListSessions() : reader.value()->RunningSessions();
  if (!sessions.ok()) return ToGrpc(sessions.status());
  const auto producers = ctx_.drain->LiveProducers();
  for (const SessionRecord& r : sessions.value()) {
    if (!caller.MaySee(r)) continue;
    if (request->limit() != 0 &&
        static_cast<uint32_t>(response->sessions_size()) >= request->limit())
      break;
    v1::Session* out = response->add_sessions();
    SessionToProto(*reader.value(), r, ctx_.window, out);
    if (!producers) continue;
    for (const LiveProducer& p : *producers) {
      if (p.record.id != r.id) continue;
      // Live counters are fresher than the last stored batch; what was
      // trimmed, and the session's own window, only the store knows.
      SessionRecord live = p.record;
      CopyStoreKept(r, &live);
      SessionToProto(*reader.value(), live, ctx_.window, out);
      out->set_live_level(LevelToProto(p.live));
    }
  }
  return grpc::Status::OK;
}

grpc::Status OpTraceService::GetSession(grpc::ServerContext* ctx,
                                        const v1::GetSessionRequest* request,
                                        v1::GetSessionResponse* response) {
  const Caller caller = ctx_.callers->Identify(*ctx);
  SessionRecord record;
  if (grpc::Status st = LoadSession(request->session_id(), caller, &record); !st.ok()) return st;
  auto reader = ThreadReader(ctx_.db_path);
  if (!reader.ok()) return ToGrpc(reader.status());
  SessionToProto(*reader.value(), record, ctx_.window, response->mutable_session());
  if (record.state == SessionState::kRunning) {
    if (const auto producers = ctx_.drain->LiveProducers()) {
      for (const LiveProducer& p : *producers) {
        if (p.record.id != record.id) continue;
        SessionRecord live = p.record;  // fresher than the store, but for what it keeps
        CopyStoreKept(record, &live);
        SessionToProto(*reader.value(), live, ctx_.window, response->mutable_session());
        response->mutable_session()->set_live_level(LevelToProto(p.live));
      }
    }
    const auto open = ctx_.drain->OpenOps(record.id, ctx_.max_open_ops_returned);
    if (!open) return DrainBusy();
    if (*open) {
      const auto now = static_cast<int64_t>(ClockNowNs(CLOCK_REALTIME));
      for (const OpenOpView& op : **open) {
        FillOpenOp(op.launch, op.name, op.tag, op.srcloc, now, response->add_open_ops());
      }
      return grpc::Status::OK;
    }
  }
  // Ended: the ops it left open are its incomplete spans (the first ones,
  // by start).
  v1::QueryOpsRequest query;
  query.set_session_id(record.id);
  query.mutable_filter()->set_status(v1::SPAN_STATUS_INCOMPLETE);
  query.set_limit(static_cast<uint32_t>(
      std::min<size_t>(kMaxQueryLimit, std::max<size_t>(1, ctx_.max_open_ops_returned))));
  auto page = daemon::QueryOps(*reader.value(), query);
  if (!page.ok()) return ToGrpc(page.status());
  for (const v1::Span& s : page.value().spans) {
    v1::OpenOp* op = response->add_open_ops();
    op->set_op_id(s.op_id());
    op->set_parent_op_id(s.parent_op_id());
    op->set_name(s.name());
    op->set_tag(s.tag());
    op->set_source_location(s.source_location());
    *op->mutable_device() = s.device();
    op->set_start_unix_ns(s.start_unix_ns());
    op->set_open_for_ns(record.end_ns > s.start_unix_ns()
                            ? static_cast<uint64_t>(record.end_ns - s.start_unix_ns())
                            : 0);
    op->set_thread(s.launch_thread());
  }
  return grpc::Status::OK;
}

grpc::Status OpTraceService::CheckPidControllable(uint32_t pid, const Caller& caller) const {
  const auto producers = ctx_.drain->LiveProducers();
  if (!producers) return DrainBusy();
  // Pids repeat across PID namespaces, and a producer may claim any pid:
  // the caller's own producers of that pid are reached (the change is
  // limited to them), and only a pid that names nothing but other users'
  // producers is refused.
  std::optional<Status> refusal;
  for (const LiveProducer& p : *producers) {
    if (p.record.pid != pid || p.record.state != SessionState::kRunning) continue;
    Status st = CheckMaySee(caller, p.record);
    if (st.ok()) return grpc::Status::OK;
    if (!refusal) refusal = std::move(st);
  }
  return refusal ? ToGrpc(*refusal) : grpc::Status::OK;
}

grpc::Status OpTraceService::CheckFleetAllowed(const Caller& caller) const {
  // The right first: a caller who may never ask learns it at once.
  if (Status st = CheckAdmin(caller, "a fleet query (it shows every user's spans)"); !st.ok()) {
    return ToGrpc(st);
  }
  if (ctx_.fleet == nullptr) {
    return {StatusCode::FAILED_PRECONDITION,
            "fleet queries need ClickHouse, and this daemon does not forward to one: start "
            "optraced with --forward-clickhouse URL (or forward_clickhouse_url in its config)"};
  }
  return grpc::Status::OK;
}

template <typename Response, typename Request>
grpc::ServerWriteReactor<Response>* OpTraceService::StartThreadedStream(
    grpc::CallbackServerContext* ctx, const char* name, const Request& request,
    grpc::Status (OpTraceService::*body)(const Caller&, const Request&,
                                         BlockingStream<Response>*)) {
  const Caller caller = ctx_.callers->Identify(*ctx);
  StreamQuota::Lease lease;
  if (grpc::Status st = ctx_.streams->OpenThreaded(caller.uid, name, &lease); !st.ok()) {
    return RefuseStream<Response>(st);
  }
  return BlockingStream<Response>::Start(
      [this, caller, request, body](BlockingStream<Response>* writer) {
        return (this->*body)(caller, request, writer);
      },
      std::move(lease));
}

grpc::ServerWriteReactor<v1::QueryOpsResponse>* OpTraceService::QueryOps(
    grpc::CallbackServerContext* ctx, const v1::QueryOpsRequest* request) {
  return StartThreadedStream(ctx, "QueryOps", *request, &OpTraceService::QueryOpsBody);
}

grpc::Status OpTraceService::QueryOpsBody(const Caller& caller,
                                          const v1::QueryOpsRequest& request_value,
                                          BlockingStream<v1::QueryOpsResponse>* writer) {
  const v1::QueryOpsRequest* request = &request_value;
  if (request->fleet()) {
    if (grpc::Status st = CheckFleetAllowed(caller); !st.ok()) return st;
  } else {
    if (Status st = CheckNoFleetFields(*request); !st.ok()) return ToGrpc(st);
    SessionRecord record;
    if (grpc::Status st = LoadSession(request->session_id(), caller, &record); !st.ok()) return st;
  }
  const Result<QueryPage> page =
      request->fleet() ? ctx_.fleet->QueryOps(*request) : LocalQueryOps(ctx_.db_path, *request);
  if (!page.ok()) return ToGrpc(page.status());
  constexpr size_t kSpansPerMessage = 2000;
  const auto& spans = page.value().spans;
  size_t i = 0;
  do {
    v1::QueryOpsResponse chunk;
    for (size_t end = std::min(spans.size(), i + kSpansPerMessage); i < end; ++i) {
      *chunk.add_spans() = spans[i];
    }
    if (i == spans.size()) chunk.set_next_cursor(page.value().next_cursor);
    if (!writer->Write(std::move(chunk))) return grpc::Status::OK;
  } while (i < spans.size());
  return grpc::Status::OK;
}

template <typename Request, typename Response>
grpc::Status OpTraceService::SessionQuery(grpc::ServerContext* ctx, const Request& request,
                                          Response* response,
                                          Status (*query)(SpanReader&, const Request&, Response*)) {
  const Caller caller = ctx_.callers->Identify(*ctx);
  SessionRecord record;
  if (grpc::Status st = LoadSession(request.session_id(), caller, &record); !st.ok()) return st;
  auto reader = ThreadReader(ctx_.db_path);
  if (!reader.ok()) return ToGrpc(reader.status());
  return ToGrpc(query(*reader.value(), request, response));
}

grpc::Status OpTraceService::GetStats(grpc::ServerContext* ctx, const v1::GetStatsRequest* request,
                                      v1::GetStatsResponse* response) {
  const Caller caller = ctx_.callers->Identify(*ctx);
  if (request->fleet()) {
    if (grpc::Status st = CheckFleetAllowed(caller); !st.ok()) return st;
    return ToGrpc(ctx_.fleet->GetStats(*request, response));
  }
  if (Status st = CheckNoFleetFields(*request); !st.ok()) return ToGrpc(st);
  SessionRecord record;
  if (grpc::Status st = LoadSession(request->session_id(), caller, &record); !st.ok()) return st;
  auto reader = ThreadReader(ctx_.db_path);
  if (!reader.ok()) return ToGrpc(reader.status());
  // A pass over a large session reads on a second thread only when the
  // caller's share of threads allows one; held until the answer is built.
  StreamQuota::Lease helper;
  QueryLimits limits = ctx_.query_limits;
  limits.second_thread = [&] { return ctx_.streams->TryTakeThread(caller.uid, &helper); };
  return ToGrpc(daemon::GetStats(*reader.value(), *request, limits, response));
}

grpc::Status OpTraceService::GetTree(grpc::ServerContext* ctx, const v1::GetTreeRequest* request,
                                     v1::GetTreeResponse* response) {
  return SessionQuery(ctx, *request, response, &daemon::GetTree);
}

grpc::Status OpTraceService::GetSteps(grpc::ServerContext* ctx, const v1::GetStepsRequest* request,
                                      v1::GetStepsResponse* response) {
  return SessionQuery(ctx, *request, response, &daemon::GetSteps);
}

grpc::Status OpTraceService::GetTimeline(grpc::ServerContext* ctx,
                                         const v1::GetTimelineRequest* request,
                                         v1::GetTimelineResponse* response) {
  return SessionQuery(
      ctx, *request, response,
      +[](SpanReader& reader, const v1::GetTimelineRequest& timeline,
          v1::GetTimelineResponse* out) {
        return daemon::GetTimeline(reader, timeline, TimelineBounds{}, out);
      });
}

grpc::Status OpTraceService::ExplainStep(grpc::ServerContext* ctx,
                                         const v1::ExplainStepRequest* request,
                                         v1::ExplainStepResponse* response) {
  return SessionQuery(ctx, *request, response, &daemon::ExplainStep);
}

grpc::Status OpTraceService::GetSource(grpc::ServerContext* ctx,
                                       const v1::GetSourceRequest* request,
                                       v1::GetSourceResponse* response) {
  return SessionQuery(ctx, *request, response, &daemon::GetSource);
}

grpc::Status OpTraceService::CompareSessions(grpc::ServerContext* ctx,
                                             const v1::CompareSessionsRequest* request,
                                             v1::CompareSessionsResponse* response) {
  const Caller caller = ctx_.callers->Identify(*ctx);
  if (request->fleet()) {
    if (grpc::Status st = CheckFleetAllowed(caller); !st.ok()) return st;
    return ToGrpc(ctx_.fleet->CompareSessions(*request, response));
  }
  if (Status st = CheckNoFleetFields(*request); !st.ok()) return ToGrpc(st);
  SessionRecord a, b;
  if (grpc::Status st = LoadSession(request->session_a(), caller, &a); !st.ok()) return st;
  if (grpc::Status st = LoadSession(request->session_b(), caller, &b); !st.ok()) return st;
  auto reader = ThreadReader(ctx_.db_path);
  if (!reader.ok()) return ToGrpc(reader.status());
  return ToGrpc(daemon::CompareSessions(*reader.value(), *request, ctx_.query_limits, response));
}

grpc::ServerWriteReactor<v1::ExportChunk>* OpTraceService::Export(
    grpc::CallbackServerContext* ctx, const v1::ExportRequest* request) {
  return StartThreadedStream(ctx, "Export", *request, &OpTraceService::ExportBody);
}

grpc::Status OpTraceService::ExportBody(const Caller& caller,
                                        const v1::ExportRequest& request_value,
                                        BlockingStream<v1::ExportChunk>* writer) {
  const v1::ExportRequest* request = &request_value;
  SessionRecord record;
  if (grpc::Status st = LoadSession(request->session_id(), caller, &record); !st.ok()) return st;
  auto reader = ThreadReader(ctx_.db_path);
  if (!reader.ok()) return ToGrpc(reader.status());
  uint64_t total = 0;
  bool first = true;
  const Status st = ExportSession(
      *reader.value(), *request, [&](uint64_t count) { total = count; },
      [&](std::string_view bytes, uint64_t done) {
        v1::ExportChunk chunk;
        chunk.set_data(std::string(bytes));
        if (first) chunk.set_span_count(total);
        first = false;
        chunk.set_spans_done(done);
        return !writer->cancelled() && writer->Write(std::move(chunk));
      });
  return ToGrpc(st);
}

grpc::Status OpTraceService::GetStatus(grpc::ServerContext* ctx, const v1::GetStatusRequest*,
                                       v1::GetStatusResponse* response) {
  const Caller caller = ctx_.callers->Identify(*ctx);
  if (!FullStatus(response)) return DrainBusy();
  LimitStatusToCaller(caller, response);
  return grpc::Status::OK;
}

bool OpTraceService::FullStatus(v1::GetStatusResponse* response) const {
  auto drain = ctx_.drain->LiveStatus();
  if (!drain) return false;
  StatusSnapshot state{
      .version = ctx_.version,
      .ns = ctx_.ns,
      .db_path = ctx_.db_path,
      .uptime = std::chrono::steady_clock::now() - ctx_.started,
      .drain = std::move(*drain),
      .counters = &ctx_.drain->counters(),
      .store = ctx_.store->GetStatus(),
      .stored_drops = std::nullopt,  // ReadStoredSessions, below
      .stored_sessions = {},
      .tails = static_cast<uint32_t>(ctx_.tails->size()),
      .serving = {.tail_records_published = ctx_.tails->published(),
                  .tail_items_skipped = ctx_.tails->skipped(),
                  .streams_open = ctx_.streams->streams(),
                  .stream_bytes_in_flight = ctx_.streams->bytes_in_flight(),
                  .accepts_paused_fd_limit =
                      ctx_.accepts->accepts_paused_fd_limit.load(std::memory_order_relaxed)},
      .forward =
          ctx_.forwarder != nullptr ? std::optional(ctx_.forwarder->GetStatus()) : std::nullopt,
      .listeners = ctx_.listeners,
  };
  ReadStoredSessions(ctx_.db_path, state.drain.live_sessions, &state);
  FillStatusReport(state, response);
  return true;
}

grpc::Status OpTraceService::KeepRange(grpc::ServerContext* ctx,
                                       const v1::KeepRangeRequest* request,
                                       v1::KeepRangeResponse* response) {
  const bool has_range = request->first_unix_ns() != 0 || request->last_unix_ns() != 0;
  if (has_range == (request->last_ns() > 0)) {
    return {StatusCode::INVALID_ARGUMENT,
            "KeepRange: give either first_unix_ns and last_unix_ns, or last_ns"};
  }
  if (request->last_ns() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return {StatusCode::INVALID_ARGUMENT,
            "KeepRange: last_ns " + std::to_string(request->last_ns()) + " is out of range"};
  }
  if (request->reason().size() > kMaxKeepRequestReasonBytes) {
    return {StatusCode::INVALID_ARGUMENT,
            "KeepRange: reason of " + std::to_string(request->reason().size()) +
                " bytes is longer than " + std::to_string(kMaxKeepRequestReasonBytes)};
  }
  const Caller caller = ctx_.callers->Identify(*ctx);
  SessionRecord record;
  if (grpc::Status st = LoadSession(request->session_id(), caller, &record); !st.ok()) return st;
  Result<KeepRecord> kept = ctx_.store->Keep(
      {.session = record.id,
       .first_ns = request->first_unix_ns(),
       .last_ns = request->last_unix_ns(),
       .last_duration_ns = static_cast<int64_t>(request->last_ns()),
       .reason = request->reason().empty() ? std::string("keep") : request->reason()},
      kKeepTimeoutMs);
  if (!kept.ok()) return ToGrpc(kept.status());
  ToProto(kept.value(), response->mutable_keep());
  return grpc::Status::OK;
}

grpc::Status OpTraceService::ListKeeps(grpc::ServerContext* ctx,
                                       const v1::ListKeepsRequest* request,
                                       v1::ListKeepsResponse* response) {
  const Caller caller = ctx_.callers->Identify(*ctx);
  SessionRecord record;
  if (grpc::Status st = LoadSession(request->session_id(), caller, &record); !st.ok()) return st;
  auto reader = ThreadReader(ctx_.db_path);
  if (!reader.ok()) return ToGrpc(reader.status());
  Result<std::vector<KeepRecord>> keeps = reader.value()->Keeps(record.id);
  if (!keeps.ok()) return ToGrpc(keeps.status());
  for (const KeepRecord& keep : keeps.value()) ToProto(keep, response->add_keeps());
  return grpc::Status::OK;
}

grpc::Status OpTraceService::SetWindow(grpc::ServerContext* ctx,
                                       const v1::SetWindowRequest* request,
                                       v1::SetWindowResponse* response) {
  if (request->keep_last_ns() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return {
        StatusCode::INVALID_ARGUMENT,
        "SetWindow: keep_last_ns " + std::to_string(request->keep_last_ns()) + " is out of range"};
  }
  if (request->use_default() && (request->keep_last_ns() != 0 || request->keep_last_bytes() != 0)) {
    return {StatusCode::INVALID_ARGUMENT,
            "SetWindow: use_default goes back to the daemon's window; give no keep_last_ns or "
            "keep_last_bytes with it"};
  }
  const Caller caller = ctx_.callers->Identify(*ctx);
  SessionRecord record;
  if (grpc::Status st = LoadSession(request->session_id(), caller, &record); !st.ok()) return st;
  std::optional<WindowLimits> own;
  if (!request->use_default()) {
    own = WindowLimits{.keep_last_ns = static_cast<int64_t>(request->keep_last_ns()),
                       .keep_last_bytes = request->keep_last_bytes()};
  }
  Result<WindowLimits> in_force = ctx_.store->SetWindow(record.id, own, kSetWindowTimeoutMs);
  if (!in_force.ok()) return ToGrpc(in_force.status());
  ToProto(in_force.value(), own.has_value(), response->mutable_window());
  return grpc::Status::OK;
}

}  // namespace optrace::daemon
