#include "ui/live_relay.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "json_convert.h"
#include "rpc_error.h"
#include "tail_stream.h"
#include "ui/ui_endpoint.h"

namespace optrace::cli {
namespace {

// "event: NAME\ndata: JSON\n\n"; dump() writes one line (newlines in
// strings are escaped), as a data field must be.
std::string Event(std::string_view name, const nlohmann::json& data) {
  return "event: " + std::string(name) + "\ndata: " + data.dump() + "\n\n";
}

nlohmann::json BatchJson(const LiveBatch& batch) {
  nlohmann::json items = nlohmann::json::array();
  for (const v1::TailResponse& item : batch.items) items.push_back(ToJson(item));
  return {{"items", std::move(items)},
          {"thinned", batch.thinned},
          {"skipped", batch.skipped},
          {"totals",
           {{"received", batch.totals.received},
            {"forwarded", batch.totals.forwarded},
            {"thinned", batch.totals.thinned},
            {"skipped", batch.totals.skipped}}}};
}

}  // namespace

LiveRelay::LiveRelay(Connection& connection, v1::TailRequest request, size_t max_items,
                     std::chrono::milliseconds period)
    : connection_(connection),
      period_(period),
      context_(connection.NewContext(std::nullopt)),
      thinner_(max_items) {
  request.set_batch(true);
  reader_ =
      std::thread([this, request = std::move(request)]() mutable { Read(std::move(request)); });
}

LiveRelay::~LiveRelay() {
  context_->TryCancel();
  reader_.join();
}

void LiveRelay::Read(v1::TailRequest request) {
  const auto stream = connection_.stub().Tail(context_.get(), request);
  ReadTailStream(*stream, [this](const v1::TailResponse& message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (message.has_batch()) {
      for (const v1::TailResponse& item : message.batch().items()) thinner_.Offer(item);
    } else {
      thinner_.Offer(message);
    }
  });
  const grpc::Status status = stream->Finish();
  std::lock_guard<std::mutex> lock(mu_);
  status_ = status;
  finished_ = true;
  finished_cv_.notify_all();
}

std::optional<std::string> LiveRelay::Next() {
  if (end_sent_) return std::nullopt;
  if (!started_) {
    started_ = true;
    period_start_ = std::chrono::steady_clock::now();
    // retry: how long a browser waits before it reconnects a lost stream.
    return "retry: 2000\n" +
           Event("start", {{"max_items", thinner_.max_items()}, {"period_ms", period_.count()}});
  }
  LiveBatch batch;
  std::optional<grpc::Status> ended;
  {
    std::unique_lock<std::mutex> lock(mu_);
    finished_cv_.wait_until(lock, period_start_ + period_, [this] { return finished_; });
    batch = thinner_.Take();
    if (finished_) ended = status_;
  }
  period_start_ = std::chrono::steady_clock::now();
  std::string text = batch.empty() ? ":\n\n" : Event("batch", BatchJson(batch));
  if (ended) {
    end_sent_ = true;
    text += ended->ok()
                ? Event("end", {{"status", 200}, {"message", "the daemon ended the stream"}})
                : Event("end", {{"status", HttpStatusOfRpc(ended->error_code())},
                                {"message", ErrorFromRpc(*ended, connection_.address()).message}});
  }
  return text;
}

}  // namespace optrace::cli
