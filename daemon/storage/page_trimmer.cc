#include "storage/page_trimmer.h"

#include <algorithm>
#include <string>
#include <utility>

#include "storage/keep_recorder.h"

namespace optrace::daemon {

Result<std::unique_ptr<PageTrimmer>> PageTrimmer::Create(SqliteConnection& db) {
  std::unique_ptr<PageTrimmer> trimmer(new PageTrimmer(db));
  Status prepared = trimmer->PrepareStatements();
  if (!prepared.ok()) return prepared;
  return trimmer;
}

Status PageTrimmer::PrepareStatements() {
  const std::pair<SqliteStatement*, const char*> statements[] = {
      // max() and min() over span_pages_by_last_start are index seeks.
      {&select_extent_,
       "SELECT page_bytes, (SELECT coalesce(max(last_start_ns), 0) FROM span_pages "
       "WHERE session_id = ?1), (SELECT coalesce(min(last_start_ns), 0) FROM span_pages "
       "WHERE session_id = ?1) FROM sessions WHERE id = ?1"},
      // length() of a blob reads its record header, not its overflow pages.
      {&select_oldest_,
       "SELECT id, first_start_ns, last_start_ns, span_count, length(data) FROM span_pages "
       "WHERE session_id = ? ORDER BY last_start_ns, id LIMIT ? OFFSET ?"},
      {&select_keeps_, kSelectKeepsSql},
      {&delete_page_, "DELETE FROM span_pages WHERE id = ?"},
      // No row, no forwarder: nothing to count.
      {&count_unforwarded_,
       "UPDATE forward_cursor SET spans_lost_to_retention = spans_lost_to_retention + ?2 "
       "WHERE page_id < ?1"},
      {&delete_instants_,
       "DELETE FROM instants WHERE session_id = ?1 AND ts_ns <= ?2 AND NOT EXISTS "
       "(SELECT 1 FROM keeps WHERE keeps.session_id = ?1 AND first_ns <= ts_ns "
       "AND ts_ns <= last_ns) RETURNING 1"},
      {&update_session_,
       "UPDATE sessions SET spans_trimmed = spans_trimmed + ?2, "
       "instants_trimmed = instants_trimmed + ?3, "
       "trimmed_before_ns = max(trimmed_before_ns, ?4), "
       "page_bytes = max(0, page_bytes - ?5) WHERE id = ?1"},
  };
  for (const auto& [statement, sql] : statements) {
    Result<SqliteStatement> prepared = db_.Prepare(sql);
    if (!prepared.ok()) return prepared.status();
    *statement = std::move(prepared).value();
  }
  return Status::Ok();
}

Result<SessionExtent> PageTrimmer::Extent(SessionId session) {
  select_extent_.BindUint64(1, session);
  ScopedStatementReset reset(select_extent_);
  Result<bool> row = select_extent_.Step();
  if (!row.ok()) return row.status();
  if (!row.value()) return SessionExtent{};
  return SessionExtent{.page_bytes = select_extent_.ColumnUint64(0),
                       .newest_start_ns = select_extent_.ColumnInt64(1),
                       .oldest_start_ns = select_extent_.ColumnInt64(2)};
}

Result<std::vector<PageExtent>> PageTrimmer::NextToTrim(SessionId session, uint64_t session_bytes,
                                                        int64_t newest_start_ns,
                                                        const TrimGoal& goal, size_t limit) {
  Result<std::vector<KeepRecord>> keeps = LoadKeeps(select_keeps_, session);
  if (!keeps.ok()) return keeps.status();
  std::vector<TimeRange> kept;
  for (const KeepRecord& keep : keeps.value()) {
    kept.push_back({.first_ns = keep.first_ns, .last_ns = keep.last_ns});
  }
  size_t skip = 0;
  while (true) {
    Result<std::vector<PageExtent>> oldest = OldestPages(session, limit, skip);
    if (!oldest.ok()) return oldest.status();
    TrimChoice choice =
        ChoosePagesToTrim(oldest.value(), session_bytes, newest_start_ns, goal, kept, limit);
    // A look that was all kept pages says nothing yet: read on past it.
    if (!choice.pages.empty() || oldest->size() < limit || choice.passed_over < limit) {
      return std::move(choice.pages);
    }
    skip += choice.passed_over;
  }
}

Result<std::vector<PageExtent>> PageTrimmer::OldestPages(SessionId session, size_t limit,
                                                         size_t skip) {
  std::vector<PageExtent> pages;
  select_oldest_.BindUint64(1, session);
  select_oldest_.BindUint64(2, limit);
  select_oldest_.BindUint64(3, skip);
  while (true) {
    Result<bool> row = select_oldest_.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    pages.push_back({.id = select_oldest_.ColumnUint64(0),
                     .first_start_ns = select_oldest_.ColumnInt64(1),
                     .last_start_ns = select_oldest_.ColumnInt64(2),
                     .span_count = select_oldest_.ColumnUint64(3),
                     .bytes = select_oldest_.ColumnUint64(4)});
  }
  return pages;
}

Result<TrimTotals> PageTrimmer::Trim(SessionId session, std::span<const PageExtent> pages) {
  TrimTotals totals;
  if (pages.empty()) return totals;
  int64_t before_ns = pages.front().last_start_ns;
  for (const PageExtent& page : pages) {
    count_unforwarded_.BindUint64(1, page.id);
    count_unforwarded_.BindUint64(2, page.span_count);
    Status counted = count_unforwarded_.Run();
    if (!counted.ok()) return counted;
    delete_page_.BindUint64(1, page.id);
    Status deleted = delete_page_.Run();
    if (!deleted.ok()) return deleted;
    before_ns = std::max(before_ns, page.last_start_ns);
    ++totals.pages;
    totals.spans += page.span_count;
    totals.bytes += page.bytes;
  }
  delete_instants_.BindUint64(1, session);
  delete_instants_.BindInt64(2, before_ns);
  while (true) {
    Result<bool> row = delete_instants_.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    ++totals.instants;
  }
  update_session_.BindUint64(1, session);
  update_session_.BindUint64(2, totals.spans);
  update_session_.BindUint64(3, totals.instants);
  update_session_.BindInt64(4, before_ns);
  update_session_.BindUint64(5, totals.bytes);
  Status updated = update_session_.Run();
  if (!updated.ok()) return updated;
  return totals;
}

}  // namespace optrace::daemon
