#include "correlate/span_correlator.h"

#include <algorithm>
#include <limits>

#include "optrace/abi.h"

namespace optrace::daemon {
namespace {

constexpr auto kLaunch = static_cast<uint8_t>(abi::EventKind::kLaunch);
constexpr auto kComplete = static_cast<uint8_t>(abi::EventKind::kComplete);

}  // namespace

SpanCorrelator::SpanCorrelator(std::function<uint64_t(uint64_t, uint64_t)> duration_ns,
                               size_t max_open, size_t max_pending)
    : duration_ns_(std::move(duration_ns)), max_open_(max_open), max_pending_(max_pending) {}

Span SpanCorrelator::PairedSpan(const HalfOp& launch, const HalfOp& complete,
                                uint64_t children_ns) const {
  Span s;
  s.op_id = launch.op_id;
  s.parent_op_id = launch.parent_op_id;
  s.start_ns = launch.ts_ns;
  s.duration_ns = duration_ns_(launch.raw_ts, complete.raw_ts);
  s.children_ns = std::min(children_ns, s.duration_ns);
  s.device_ns = complete.device_ns;
  s.has_device_ns = complete.has_device_ns;
  s.name = launch.name;
  s.tag = launch.tag;
  s.srcloc = launch.srcloc;
  s.launch_tid = launch.tid;
  s.complete_tid = complete.tid;
  s.stream = launch.stream;
  s.device = launch.device;
  s.target = launch.target;
  s.status = SpanStatus::kOk;
  return s;
}

Span SpanCorrelator::LoneSpan(const HalfOp& half, SpanStatus status) {
  Span s;
  s.op_id = half.op_id;
  s.parent_op_id = half.parent_op_id;
  s.start_ns = half.ts_ns;
  s.device_ns = half.device_ns;
  s.has_device_ns = half.has_device_ns;
  s.name = half.name;
  s.tag = half.tag;
  s.srcloc = half.srcloc;
  (half.kind == kLaunch ? s.launch_tid : s.complete_tid) = half.tid;
  s.stream = half.stream;
  s.device = half.device;
  s.target = half.target;
  s.status = status;
  return s;
}

void SpanCorrelator::CreditParent(const Span& child, ThreadStack* stack) {
  if (child.parent_op_id == 0 || child.launch_tid != child.complete_tid || child.has_device_ns) {
    return;
  }
  Waiting* parent = nullptr;
  if (stack != nullptr && !stack->open.empty() &&
      stack->open.back().half.op_id == child.parent_op_id) {
    parent = &stack->open.back();
  } else if (!open_.empty()) {
    if (auto it = open_.find(child.parent_op_id); it != open_.end()) parent = &it->second;
  }
  if (parent == nullptr || parent->half.tid != child.launch_tid) return;
  const uint64_t room = std::numeric_limits<uint64_t>::max() - parent->children_ns;
  parent->children_ns += std::min(child.duration_ns, room);
}

void SpanCorrelator::Close(const Waiting& w, CorrelatorOutput* out) {
  if (w.persisted) out->halves_closed.emplace_back(w.half.op_id, w.half.kind);
}

SpanCorrelator::ThreadStack* SpanCorrelator::StackOf(uint32_t tid) {
  if (last_stack_ < stacks_.size() && stacks_[last_stack_].tid == tid) {
    return &stacks_[last_stack_];
  }
  for (size_t i = 0; i < stacks_.size(); ++i) {
    if (stacks_[i].tid == tid) {
      last_stack_ = i;
      return &stacks_[i];
    }
  }
  if (stacks_.size() >= kMaxStacks) return nullptr;
  stacks_.push_back({tid, {}});
  last_stack_ = stacks_.size() - 1;
  return &stacks_.back();
}

void SpanCorrelator::SpillStacks() {
  if (stacked_ == 0) return;
  for (ThreadStack& stack : stacks_) {
    for (Waiting& w : stack.open) {
      const uint64_t id = w.half.op_id;
      if (!w.persisted) unpersisted_.emplace_back(id, kLaunch);
      open_.emplace(id, std::move(w));
    }
    stack.open.clear();
  }
  stacked_ = 0;
}

void SpanCorrelator::Add(const HalfOp& half, CorrelatorOutput* out) {
  ThreadStack* stack = StackOf(half.tid);
  if (stack != nullptr) {
    if (half.kind == kComplete && !stack->open.empty() &&
        stack->open.back().half.op_id == half.op_id) {
      // The innermost open op of this thread ends: the scoped case.
      const Waiting& w = stack->open.back();
      out->spans.push_back(PairedSpan(w.half, half, w.children_ns));
      ++stats_.spans;
      Close(w, out);
      stack->open.pop_back();
      --stacked_;
      CreditParent(out->spans.back(), stack);
      return;
    }
    // A LAUNCH above its thread's innermost op that nobody else waits for
    // or holds: the scoped case too. (Op ids increase on each thread.)
    if (half.kind == kLaunch &&
        (stack->open.empty() || stack->open.back().half.op_id < half.op_id) &&
        open_count() < max_open_ && (pending_.empty() || pending_.count(half.op_id) == 0) &&
        (open_.empty() || open_.count(half.op_id) == 0)) {
      stack->open.push_back(Waiting{half, false});
      ++stacked_;
      return;
    }
  }
  SpillStacks();
  AddToMaps(half, out);
}

void SpanCorrelator::AddToMaps(const HalfOp& half, CorrelatorOutput* out) {
  const bool launch = half.kind == kLaunch;
  WaitingMap& partners = launch ? pending_ : open_;
  WaitingMap& mine = launch ? open_ : pending_;
  if (auto it = partners.find(half.op_id); it != partners.end()) {
    // A LAUNCH arriving after its COMPLETE has had no children yet.
    out->spans.push_back(launch ? PairedSpan(half, it->second.half, 0)
                                : PairedSpan(it->second.half, half, it->second.children_ns));
    ++stats_.spans;
    Close(it->second, out);
    partners.erase(it);
    CreditParent(out->spans.back(), nullptr);
    return;
  }
  // A second half of the same kind for a waiting id: stored on its own and
  // marked, never merged with the first.
  if (mine.count(half.op_id) != 0) {
    out->spans.push_back(LoneSpan(half, SpanStatus::kDuplicate));
    ++stats_.spans;
    ++stats_.duplicates;
    return;
  }
  if (launch) {
    EvictIfFull(open_, max_open_, SpanStatus::kIncomplete, &stats_.evicted_open, out);
  } else {
    EvictIfFull(pending_, max_pending_, SpanStatus::kCompleteWithoutLaunch, &stats_.evicted_pending,
                out);
  }
  mine.emplace(half.op_id, Waiting{half, false});
  unpersisted_.emplace_back(half.op_id, half.kind);
}

void SpanCorrelator::EvictIfFull(WaitingMap& map, size_t cap, SpanStatus status, uint64_t* counter,
                                 CorrelatorOutput* out) {
  if (map.size() < cap) return;
  // Op ids increase with time on each thread: the smallest are the oldest.
  std::vector<uint64_t> ids;
  ids.reserve(map.size());
  for (const auto& [id, w] : map) ids.push_back(id);
  const size_t evict = std::max<size_t>(1, map.size() / 10);
  std::nth_element(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(evict - 1), ids.end());
  const uint64_t limit = ids[evict - 1];
  for (auto it = map.begin(); it != map.end();) {
    if (it->first <= limit) {
      out->spans.push_back(LoneSpan(it->second.half, status));
      ++stats_.spans;
      ++*counter;
      Close(it->second, out);
      it = map.erase(it);
    } else {
      ++it;
    }
  }
}

void SpanCorrelator::PersistWaiting(CorrelatorOutput* out) {
  // Stacked LAUNCHes: only the ops open now (a few per thread).
  for (ThreadStack& stack : stacks_) {
    for (Waiting& w : stack.open) {
      if (w.persisted) continue;
      w.persisted = true;
      out->halves_opened.push_back(w.half);
    }
  }
  for (const auto& [op_id, kind] : unpersisted_) {
    WaitingMap& map = kind == kLaunch ? open_ : pending_;
    auto it = map.find(op_id);
    if (it == map.end() || it->second.persisted) continue;  // paired meanwhile
    it->second.persisted = true;
    out->halves_opened.push_back(it->second.half);
  }
  unpersisted_.clear();
}

void SpanCorrelator::Unpersist(const std::vector<HalfOp>& halves) {
  SpillStacks();  // rare (a shed batch): look them up in one place
  for (const HalfOp& h : halves) {
    WaitingMap& map = h.kind == kLaunch ? open_ : pending_;
    auto it = map.find(h.op_id);
    if (it == map.end()) continue;
    it->second.persisted = false;
    unpersisted_.emplace_back(h.op_id, h.kind);
  }
}

void SpanCorrelator::Finish(CorrelatorOutput* out) {
  SpillStacks();
  for (const auto& [id, w] : open_) {
    out->spans.push_back(LoneSpan(w.half, SpanStatus::kIncomplete));
    ++stats_.incomplete;
    Close(w, out);
  }
  for (const auto& [id, w] : pending_) {
    out->spans.push_back(LoneSpan(w.half, SpanStatus::kCompleteWithoutLaunch));
    ++stats_.completes_without_launch;
    Close(w, out);
  }
  stats_.spans += open_.size() + pending_.size();
  open_.clear();
  pending_.clear();
  unpersisted_.clear();
}

void SpanCorrelator::Restore(const std::vector<HalfOp>& halves) {
  for (const HalfOp& h : halves) {
    if (h.kind != kLaunch && h.kind != kComplete) continue;
    (h.kind == kLaunch ? open_ : pending_).emplace(h.op_id, Waiting{h, true});
  }
}

std::vector<HalfOp> SpanCorrelator::OpenLaunches(size_t max) const {
  const auto older = [](const HalfOp& a, const HalfOp& b) { return a.op_id < b.op_id; };
  // A max-heap of the `max` oldest seen so far: its top is the youngest of them.
  std::vector<HalfOp> out;
  out.reserve(std::min(max, open_count()));
  const auto offer = [&](const HalfOp& half) {
    if (out.size() < max) {
      out.push_back(half);
      std::push_heap(out.begin(), out.end(), older);
    } else if (max > 0 && older(half, out.front())) {
      std::pop_heap(out.begin(), out.end(), older);
      out.back() = half;
      std::push_heap(out.begin(), out.end(), older);
    }
  };
  for (const auto& [id, w] : open_) offer(w.half);
  for (const ThreadStack& stack : stacks_) {
    for (const Waiting& w : stack.open) offer(w.half);
  }
  std::sort_heap(out.begin(), out.end(), older);
  return out;
}

}  // namespace optrace::daemon
