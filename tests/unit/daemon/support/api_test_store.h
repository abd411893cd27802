// A real span database for the API tests: sessions, strings, spans and
// instants written through SpanStore the way the drain thread writes them,
// then read back through a SpanReader.
#ifndef OPTRACE_TESTS_UNIT_DAEMON_API_TEST_STORE_H_
#define OPTRACE_TESTS_UNIT_DAEMON_API_TEST_STORE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/session_record.h"
#include "model/source_listing.h"
#include "model/span.h"
#include "storage/span_reader.h"
#include "storage/span_store.h"
#include "temp_folder.h"

namespace optrace::testing {

// Write first (Intern, Add*), then read (reader()): the first reader()
// flushes the store. Failures are recorded as test failures.
class ApiTestStore {
 public:
  ApiTestStore();

  // The dictionary id of `text`, new ones written with the next batch.
  daemon::StringId Intern(const std::string& text);
  // The text of `id` ("" for 0).
  const std::string& Text(daemon::StringId id) const;

  // Commits one batch: the new strings, `record` and `spans` / `instants`
  // of its session.
  void AddSession(const daemon::SessionRecord& record, std::vector<daemon::Span> spans,
                  std::vector<daemon::Instant> instants = {});
  // Commits one batch of more spans of session `session` (e.g. long ops
  // stored late, whose page overlaps the earlier ones).
  void AddSpans(daemon::SessionId session, std::vector<daemon::Span> spans);
  // Commits one batch of `listings` (of sessions added before).
  void AddListings(std::vector<daemon::SourceListing> listings);

  daemon::SpanReader& reader();
  const std::string& folder() const { return dir_.path(); }

 private:
  void Submit(daemon::StoreBatch batch);

  TempFolder dir_;
  std::unique_ptr<daemon::SpanStore> store_;
  std::unique_ptr<daemon::SpanReader> reader_;
  std::map<std::string, daemon::StringId> ids_;
  std::map<daemon::StringId, std::string> texts_;
  std::vector<std::pair<daemon::StringId, std::string>> new_strings_;
  uint64_t sequence_ = 0;
};

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_UNIT_DAEMON_API_TEST_STORE_H_
