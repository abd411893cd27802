#include "ui/ui_live.h"

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "common/level_names.h"
#include "proto_names.h"
#include "tail_command.h"
#include "ui/live_relay.h"
#include "ui/ui_endpoint.h"

namespace optrace::cli {
namespace {

using http::HttpRequest;
using http::HttpResponse;

// The filters of the query as `optrace tail` takes them; a 400 for a bad one.
std::variant<TailOptions, HttpResponse> ParseLiveQuery(const HttpRequest& request) {
  TailOptions options;
  auto session = QueryWord<uint64_t>(request, "session", ParseRouteId, 0, "a session id");
  if (auto* error = std::get_if<HttpResponse>(&session)) return std::move(*error);
  auto pid = QueryWord<uint32_t>(request, "pid", ParseWhole<uint32_t>, 0, "a process id");
  if (auto* error = std::get_if<HttpResponse>(&pid)) return std::move(*error);
  auto level = QueryWord<v1::Level>(request, "level", ParseLevelWord, v1::LEVEL_UNSPECIFIED,
                                    std::string(LevelNameList()));
  if (auto* error = std::get_if<HttpResponse>(&level)) return std::move(*error);
  auto target = QueryWord<v1::Target>(request, "target", ParseTargetWord, v1::TARGET_UNSPECIFIED,
                                      TargetWordList());
  if (auto* error = std::get_if<HttpResponse>(&target)) return std::move(*error);
  auto spans = QueryWord<bool>(request, "spans", ParseBoolWord, false, "0, 1, false, true");
  if (auto* error = std::get_if<HttpResponse>(&spans)) return std::move(*error);
  options.session_id = std::get<uint64_t>(session);
  options.pid = std::get<uint32_t>(pid);
  if (std::get<v1::Level>(level) != v1::LEVEL_UNSPECIFIED)
    options.level = std::get<v1::Level>(level);
  if (std::get<v1::Target>(target) != v1::TARGET_UNSPECIFIED) {
    options.target = std::get<v1::Target>(target);
  }
  options.spans = std::get<bool>(spans);
  if (const auto label = request.query.find("label"); label != request.query.end()) {
    options.label = label->second;
  }
  if (const auto name = request.query.find("name"); name != request.query.end()) {
    options.name_pattern = name->second;
  }
  return options;
}

// One open stream's place among kMaxLiveStreams: taken when made, given
// back when destroyed (with the answer that holds it).
class LiveStreamSlot {
 public:
  // nullptr when all are taken.
  static std::unique_ptr<LiveStreamSlot> Take(std::atomic<int>& open) {
    int now = open.load(std::memory_order_relaxed);
    do {
      if (now >= kMaxLiveStreams) return nullptr;
      // Relaxed: the count guards nothing but itself.
    } while (!open.compare_exchange_weak(now, now + 1, std::memory_order_relaxed));
    return std::unique_ptr<LiveStreamSlot>(new LiveStreamSlot(open));
  }
  ~LiveStreamSlot() { open_.fetch_sub(1, std::memory_order_relaxed); }
  LiveStreamSlot(const LiveStreamSlot&) = delete;
  LiveStreamSlot& operator=(const LiveStreamSlot&) = delete;

 private:
  explicit LiveStreamSlot(std::atomic<int>& open) : open_(open) {}
  std::atomic<int>& open_;
};

// What the answer's stream holds: the relay, then its slot (given back last).
struct LiveStream {
  std::unique_ptr<LiveStreamSlot> slot;
  std::unique_ptr<LiveRelay> relay;  // after slot: cancelled before the slot frees
};

HttpResponse OpenLiveStream(Connection& connection, std::atomic<int>& open,
                            const HttpRequest& request) {
  auto parsed = ParseLiveQuery(request);
  if (auto* error = std::get_if<HttpResponse>(&parsed)) return std::move(*error);
  const TailOptions& options = std::get<TailOptions>(parsed);
  if (options.session_id != 0) {  // an unknown session: a 404 now, not an end event later
    v1::GetSessionRequest get;
    get.set_session_id(options.session_id);
    v1::GetSessionResponse session;
    const auto context = connection.NewContext();
    const grpc::Status status = connection.stub().GetSession(context.get(), get, &session);
    if (!status.ok()) return RpcErrorResponse(status, connection, options.session_id);
  }
  auto stream = std::make_shared<LiveStream>();
  stream->slot = LiveStreamSlot::Take(open);
  if (!stream->slot) {
    return JsonErrorResponse(503, "already " + std::to_string(kMaxLiveStreams) +
                                      " live pages open on this server: close one");
  }
  stream->relay =
      std::make_unique<LiveRelay>(connection, BuildTailRequest(options), kItemsPerPeriod, kPeriod);
  HttpResponse response;
  response.content_type = "text/event-stream";
  response.stream = [stream](const std::function<bool(std::string_view)>& write) {
    const std::optional<std::string> text = stream->relay->Next();
    return text.has_value() && write(*text);
  };
  return response;
}

}  // namespace

void AddUiLiveRoutes(UiRouter& router, Connection& connection) {
  Connection* daemon = &connection;
  auto open = std::make_shared<std::atomic<int>>(0);
  router.Add("GET", "/api/live", [daemon, open](const HttpRequest& request, const RouteMatch&) {
    return OpenLiveStream(*daemon, *open, request);
  });
}

}  // namespace optrace::cli
