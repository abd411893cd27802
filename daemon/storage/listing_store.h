// The listings table (schema version 12): how a session's source listings
// are stored, one row per distinct excerpt of a file with its text
// zlib-compressed, and read back. A listing is kept as long as its session:
// the rolling window never trims one (a session holds few, bounded by the
// drain's caps), retention deletes them with their session.
#ifndef OPTRACE_DAEMON_STORAGE_LISTING_STORE_H_
#define OPTRACE_DAEMON_STORAGE_LISTING_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "model/source_listing.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"

namespace optrace::daemon {

// The most text one listing may hold (uncompressed), written or read: far
// above the drain's caps, it bounds what a damaged row makes a reader
// allocate.
inline constexpr uint64_t kMaxListingTextBytes = 16 << 20;

// A stored listing, read back and checked.
struct StoredListing {
  std::string file;
  uint32_t first_line = 1;
  uint32_t line_count = 0;  // lines [first_line, first_line + line_count)
  bool registered = false;
  std::string text;  // '\n'-separated, as shipped
};

// The lines of `text`, split at '\n'; a '\n' at the very end ends the last
// line (no empty line after it), so "" has no line and "a\n" one. The
// views borrow `text`. Thread rules: pure.
std::vector<std::string_view> ListingLines(std::string_view text);

// The hash that tells two listings of one session's file apart (FNV-1a,
// 64 bits, over first_line, registered and the text). It is stored, so it
// never changes between builds. Thread rules: pure.
uint64_t ListingContentHash(const SourceListing& listing);

// Holds the insert statement of the listings table.
// REQUIRES: `db` has the current schema and outlives the writer.
// Thread rules: the thread that writes through `db` (the store's writer).
class ListingWriter {
 public:
  // Prepares the statement; errors are SQLite's (see SqliteError).
  static Result<std::unique_ptr<ListingWriter>> Create(SqliteConnection& db);

  // Stores `listing`, unless its session already holds the same file with
  // the same content (INSERT OR IGNORE on (session, file, content hash)).
  // REQUIRES: a transaction is open (the batch's: the caller commits or
  // rolls back). Errors: kInvalidArgument for a listing that could not be
  // read back (first_line 0, lines past 2^32 - 1, text above
  // kMaxListingTextBytes), which the drain's caps never ship;
  // kUnavailable when zlib fails; SQLite's.
  Status Insert(const SourceListing& listing);

 private:
  ListingWriter() = default;

  SqliteStatement insert_;
  std::string compressed_;  // scratch, kept between listings to reuse its memory
};

// The columns ReadListing reads, in its order, for a SELECT of listings.
extern const char* const kListingReadColumns;

// Reads a row selected with kListingReadColumns from column `first`.
// Stored bytes are untrusted (a damaged or edited file): the sizes are
// bounded, the text must inflate to exactly its stored size and hold
// exactly its stored line count. Errors (kInvalidArgument) name the
// listing and the problem.
Result<StoredListing> ReadListing(const SqliteStatement& statement, int first);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_LISTING_STORE_H_
