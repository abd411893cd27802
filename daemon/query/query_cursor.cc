#include "query/query_cursor.h"

#include <charconv>

namespace optrace::daemon {
namespace {

constexpr char kSeparator = ':';
// A cursor quoted in an error message is cut to this many bytes.
constexpr size_t kMaxQuotedBytes = 64;

// Parses one decimal field of `text` at `*pos` (ending at a separator when
// `last` is false, at the end of the text otherwise) and moves `*pos` past
// it. False on anything else.
template <typename Int>
bool ParseField(std::string_view text, size_t* pos, bool last, Int* out) {
  const char* begin = text.data() + *pos;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(begin, end, *out);
  if (error != std::errc() || stop == begin) return false;
  if (last) return stop == end;
  if (stop == end || *stop != kSeparator) return false;
  *pos = static_cast<size_t>(stop - text.data()) + 1;
  return true;
}

}  // namespace

std::string EncodeCursor(const QueryCursor& cursor) {
  return std::to_string(cursor.start_ns) + kSeparator + std::to_string(cursor.op_id) + kSeparator +
         std::to_string(cursor.sent_at_key);
}

Result<QueryCursor> DecodeCursor(std::string_view text_untrusted) {
  QueryCursor cursor;
  size_t pos = 0;
  if (ParseField(text_untrusted, &pos, false, &cursor.start_ns) &&
      ParseField(text_untrusted, &pos, false, &cursor.op_id) &&
      ParseField(text_untrusted, &pos, true, &cursor.sent_at_key) && cursor.sent_at_key != 0) {
    return cursor;
  }
  std::string quoted(text_untrusted.substr(0, kMaxQuotedBytes));
  if (text_untrusted.size() > kMaxQuotedBytes) quoted += "...";
  return Status::InvalidArgument("cursor \"" + quoted +
                                 "\" is not one this daemon returned: pass the next_cursor of "
                                 "the previous response, or \"\" to start from the beginning");
}

}  // namespace optrace::daemon
