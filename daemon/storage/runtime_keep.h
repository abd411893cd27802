// The runtime trigger of keeps: a mark named OPTRACE_KEEP_NAME, which
// optrace_keep / optrace::Keep / optrace.keep() record when something goes
// wrong in the runtime, keeps the window around it. Matched by string id:
// each committed instant costs one compare, and only a keep mark reads its
// reason (its tag's text) back from the dictionary.
#ifndef OPTRACE_DAEMON_STORAGE_RUNTIME_KEEP_H_
#define OPTRACE_DAEMON_STORAGE_RUNTIME_KEEP_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "model/keep.h"
#include "model/store_batch.h"
#include "optrace/optrace.h"
#include "storage/known_string_ids.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"

namespace optrace::daemon {

// The name of a keep mark (liboptrace's OPTRACE_KEEP_NAME).
inline constexpr std::string_view kRuntimeKeepName = OPTRACE_KEEP_NAME;
// What a runtime keep's reason starts with, before the mark's reason.
inline constexpr std::string_view kRuntimeKeepReasonPrefix = "runtime: ";

// Turns committed keep marks into keep requests.
// REQUIRES: `db` has the current schema and outlives this object.
// Thread rules: the thread that writes through `db` (the store's writer).
class RuntimeKeeps {
 public:
  // Prepares the lookup of reasons and learns the id of kRuntimeKeepName
  // when the stored dictionary has it (a daemon restarted on the
  // database). A keep mark keeps from `keep_before_ns` before it to
  // `keep_after_ns` after it. Errors: SQLite's.
  static Result<std::unique_ptr<RuntimeKeeps>> Create(SqliteConnection& db, int64_t keep_before_ns,
                                                      int64_t keep_after_ns);

  // One request per keep mark of `batch` (a kMark instant named
  // kRuntimeKeepName, learnt first from batch.new_strings): [ts -
  // keep_before_ns, ts + keep_after_ns], reason kRuntimeKeepReasonPrefix +
  // its tag's text ("keep" for no tag; "runtime" alone when the text
  // cannot be read). Marks of one session with the same tag whose ranges
  // overlap make one request, so that a runtime that keeps in a loop costs
  // one keep per batch, not one per call.
  // REQUIRES: `batch` is committed through `db` (its tags are read back).
  std::vector<KeepRequest> Keeps(const StoreBatch& batch);

 private:
  RuntimeKeeps(int64_t keep_before_ns, int64_t keep_after_ns, KnownStringIds name,
               SqliteStatement select_text)
      : keep_before_ns_(keep_before_ns),
        keep_after_ns_(keep_after_ns),
        name_(std::move(name)),
        select_text_(std::move(select_text)) {}
  // The reason of a keep mark tagged `tag`.
  std::string Reason(StringId tag);

  const int64_t keep_before_ns_;
  const int64_t keep_after_ns_;
  KnownStringIds name_;  // of kRuntimeKeepName
  SqliteStatement select_text_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_RUNTIME_KEEP_H_
