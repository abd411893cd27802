// The dictionary ids of a few fixed texts (a keep mark's name, a step's),
// which the store's keep triggers match committed spans and instants by:
// one compare per record instead of a text lookup.
#ifndef OPTRACE_DAEMON_STORAGE_KNOWN_STRING_IDS_H_
#define OPTRACE_DAEMON_STORAGE_KNOWN_STRING_IDS_H_

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "model/span.h"
#include "storage/sqlite_connection.h"

namespace optrace::daemon {

// Thread rules: a value type; Load reads through `db` on the caller's thread.
class KnownStringIds {
 public:
  // The ids `texts` have in the stored dictionary of `db` (a daemon
  // restarted on the database); 0 for a text it does not hold yet.
  // Errors: SQLite's.
  static Result<KnownStringIds> Load(SqliteConnection& db, std::vector<std::string> texts);

  // Learns the ids of dictionary additions equal to a text (a batch's
  // new_strings); one text has one id for the life of the database.
  void Note(std::span<const std::pair<StringId, std::string>> strings);

  // The id of the `index`th text; 0 while the dictionary has none.
  StringId id(size_t index) const { return ids_[index]; }

 private:
  KnownStringIds(std::vector<std::string> texts, std::vector<StringId> ids)
      : texts_(std::move(texts)), ids_(std::move(ids)) {}

  std::vector<std::string> texts_;
  std::vector<StringId> ids_;  // ids_[i]: the id of texts_[i], or 0
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_KNOWN_STRING_IDS_H_
