// The read side of the span database, for queries and for a restarting
// daemon: sessions, strings, spans by time range, instants, open halves,
// ring cursors, per-op aggregates, keeps and source listings.
#ifndef OPTRACE_DAEMON_STORAGE_SPAN_READER_H_
#define OPTRACE_DAEMON_STORAGE_SPAN_READER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "model/keep.h"
#include "model/session_record.h"
#include "model/span.h"
#include "model/store_batch.h"
#include "storage/listing_store.h"
#include "storage/op_aggregate.h"
#include "storage/span_page_codec.h"
#include "storage/sqlite_blob_reader.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"
#include "storage/sqlite_transaction.h"
#include "storage/step_records.h"

namespace optrace::daemon {

// One stored span page, as the forwarder reads them: its id (the order in
// which pages were committed), its session and its spans in start order.
struct StoredSpanPage {
  uint64_t id = 0;
  SessionId session = 0;
  std::vector<Span> spans;
};

// The earliest and the latest start among a session's stored spans.
struct SpanStartRange {
  int64_t first_start_ns = 0;
  int64_t last_start_ns = 0;
};

// Which of a session's span pages a pass reads: those whose id leaves
// `index` when divided by `count`. `count` passes, one per thread and each
// with its own reader, read every page once between them.
struct PageShare {
  uint32_t index = 0;
  uint32_t count = 1;  // REQUIRES: index < count
};

// Owns a read-only connection of its own to a database that SpanStore
// writes (WAL mode lets it read while the writer commits). Each call reads
// one consistent snapshot, the state after some commit (see Snapshot to
// share one between calls).
// Thread rules: one SpanReader per thread; open as many as needed.
// Errors: SQLite's (see SqliteError), and kInvalidArgument for stored data
// that is damaged (a corrupt span page, a value out of its field's range).
class SpanReader {
 public:
  // Called for each span or instant in order; returns false to stop early.
  using SpanVisitor = std::function<bool(const Span&)>;
  using SpanPageVisitor = std::function<bool(std::span<const Span>)>;
  using InstantVisitor = std::function<bool(const Instant&)>;

  // Opens `db_path`, which must exist and have this build's schema version
  // (kNotFound for a missing file, kInvalidArgument for another version).
  static Result<std::unique_ptr<SpanReader>> Open(const std::string& db_path);

  // The database this reader reads.
  const std::string& db_path() const { return db_->path(); }

  // Makes the calls that follow, until the returned transaction is
  // destroyed, read one and the same snapshot (e.g. a session and then its
  // spans). The transaction borrows this reader, which must outlive it.
  Result<SqliteTransaction> Snapshot() {
    return SqliteTransaction::Begin(*db_, SqliteTransaction::Kind::kDeferred);
  }

  // Every session, newest (latest start) first.
  Result<std::vector<SessionRecord>> ListSessions();
  // Sessions whose state is running, in id order.
  Result<std::vector<SessionRecord>> RunningSessions();
  // One session; nullopt when there is none with this id.
  Result<std::optional<SessionRecord>> GetSession(SessionId session);
  // The loss counters (as AddDrops adds them) summed over every session
  // but those of `except`, in one query whatever the number of sessions;
  // the record's other fields are 0.
  Result<SessionRecord> SumOfDropsExcept(std::span<const SessionId> except);
  // How many sessions the database holds in each state, by its name
  // ("running", "exited", "crashed"); a state none is in is absent.
  Result<std::map<std::string, uint64_t>> SessionsByState();

  // The session that drained shm segment `segment_name`; nullopt if none.
  Result<std::optional<SessionRecord>> SessionBySegment(const std::string& segment_name);
  // The whole string dictionary, in id order.
  Result<std::vector<std::pair<StringId, std::string>>> LoadStrings();
  // One string; nullopt for an unknown id.
  Result<std::optional<std::string>> String(StringId id);

  // The highest session id ever stored, including sessions retention has
  // deleted since (0 for none).
  Result<SessionId> MaxSessionId();

  // The start range of the stored spans of `session` (from its pages'
  // rows, no page is read); nullopt when it has none.
  Result<std::optional<SpanStartRange>> StartRange(SessionId session);

  // Visits the spans of `session` with min_start_ns <= start_ns <=
  // max_start_ns. Spans come page by page, pages in order of their first
  // start, spans within a page in start order: the whole sequence is in
  // start order unless a batch held spans that started before the previous
  // batch's last one (then pages overlap in time). A page that fails to
  // decode ends the visit with an error naming the page. Only the fields of
  // `columns` are read (and start_ns, when the range is bounded); the
  // others hold no meaningful value.
  Status ForEachSpan(SessionId session, int64_t min_start_ns, int64_t max_start_ns,
                     const SpanVisitor& visit,
                     span_page::ColumnSet columns = span_page::kAllColumns);
  // ForEachSpan a page at a time, for passes over many spans: `visit` gets
  // the spans of one page that are in the range (maybe none), in the same
  // order, and returns false to stop. Only the pages of `share` are read.
  // REQUIRES (both): `visit` reads no pages of this reader itself.
  Status ForEachSpanPage(SessionId session, int64_t min_start_ns, int64_t max_start_ns,
                         const SpanPageVisitor& visit,
                         span_page::ColumnSet columns = span_page::kAllColumns,
                         PageShare share = {});

  // Keeps the reader's page buffers (a page's bytes and its decoded spans,
  // megabytes each) from one ForEachSpan or ForEachSpanPage call to the
  // next while it lives, for a query that reads pages in several passes or
  // windows. Without one, each outermost call makes them and frees them
  // as it returns, so that an idle reader holds none. Scopes nest; the
  // buffers go when the outermost ends. Borrows the reader, which must
  // outlive it.
  class ScratchScope {
   public:
    explicit ScratchScope(SpanReader& reader) : reader_(reader) { ++reader_.scratch_scopes_; }
    ~ScratchScope();
    ScratchScope(const ScratchScope&) = delete;
    ScratchScope& operator=(const ScratchScope&) = delete;

   private:
    SpanReader& reader_;
  };

  // Visits the instants of `session` in time order.
  Status ForEachInstant(SessionId session, const InstantVisitor& visit);

  // The persisted unpaired halves of `session`, by op id then kind.
  Result<std::vector<HalfOp>> OpenHalves(SessionId session);

  // The committed ring positions of `session`, by ring.
  Result<std::vector<RingCursor>> RingCursors(SessionId session);

  // The op_aggregates rows of `session`, by name, tag, target, device (its
  // `other` row, if any, last: kOtherGroupString is the largest id), with
  // their sketch bytes. kResourceExhausted when it has more than
  // `max_rows` (the writer keeps a session to kMaxAggregateGroups + 1;
  // more come only from a database written otherwise).
  Result<std::vector<OpAggregateRow>> Aggregates(SessionId session, size_t max_rows = SIZE_MAX);

  // The keeps of `session`, by start (none for an unknown session).
  Result<std::vector<KeepRecord>> Keeps(SessionId session);

  // The step records of `session` (LoadStepRecords): by start, with the
  // count its bound folded.
  Result<SessionStepRecords> StepRecords(SessionId session);

  // The stored listings of `file` in `session`, in the order they were
  // stored (none for an unknown session or file). A listing that fails
  // ReadListing's checks ends the read with its error.
  Result<std::vector<StoredListing>> Listings(SessionId session, const std::string& file);

  // The span pages with an id above `after_page_id`, in id order: as many
  // whole pages as hold at most `max_spans` spans together, but always the
  // first one (a page may hold more than max_spans); none when there are no
  // such pages. Page ids only grow (schema version 2), so a caller that
  // remembers the last id it handled sees every later page exactly once.
  // A page that fails to decode ends the read with an error naming it.
  Result<std::vector<StoredSpanPage>> PagesAfter(uint64_t after_page_id, size_t max_spans);

  // The number of spans in the pages with an id above `after_page_id`.
  Result<uint64_t> SpanCountAfter(uint64_t after_page_id);

 private:
  explicit SpanReader(std::unique_ptr<SqliteConnection> db) : db_(std::move(db)) {}
  Status PrepareStatements();
  // The first session `statement` (parameters bound) selects, if any.
  Result<std::optional<SessionRecord>> FirstSession(SqliteStatement& statement,
                                                    const std::string& what);
  // Runs `statement` (parameters bound) and appends what `read` makes of
  // each row to `out`; a row `read` rejects ends it with that error, named
  // with `what` (e.g. "instants of session 3"). A row past `max_rows`
  // ends it with kResourceExhausted (naming `what` and the bound).
  template <typename T, typename ReadRow>
  Status CollectRows(SqliteStatement& statement, const std::string& what, ReadRow read,
                     std::vector<T>* out, size_t max_rows = SIZE_MAX);

  // The buffers of page reads (see ScratchScope).
  struct PageScratch {
    std::string bytes;
    std::vector<Span> spans;
  };
  // Frees scratch_ unless a ScratchScope keeps it.
  void ReleaseScratch();

  std::unique_ptr<SqliteConnection> db_;
  SqliteStatement list_sessions_;
  SqliteStatement running_sessions_;
  SqliteStatement get_session_;
  SqliteStatement sum_of_drops_except_;
  SqliteStatement sessions_by_state_;
  SqliteStatement session_by_segment_;
  SqliteStatement load_strings_;
  SqliteStatement get_string_;
  SqliteStatement max_session_id_;
  SqliteStatement select_pages_;
  SqliteStatement span_start_range_;
  SqliteStatement select_instants_;
  SqliteStatement select_halves_;
  SqliteStatement select_cursors_;
  SqliteStatement select_aggregates_;
  SqliteStatement select_keeps_;
  SqliteStatement select_step_records_;
  SqliteStatement select_steps_folded_;
  SqliteStatement select_listings_;
  SqliteStatement select_pages_after_;
  SqliteStatement count_spans_after_;
  // After the statements: closed before the connection. Open only during
  // a page read (it holds the read transaction).
  SqliteBlobReader page_blobs_{*db_, "span_pages", "data"};
  PageScratch scratch_;
  int scratch_scopes_ = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_SPAN_READER_H_
