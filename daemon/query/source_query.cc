#include "query/source_query.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>

#include "storage/span_page_codec.h"

namespace optrace::daemon {
namespace {

// How many of a file's stored ranges a "no listing" message names.
constexpr size_t kRangesNamed = 5;

std::string SessionName(SessionId session) { return "session " + std::to_string(session); }

// "(listings: 3 stored, 1 refused, 0 dropped, 0 capped)", and the ranges
// the session holds of the file, so that the reader sees why there was
// no listing to show.
std::string ListingsNote(const SessionListingCounts& counts,
                         const std::vector<StoredListing>& of_file, const std::string& file) {
  std::string note = "(listings: " + std::to_string(counts.shipped) + " stored, " +
                     std::to_string(counts.refused) + " refused, " +
                     std::to_string(counts.dropped) + " dropped, " + std::to_string(counts.capped) +
                     " capped";
  size_t named = 0;
  size_t more = 0;
  for (const StoredListing& listing : of_file) {
    if (listing.line_count == 0) continue;  // holds no line to name
    if (named == kRangesNamed) {
      ++more;
      continue;
    }
    note += (named++ == 0 ? "; of " + file + ": lines " : std::string(", ")) +
            std::to_string(listing.first_line) + "-" +
            std::to_string(listing.first_line + listing.line_count - 1);
  }
  if (more > 0) note += " and " + std::to_string(more) + " more";
  return note + ")";
}

// The string id of the source location of op `op_id` of `session`: its
// first stored span's, else its persisted open half's; nullopt when the
// session has neither.
Result<std::optional<StringId>> OpLocation(SpanReader& reader, SessionId session, uint64_t op_id) {
  std::optional<StringId> found;
  Status scanned = reader.ForEachSpan(
      session, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
      [&](const Span& span) {
        if (span.op_id != op_id) return true;
        found = span.srcloc;
        return false;
      },
      span_page::kOpId | span_page::kSrcloc);
  if (!scanned.ok()) return scanned;
  if (found) return found;
  Result<std::vector<HalfOp>> halves = reader.OpenHalves(session);
  if (!halves.ok()) return halves.status();
  for (const HalfOp& half : halves.value()) {
    if (half.op_id == op_id) return std::optional<StringId>(half.srcloc);
  }
  return std::optional<StringId>();
}

// The location `request` asks for, as its text: the given one, or that of
// its op (looked up in `session`).
Result<std::string> RequestedLocation(SpanReader& reader, const SessionRecord& session,
                                      const v1::GetSourceRequest& request) {
  if (request.op_id() == 0) return request.source_location();
  const std::string op = "op " + std::to_string(request.op_id()) + " of " + SessionName(session.id);
  Result<std::optional<StringId>> id = OpLocation(reader, session.id, request.op_id());
  if (!id.ok()) return id.status();
  if (!id.value()) {
    std::string message = SessionName(session.id) + " has no op " + std::to_string(request.op_id());
    if (session.trim.spans > 0) {
      message += " stored (its window trimmed " + std::to_string(session.trim.spans) +
                 " spans older than the ones it keeps)";
    }
    return Status::NotFound(message);
  }
  Result<std::optional<std::string>> text =
      *id.value() == 0 ? Result<std::optional<std::string>>(std::optional<std::string>())
                       : reader.String(*id.value());
  if (!text.ok()) return text.status();
  if (!text.value() || text.value()->empty()) {
    return Status::NotFound(op + " has no source location");
  }
  return std::move(*text.value());
}

}  // namespace

std::optional<SourceLine> ParseSourceLine(std::string_view location_untrusted) {
  const size_t colon = location_untrusted.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const std::string_view digits = location_untrusted.substr(colon + 1);
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  uint32_t line = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), line);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return SourceLine{std::string(location_untrusted.substr(0, colon)), line};
}

const StoredListing* ChooseListing(const std::vector<StoredListing>& listings, uint32_t line) {
  const StoredListing* best = nullptr;
  int64_t best_distance = 0;
  for (const StoredListing& listing : listings) {
    const int64_t first = listing.first_line;
    if (line < first || line >= first + listing.line_count) continue;
    // Twice the distance from the middle, in integers.
    const int64_t distance = std::abs(2 * first + listing.line_count - 1 - 2 * int64_t{line});
    if (best == nullptr || distance < best_distance) {
      best = &listing;
      best_distance = distance;
    }
  }
  return best;
}

void FillSource(const StoredListing& listing, const SourceLine& at, uint32_t context,
                v1::GetSourceResponse* response) {
  const std::vector<std::string_view> lines = ListingLines(listing.text);
  // Indexes into `lines`, [begin, end).
  size_t begin = 0;
  size_t end = lines.size();
  const size_t at_index = at.line - listing.first_line;
  if (context > 0) {
    begin = at_index - std::min<size_t>(at_index, context);
    end = std::min(lines.size(), at_index + size_t{context} + 1);
  }
  response->set_source_location(at.file + ":" + std::to_string(at.line));
  response->set_file(at.file);
  response->set_line(at.line);
  response->set_first_line(listing.first_line + static_cast<uint32_t>(begin));
  for (size_t i = begin; i < end; ++i) response->add_lines(std::string(lines[i]));
  response->set_registered(listing.registered);
}

Status GetSource(SpanReader& reader, const v1::GetSourceRequest& request,
                 v1::GetSourceResponse* response) {
  const bool has_location = !request.source_location().empty();
  if ((request.op_id() != 0) == has_location) {
    return Status::InvalidArgument(
        has_location ? "GetSource: give op_id or source_location, not both"
                     : "GetSource: give op_id (an op of the session) or source_location "
                       "(\"file:line\")");
  }
  if (request.source_location().size() > kMaxSourceLocationBytes) {
    return Status::InvalidArgument(
        "GetSource: source_location of " + std::to_string(request.source_location().size()) +
        " bytes is longer than " + std::to_string(kMaxSourceLocationBytes));
  }
  Result<SqliteTransaction> snapshot = reader.Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  Result<std::optional<SessionRecord>> session = reader.GetSession(request.session_id());
  if (!session.ok()) return session.status();
  if (!session.value()) return Status::NotFound("no " + SessionName(request.session_id()));
  const SessionRecord& record = *session.value();
  Result<std::string> location = RequestedLocation(reader, record, request);
  if (!location.ok()) return location.status();
  const std::optional<SourceLine> at = ParseSourceLine(location.value());
  if (!at) {
    const std::string quoted = "\"" + location.value() + "\"";
    if (request.op_id() == 0) {
      return Status::InvalidArgument("GetSource: source_location " + quoted +
                                     " is not a file:line location");
    }
    return Status::NotFound("op " + std::to_string(request.op_id()) + " of " +
                            SessionName(record.id) + " has source location " + quoted +
                            ", which is not file:line: no listing can hold it");
  }
  Result<std::vector<StoredListing>> listings = reader.Listings(record.id, at->file);
  if (!listings.ok()) return listings.status();
  const StoredListing* chosen = ChooseListing(listings.value(), at->line);
  if (chosen == nullptr) {
    return Status::NotFound(SessionName(record.id) + " has no listing of " + at->file +
                            " around line " + std::to_string(at->line) + " " +
                            ListingsNote(record.listings, listings.value(), at->file));
  }
  FillSource(*chosen, *at, request.context(), response);
  return Status::Ok();
}

}  // namespace optrace::daemon
