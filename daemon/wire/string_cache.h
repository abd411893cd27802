// StringCache: the dictionary strings one request needs, read through its
// SpanReader once each.
#ifndef OPTRACE_DAEMON_WIRE_STRING_CACHE_H_
#define OPTRACE_DAEMON_WIRE_STRING_CACHE_H_

#include <deque>
#include <string>

#include "common/status.h"
#include "model/flat_id_map.h"
#include "model/span.h"
#include "storage/span_reader.h"
#include "wire/proto_convert.h"

namespace optrace::daemon {

// Resolves dictionary ids lazily: the first Get of an id reads it from the
// reader, later ones are a hash lookup. Only the ids a request touches are
// read (a session uses a few of a dictionary shared by every session).
// A failed read resolves to "" and is remembered: callers check status()
// once their pass is over, instead of at every span.
// Borrows `reader`, which must outlive the cache. Thread rules: the
// reader's thread only.
class StringCache {
 public:
  explicit StringCache(SpanReader& reader) : reader_(reader) {}
  StringCache(const StringCache&) = delete;
  StringCache& operator=(const StringCache&) = delete;

  // The text of `id`: "" for 0, for an unknown id, and after a failed read.
  // The reference stays valid as long as the cache.
  const std::string& Get(StringId id);

  // Get as a StringLookup (for ToProto); borrows this cache.
  StringLookup AsLookup() {
    return [this](StringId id) -> const std::string& { return Get(id); };
  }

  // OK, or the first read that failed.
  const Status& status() const { return status_; }

 private:
  SpanReader& reader_;
  FlatIdMap<const std::string*> index_;  // id -> entry in texts_
  std::deque<std::string> texts_;        // a deque: references stay valid
  const std::string empty_;
  Status status_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_WIRE_STRING_CACHE_H_
