#include "storage/listing_store.h"

#include <zlib.h>

#include <limits>
#include <string>

namespace optrace::daemon {
namespace {

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

uint64_t FnvAdd(uint64_t hash, std::string_view bytes) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

// Ok when a listing of `line_count` lines from `first_line`, with
// `text_bytes` of text, can be stored and read back; what is wrong otherwise.
Status CheckShape(const std::string& file, uint64_t first_line, uint64_t line_count,
                  uint64_t text_bytes) {
  const std::string what = "listing of " + file + " from line " + std::to_string(first_line);
  if (first_line == 0) return Status::InvalidArgument(what + ": lines are numbered from 1");
  if (line_count > 0 && first_line - 1 + line_count > std::numeric_limits<uint32_t>::max()) {
    return Status::InvalidArgument(what + ": its " + std::to_string(line_count) +
                                   " lines go past line 4294967295");
  }
  if (text_bytes > kMaxListingTextBytes) {
    return Status::InvalidArgument(what + ": " + std::to_string(text_bytes) +
                                   " bytes of text, above the most a listing holds, " +
                                   std::to_string(kMaxListingTextBytes));
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::string_view> ListingLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

uint64_t ListingContentHash(const SourceListing& listing) {
  char head[5];
  for (int i = 0; i < 4; ++i) head[i] = static_cast<char>(listing.first_line >> (8 * i));
  head[4] = listing.registered ? 1 : 0;
  return FnvAdd(FnvAdd(kFnvOffsetBasis, std::string_view(head, sizeof head)), listing.text);
}

Result<std::unique_ptr<ListingWriter>> ListingWriter::Create(SqliteConnection& db) {
  std::unique_ptr<ListingWriter> writer(new ListingWriter());
  Result<SqliteStatement> insert = db.Prepare(
      "INSERT OR IGNORE INTO listings(session_id, file, first_line, line_count, registered, "
      "content_hash, text_bytes, text_zlib) VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
  if (!insert.ok()) return insert.status();
  writer->insert_ = std::move(insert).value();
  return writer;
}

Status ListingWriter::Insert(const SourceListing& listing) {
  const size_t line_count = ListingLines(listing.text).size();
  if (Status shape = CheckShape(listing.file, listing.first_line, line_count, listing.text.size());
      !shape.ok()) {
    return shape;
  }
  uLongf compressed_bytes = compressBound(static_cast<uLong>(listing.text.size()));
  compressed_.resize(compressed_bytes);
  if (compress2(reinterpret_cast<Bytef*>(compressed_.data()), &compressed_bytes,
                reinterpret_cast<const Bytef*>(listing.text.data()),
                static_cast<uLong>(listing.text.size()), Z_DEFAULT_COMPRESSION) != Z_OK) {
    return Status::Unavailable("listing of " + listing.file + ": zlib could not compress it");
  }
  compressed_.resize(compressed_bytes);
  insert_.BindUint64(1, listing.session);
  insert_.BindText(2, listing.file);
  insert_.BindUint64(3, listing.first_line);
  insert_.BindUint64(4, line_count);
  insert_.BindInt64(5, listing.registered ? 1 : 0);
  insert_.BindUint64(6, ListingContentHash(listing));
  insert_.BindUint64(7, listing.text.size());
  insert_.BindBlob(8, compressed_);
  return insert_.Run();
}

const char* const kListingReadColumns =
    "file, first_line, line_count, registered, text_bytes, text_zlib";

Result<StoredListing> ReadListing(const SqliteStatement& statement, int first) {
  StoredListing listing;
  listing.file = std::string(statement.ColumnText(first));
  const int64_t first_line_untrusted = statement.ColumnInt64(first + 1);
  const int64_t line_count_untrusted = statement.ColumnInt64(first + 2);
  const int64_t text_bytes_untrusted = statement.ColumnInt64(first + 4);
  if (first_line_untrusted < 0 || line_count_untrusted < 0 || text_bytes_untrusted < 0) {
    return Status::InvalidArgument("stored listing of " + listing.file +
                                   ": a negative line or size");
  }
  if (Status shape = CheckShape(listing.file, static_cast<uint64_t>(first_line_untrusted),
                                static_cast<uint64_t>(line_count_untrusted),
                                static_cast<uint64_t>(text_bytes_untrusted));
      !shape.ok()) {
    return Status::InvalidArgument("stored " + shape.message());
  }
  listing.first_line = static_cast<uint32_t>(first_line_untrusted);
  listing.line_count = static_cast<uint32_t>(line_count_untrusted);
  listing.registered = statement.ColumnInt64(first + 3) != 0;
  const std::string_view compressed = statement.ColumnBlob(first + 5);
  const std::string what = "stored listing of " + listing.file + " from line " +
                           std::to_string(listing.first_line) + ": ";
  listing.text.resize(static_cast<size_t>(text_bytes_untrusted));
  uLongf inflated_bytes = static_cast<uLongf>(listing.text.size());
  // zlib wants a non-null output even for no bytes.
  Bytef empty = 0;
  Bytef* out = listing.text.empty() ? &empty : reinterpret_cast<Bytef*>(listing.text.data());
  const int inflated =
      uncompress(out, &inflated_bytes, reinterpret_cast<const Bytef*>(compressed.data()),
                 static_cast<uLong>(compressed.size()));
  if (inflated != Z_OK || inflated_bytes != listing.text.size()) {
    return Status::InvalidArgument(what + "its " + std::to_string(compressed.size()) +
                                   " compressed bytes do not inflate to its " +
                                   std::to_string(listing.text.size()) + " bytes of text");
  }
  if (const size_t lines = ListingLines(listing.text).size(); lines != listing.line_count) {
    return Status::InvalidArgument(what + "its text holds " + std::to_string(lines) +
                                   " lines, not the " + std::to_string(listing.line_count) +
                                   " stored");
  }
  return listing;
}

}  // namespace optrace::daemon
