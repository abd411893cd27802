#include "runtime.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "attach_handshake.h"
#include "daemon_control.h"
#include "optrace/detail/fast_path.h"
#include "thread_writer.h"

namespace optrace::client {
namespace {

// How long an exiting process waits, at most, for its last listings.
constexpr std::chrono::milliseconds kListingFlushTimeout{200};

}  // namespace

Runtime& Runtime::Get() {
  static Runtime* const runtime = new Runtime();  // leaked on purpose: see class comment
  return *runtime;
}

Runtime::Runtime()
    : options_(ReadProducerOptions()),
      strings_(std::make_unique<StringInterner>(options_.string_slots, options_.string_blob_bytes)),
      listings_(std::make_unique<ListingCapture>(options_, strings_.get())),
      waker_(options_.ns),
      requested_level_(options_.level) {}

void Runtime::EnsureStarted() {
  // Acquire pairs with the release store at the end of StartLocked.
  if (started_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_.load(std::memory_order_relaxed)) StartLocked();
}

void Runtime::InstallHooksLocked() {
  if (hooks_installed_.load(std::memory_order_relaxed)) return;
  std::atexit(&Runtime::OnExit);
  pthread_atfork(&Runtime::OnForkPrepare, &Runtime::OnForkParent, &Runtime::OnForkChild);
  hooks_installed_.store(true, std::memory_order_release);
}

uint32_t Runtime::InternLocation(std::string_view file, uint32_t line) {
  const uint32_t id = strings_->Intern(std::string(file) + ":" + std::to_string(line));
  // The listing's reader thread may hold its lock at a fork: the fork
  // handlers must be in place before it starts.
  if (!hooks_installed_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mu_);
    InstallHooksLocked();
  }
  listings_->OnLocation(id, file, line);
  return id;
}

void Runtime::StartLocked() {
  InstallHooksLocked();
  // A process started while a tail runs is traced from its first op: start
  // at the most verbose of what we ask for and what a live daemon publishes.
  abi::LevelValue initial = requested_level_;
  const auto daemons = ReadLiveDaemons(options_.ns);
  if (daemons) initial = std::max(initial, daemons->default_level);
  std::string error;
  segment_ = ProducerSegment::Create(options_, requested_level_, initial, &error);
  const std::atomic<uint32_t>* word = &private_level_;
  if (segment_ != nullptr) {
    strings_->AttachSegment(segment_.get());
    listings_->AttachSegment(segment_.get());  // after the strings: it names files by id
    word = &segment_->header().level;
    // Start-up handshake: only when a live daemon that signals its attach
    // serves us (never when none runs) and we are about to record (at level
    // off nothing would be lost: only the daemon can raise the level, and
    // it does so at attach).
    if (daemons && daemons->attach_handshake && initial != abi::LevelValue::kOff &&
        options_.attach_timeout_ms > 0 &&
        !AwaitDaemonAttach(segment_->header(), options_.attach_timeout_ms)) {
      std::fprintf(stderr,
                   "optrace: no daemon attached to %s within %u ms (OPTRACE_ATTACH_TIMEOUT_MS); "
                   "tracing on, events that find a full ring are counted as dropped\n",
                   segment_->name().c_str(), options_.attach_timeout_ms);
    }
  } else {
    private_level_.store(static_cast<uint32_t>(initial), std::memory_order_relaxed);
    std::fprintf(stderr, "optrace: %s; events will be counted as dropped\n", error.c_str());
  }
  // Release: the word's initial value (and the whole header) is visible to
  // any thread that acquires the pointer in LevelEnabled.
  detail::g_level_word.store(word, std::memory_order_release);
  started_.store(true, std::memory_order_release);
}

void Runtime::SetRequestedLevel(abi::LevelValue level) {
  EnsureStarted();
  std::lock_guard<std::mutex> lock(mu_);
  requested_level_ = level;
  const auto value = static_cast<uint32_t>(level);
  if (segment_ == nullptr) {
    private_level_.store(value, std::memory_order_relaxed);
    return;
  }
  abi::SegmentHeader& h = segment_->header();
  h.requested_level.store(value, std::memory_order_relaxed);
  // Release: a daemon that sees the new generation also sees the level.
  h.requested_generation.fetch_add(1, std::memory_order_release);
  // Before a daemon attaches the word is ours. Once one is attached it
  // folds our request into the level it computes within one drain cycle;
  // until then the word is only raised to the request (never lowered), so
  // that the ops right after SetLevel are recorded. An override the daemon
  // holds for this process still wins at its next cycle.
  if (h.daemon_pid.load(std::memory_order_acquire) == 0) {
    h.level.store(value, std::memory_order_relaxed);
    return;
  }
  uint32_t live = h.level.load(std::memory_order_relaxed);
  while (live < value && !h.level.compare_exchange_weak(live, value, std::memory_order_relaxed)) {
  }
}

bool Runtime::CountNamesCapped(uint64_t count) {
  // Acquire pairs with the release store at the end of StartLocked: segment_
  // is then set and, until a fork child resets it (with one thread left),
  // never written again.
  if (!started_.load(std::memory_order_acquire) || segment_ == nullptr) return false;
  // Relaxed: the counter orders nothing; the daemon only reports it.
  segment_->header().names_capped.fetch_add(count, std::memory_order_relaxed);
  return true;
}

void Runtime::OnExit() {
  Runtime& rt = Get();
  // The listings of the last ops' locations, before the segment says it is
  // closing (the daemon reads it a last time then).
  rt.listings_->FlushForExit(kListingFlushTimeout);
  std::lock_guard<std::mutex> lock(rt.mu_);
  if (rt.segment_ == nullptr) return;
  abi::SegmentHeader& h = rt.segment_->header();
  // Release: everything this process published happens-before the flag,
  // so a daemon that reads it clean also sees the last events.
  h.exit_state.store(static_cast<uint32_t>(abi::ExitState::kClean), std::memory_order_release);
  h.state.store(static_cast<uint32_t>(abi::SegmentState::kClosing), std::memory_order_release);
  // Leave the segment for a daemon to drain and remove; with no daemon
  // around, nobody would ever remove it, so remove it now.
  const auto daemon = static_cast<pid_t>(h.daemon_pid.load(std::memory_order_acquire));
  const bool attached = daemon != 0 && (::kill(daemon, 0) == 0 || errno == EPERM);
  if (!attached && !DaemonServesNamespace(rt.options_.ns)) rt.segment_->Unlink();
}

void Runtime::OnForkPrepare() {
  Runtime& rt = Get();
  rt.mu_.lock();
  rt.listings_->LockForFork();
  rt.strings_->LockForFork();
}

void Runtime::OnForkParent() {
  Runtime& rt = Get();
  rt.strings_->UnlockAfterFork();
  rt.listings_->UnlockAfterFork();
  rt.mu_.unlock();
}

void Runtime::OnForkChild() {
  Runtime& rt = Get();
  rt.strings_->UnlockAfterFork();
  rt.listings_->UnlockInForkChild();
  // The child must never write into its parent's segment: forget it (unmap
  // only; it is still the parent's) and start over with a segment of its
  // own at the next op. The calling thread is the child's only thread.
  rt.strings_->AttachSegment(nullptr);
  rt.listings_->AttachSegment(nullptr);
  rt.segment_.reset();
  rt.no_segment_drops_.store(0, std::memory_order_relaxed);
  rt.started_.store(false, std::memory_order_relaxed);
  ResetThreadWriterAfterFork();
  rt.mu_.unlock();
}

}  // namespace optrace::client
