// One live page's stream: a Tail stream of the daemon, read on a thread
// of its own into a LiveThinner (live_thinner.h), handed to the page as
// server-sent events (text/event-stream), one period at a time:
//   event: start  data: {"max_items": N, "period_ms": P}     once, first
//   event: batch  data: {"items": [...], "thinned": n, "skipped": n,
//                        "totals": {"received", "forwarded", "thinned",
//                                   "skipped"}}              a period with news
//   ":" (a comment)                                          a period without
//   event: end    data: {"status": S, "message": "..."}      the stream ended
// Items are in the shape of `optrace tail --json`. What the relay holds is
// bounded by the thinner (max_items items and some counters) whatever the
// rate and however slowly the page reads: the reader thread never waits
// for the page. Destroying the relay cancels the Tail call, so that the
// daemon stops serving (and no longer raises producers' levels for) a page
// that went away.
#ifndef OPTRACE_CLI_UI_LIVE_RELAY_H_
#define OPTRACE_CLI_UI_LIVE_RELAY_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "connection.h"
#include "optrace/v1/optrace.pb.h"
#include "ui/live_thinner.h"

namespace optrace::cli {

class LiveRelay {
 public:
  // Starts `request` (TailRequest.batch is set here) on `connection`, which
  // must outlive the relay. REQUIRES: max_items > 0.
  LiveRelay(Connection& connection, v1::TailRequest request, size_t max_items,
            std::chrono::milliseconds period);

  // Cancels the Tail call and joins the reader thread.
  ~LiveRelay();

  LiveRelay(const LiveRelay&) = delete;
  LiveRelay& operator=(const LiveRelay&) = delete;

  // The next text to send: the start event at the first call; then, once
  // the period since the previous call has passed or the stream has ended,
  // that period's batch event or a comment, followed by the end event when
  // the stream has ended; nullopt after the end event was returned.
  // REQUIRES: one caller at a time (the request's thread).
  std::optional<std::string> Next();

 private:
  void Read(v1::TailRequest request);

  Connection& connection_;
  const std::chrono::milliseconds period_;
  const std::unique_ptr<grpc::ClientContext> context_;  // TryCancel is thread-safe
  std::chrono::steady_clock::time_point period_start_;  // the caller's only
  bool started_ = false;                                // the caller's only
  bool end_sent_ = false;                               // the caller's only

  std::mutex mu_;
  std::condition_variable finished_cv_;  // signals finished_
  LiveThinner thinner_;                  // GUARDED_BY(mu_)
  bool finished_ = false;                // GUARDED_BY(mu_): the stream ended
  grpc::Status status_;                  // GUARDED_BY(mu_): how, once finished_

  std::thread reader_;  // last: starts once the members above exist
};

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_LIVE_RELAY_H_
