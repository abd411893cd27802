// One Tail stream's view of the live records: its filter, its cursor into
// the hub's broadcast buffer, and the protobuf items it builds from what
// passes. All of it runs on the serving side, never on the drain thread.
#ifndef OPTRACE_DAEMON_LIVE_TAIL_SUBSCRIPTION_H_
#define OPTRACE_DAEMON_LIVE_TAIL_SUBSCRIPTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "live/live_source.h"
#include "live/tail_message_encoder.h"
#include "model/session_record.h"
#include "optrace/abi.h"

namespace re2 {
class RE2;
}

namespace optrace::daemon {

// Thread rules: Next and the counters from one serving thread at a time
// (the stream that owns it); filter() and CoversProducer from any thread
// (both are immutable).
class TailSubscription {
 public:
  struct Filter {
    abi::LevelValue level = abi::LevelValue::kTrace;
    SessionId session = 0;
    uint32_t pid = 0;
    std::string label;
    std::unique_ptr<re2::RE2> pattern;
    uint8_t target = 0;
    std::optional<uint16_t> device;
    uint64_t min_duration_ns = 0;
    bool events = true;
    bool spans = false;
    std::optional<uint32_t> uid;  // callers who may only see their own sessions
  };

  // Starts reading at position `start` of `source.records` (what is
  // published from then on). `source` must outlive the subscription.
  TailSubscription(Filter filter, LiveSource source, uint64_t start);
  ~TailSubscription();
  TailSubscription(const TailSubscription&) = delete;
  TailSubscription& operator=(const TailSubscription&) = delete;

  // Encodes into `out` (from its Begin) what follows the cursor: one item,
  // or, when `batch`, a TailBatch of up to kMaxBatchItems items and
  // TailMessageEncoder::kMaxBatchBytes (a record that does not fit waits
  // for the next message). Records
  // lost to the writer (it overtook this reader) come first as a Lag item
  // counting them all, whichever session or kind they were: the filter
  // cannot be asked about a record that is gone. Returns false (`out`
  // empty) when nothing new passes the filter.
  bool Next(bool batch, TailMessageEncoder& out);

  // The position Next reads from next.
  uint64_t cursor() const { return cursor_; }
  // Whether records follow the cursor (Next may still find that none
  // passes the filter).
  bool RecordsPending() const { return source_.records->published() > cursor_; }
  // Items sent and records lost so far (lag markers included in neither).
  uint64_t delivered() const { return delivered_; }
  uint64_t skipped() const { return skipped_total_; }

  // Whether this tail covers the producer of `session` (scope and uid).
  bool CoversProducer(const SessionRecord& session) const;
  const Filter& filter() const { return filter_; }
  // What it reads (and what resolves the ids of what it reads).
  const LiveSource& source() const { return source_; }

  static constexpr int kMaxBatchItems = 1024;

 private:
  bool Wants(const LiveRecord& r);
  bool CoversRecord(const LiveRecord& r) const;
  bool NameMatches(StringId name, StringId tag);

  const Filter filter_;
  const LiveSource source_;
  uint64_t cursor_;
  uint64_t lost_pending_ = 0;  // lost, not yet reported in a Lag item
  uint64_t delivered_ = 0;
  uint64_t skipped_total_ = 0;
  std::unordered_map<StringId, bool> match_cache_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_TAIL_SUBSCRIPTION_H_
