// The daemon's database read back by tests as a query client reads it:
// waiting for the session of a process to be stored with an end state,
// then its spans, instants and strings. The one place tests that run a
// program under a real optraced read what it stored.
#ifndef OPTRACE_TESTS_SUPPORT_STORE_VIEW_H_
#define OPTRACE_TESTS_SUPPORT_STORE_VIEW_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/session_record.h"
#include "model/span.h"
#include "storage/span_reader.h"

namespace optrace::testing {

// One stored session with its spans (in the reader's start order),
// instants and every string of the dictionary.
struct StoredSession {
  daemon::SessionRecord record;
  std::vector<daemon::Span> spans;
  std::vector<daemon::Instant> instants;
  std::map<daemon::StringId, std::string> strings;

  // The text of string `id`, "" when unknown.
  std::string Text(daemon::StringId id) const;
  std::vector<const daemon::Span*> SpansNamed(const std::string& name) const;
  // The only span named `name`; records a test failure (and returns an
  // empty span) when there is not exactly one.
  const daemon::Span& SpanNamed(const std::string& name) const;
  std::vector<const daemon::Instant*> InstantsNamed(const std::string& name) const;
};

// The database at `db_path` through a connection of its own, opened at the
// first call (so the file may not exist yet when the view is made).
// Thread rules: one thread.
class StoreView {
 public:
  explicit StoreView(std::string db_path) : db_path_(std::move(db_path)) {}

  // Every stored session; empty while the database cannot be read.
  std::vector<daemon::SessionRecord> Sessions();
  // The session of producer process `pid`, if stored.
  std::optional<daemon::SessionRecord> SessionByPid(uint32_t pid);
  // Polls until the session of `pid` is stored with an end state (exited
  // or crashed); nullopt when it is not within `timeout`.
  std::optional<daemon::SessionRecord> WaitForEnd(uint32_t pid, std::chrono::milliseconds timeout);

  // Visit every span (in the reader's start order) or instant (in time
  // order) of `session` without keeping them: for sessions too large to
  // hold. A read error fails the running test; what was visited before it
  // stays visited.
  void ForEachSpan(daemon::SessionId session,
                   const std::function<void(const daemon::Span&)>& visit);
  void ForEachInstant(daemon::SessionId session,
                      const std::function<void(const daemon::Instant&)>& visit);

  // Everything stored for `record` (spans, instants, strings); a read
  // error fails the running test.
  StoredSession Read(const daemon::SessionRecord& record);

 private:
  bool Open();

  std::string db_path_;
  std::unique_ptr<daemon::SpanReader> reader_;
};

// Waits until the database at `db_path` holds the session of process
// `pid` in an end state and reads all of it; nullopt on timeout.
std::optional<StoredSession> WaitForStoredSession(const std::string& db_path, uint32_t pid,
                                                  std::chrono::milliseconds timeout);

// Every event `session` lost, whatever the cause (the dropped_* fields).
uint64_t DroppedEvents(const daemon::SessionRecord& session);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_STORE_VIEW_H_
