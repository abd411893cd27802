// What the daemon stored for one traced process, read back from its
// database with every string resolved: for tests that run a program under
// a real optraced and check its spans and instants.
#ifndef OPTRACE_TESTS_NVTX_STORED_SESSION_H_
#define OPTRACE_TESTS_NVTX_STORED_SESSION_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/session_record.h"
#include "model/span.h"

namespace optrace::testing {

// One ended session with its spans, instants and strings.
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

// Waits until the database at `db_path` holds the session of process
// `pid` in an end state (exited or crashed) and reads it; nullopt on
// timeout.
std::optional<StoredSession> WaitForStoredSession(const std::string& db_path, uint32_t pid,
                                                  std::chrono::milliseconds timeout);

// The "key=value" lines of a program's output, by key (last one wins).
std::map<std::string, std::string> ParseKeyValueLines(const std::string& text);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_NVTX_STORED_SESSION_H_
