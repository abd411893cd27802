// Which span pages of a session to trim: the one decision the rolling
// window and retention's caps share, apart from the SQL that carries it out
// (page_trimmer.h).
#ifndef OPTRACE_DAEMON_STORAGE_TRIM_CHOICE_H_
#define OPTRACE_DAEMON_STORAGE_TRIM_CHOICE_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace optrace::daemon {

// One span page as trimming sees it (a row of span_pages without its data).
struct PageExtent {
  uint64_t id = 0;
  int64_t first_start_ns = 0;
  int64_t last_start_ns = 0;
  uint64_t span_count = 0;
  uint64_t bytes = 0;  // length of its data
};

// A closed time range of a session, [first_ns, last_ns], in span start time.
struct TimeRange {
  int64_t first_ns = 0;
  int64_t last_ns = 0;
};

// What trimming one session aims for; both parts may be set, and a page
// goes when either asks for it.
struct TrimGoal {
  // Pages whose newest span started before this go (the duration bound).
  int64_t drop_before_ns = std::numeric_limits<int64_t>::min();
  // The oldest pages go while the session holds more page bytes than this.
  uint64_t max_bytes = std::numeric_limits<uint64_t>::max();
};

// What ChoosePagesToTrim chose.
struct TrimChoice {
  std::vector<PageExtent> pages;  // in `oldest_first` order
  // Pages of `untouchable` passed over before the choice stopped: a caller
  // that reads pages a look at a time skips them in its next look.
  size_t passed_over = 0;
};

// Chooses the pages to trim from `oldest_first`, a session's oldest pages
// by last start (PageTrimmer::OldestPages), towards `goal`, given that the
// session holds `session_bytes` page bytes and its newest span started at
// `newest_start_ns`. Takes pages from the front, at most `max_pages`, and
// stops at the first page the goal keeps. Never chooses the session's
// newest page (last start >= newest_start_ns), so that a trimmed session
// still shows its last moment, nor a page that overlaps a range of
// `untouchable` (kept ranges): those are passed over, and their bytes stay
// counted. Thread rules: pure.
TrimChoice ChoosePagesToTrim(std::span<const PageExtent> oldest_first, uint64_t session_bytes,
                             int64_t newest_start_ns, const TrimGoal& goal,
                             std::span<const TimeRange> untouchable, size_t max_pages);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_TRIM_CHOICE_H_
