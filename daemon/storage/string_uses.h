// Which stored sessions use which dictionary strings, so that strings no
// session uses any more are removed with the last session that used them
// (retention), instead of staying in the database for its whole life.
//
// The daemon's dictionary (strings/string_dictionary.h) keeps every text it
// interned, with its id, for as long as it runs: a session that starts
// after a text was removed may use its id again without the dictionary
// adding it anew. So every batch records its sessions' uses, and a use of
// a removed id puts its text back in the same transaction.
#ifndef OPTRACE_DAEMON_STORAGE_STRING_USES_H_
#define OPTRACE_DAEMON_STORAGE_STRING_USES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/status.h"
#include "model/flat_id_map.h"
#include "model/store_batch.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"

namespace optrace::daemon {

// Thread rules: the thread that writes through `db` (the store's writer).
// REQUIRES: `db` has the current schema and outlives this object.
class StringUses {
 public:
  static Result<std::unique_ptr<StringUses>> Create(SqliteConnection& db);

  // Inside the batch's transaction: records in session_strings each string
  // the batch's spans, instants and open halves use that their session had
  // not used in a batch before, and puts back the text of any of them that
  // Collect removed. Errors are SQLite's (the transaction rolls back).
  Status Write(const StoreBatch& batch);
  // After the batch's transaction: Committed makes Write's records known,
  // RolledBack forgets them. Committed also forgets the sessions the batch
  // ended (their uses are stored; they add no more).
  void Committed(const StoreBatch& batch);
  void RolledBack();

  // Inside the transaction that deletes `session`, before its
  // session_strings rows go: removes the strings it used that no other
  // session uses, keeping their texts for Write. Returns how many.
  Result<uint64_t> Collect(SessionId session);

  // Texts removed and not used since (memory the daemon holds for them,
  // as its dictionary does).
  size_t collected() const { return collected_.size(); }

 private:
  explicit StringUses(SqliteConnection& db) : db_(db) {}
  Status PrepareStatements();
  // The ids a session's batches used: a set (the value is unused).
  using UsedIds = FlatIdMap<uint8_t>;
  // Records `id` for `session`, whose ids are `used`, unless done before
  // (or earlier in this batch).
  Status Use(SessionId session, UsedIds& used, StringId id);

  SqliteConnection& db_;
  SqliteStatement insert_use_;
  SqliteStatement restore_string_;
  SqliteStatement collect_;
  // The strings each running session's batches used (the batch being
  // written included).
  std::unordered_map<SessionId, UsedIds> used_;
  // Recorded by the batch being written, not yet committed.
  std::vector<SessionId> pending_;  // a session per id its set gained
  std::vector<StringId> pending_restored_;
  std::unordered_map<StringId, std::string> collected_;  // removed: id -> text
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_STRING_USES_H_
