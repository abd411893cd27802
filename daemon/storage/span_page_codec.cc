#include "storage/span_page_codec.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <optional>
#include <type_traits>

namespace optrace::daemon::span_page {
namespace {

// The first format version, whose pages lack the has_device_ns column.
constexpr uint8_t kFormatVersionWithoutDevicePresence = 1;
constexpr size_t kMaxVarintBytes = 10;
// The most bytes in front of the columns: version, count and lengths.
constexpr size_t kMaxHeaderBytes = 1 + kMaxVarintBytes * (1 + kColumnCount);

// The byte in front of each column.
enum ColumnMode : uint8_t {
  kPerValue = 0,  // `count` values follow
  kConstant = 1,  // one value follows: every span's
};

// Calls `visit(position, column, name, coding, member)` for each column of
// format `version`, in layout order, until it returns false; returns
// whether every call returned true. `position` counts the page's own
// columns; `column` is the column's bit. The single walk both Encode and
// Decode make, so that they cannot disagree.
template <typename Visit>
bool ForEachColumn(uint8_t version, Visit&& visit) {
  size_t position = 0;
#define OPTRACE_SPAN_PAGE_COLUMN_VISIT(column, member, coding, since)                           \
  if (version >= (since) && !visit(position++, column, #member, Coding::coding, &Span::member)) \
    return false;
  OPTRACE_SPAN_PAGE_COLUMNS(OPTRACE_SPAN_PAGE_COLUMN_VISIT)
#undef OPTRACE_SPAN_PAGE_COLUMN_VISIT
  return true;
}

// Gives the `columns` that format `version` lacks their default value in
// every span of `spans` (a reused vector holds an earlier page's).
void ResetColumnsNewerThan(uint8_t version, ColumnSet columns, std::vector<Span>& spans) {
#define OPTRACE_SPAN_PAGE_COLUMN_RESET(column, member, coding, since) \
  if (version < (since) && (columns & column) != 0) {                 \
    for (Span & span : spans) span.member = Span{}.member;            \
  }
  OPTRACE_SPAN_PAGE_COLUMNS(OPTRACE_SPAN_PAGE_COLUMN_RESET)
#undef OPTRACE_SPAN_PAGE_COLUMN_RESET
}

// How many columns a page of format `version` holds.
size_t ColumnCount(uint8_t version) {
  size_t count = 0;
  ForEachColumn(version, [&](size_t, Column, const char*, Coding, auto) { return ++count > 0; });
  return count;
}

template <typename Field>
uint64_t ToBits(Field value) {
  if constexpr (std::is_enum_v<Field>) {
    return static_cast<uint64_t>(static_cast<std::underlying_type_t<Field>>(value));
  } else {
    return static_cast<uint64_t>(value);
  }
}

// The largest stored value that fits `Field` (bits of a signed field).
template <typename Field>
uint64_t MaxBits() {
  if constexpr (std::is_same_v<Field, SpanStatus>) {
    return ToBits(SpanStatus::kDuplicate);
  } else if constexpr (std::is_signed_v<Field>) {
    return std::numeric_limits<uint64_t>::max();
  } else {
    return std::numeric_limits<Field>::max();
  }
}

uint64_t ZigZag(uint64_t delta) {
  const auto signed_delta = static_cast<int64_t>(delta);
  return (delta << 1) ^ static_cast<uint64_t>(signed_delta >> 63);
}

uint64_t UnZigZag(uint64_t coded) { return (coded >> 1) ^ (~(coded & 1) + 1); }

uint8_t* PutVarint(uint8_t* out, uint64_t value) {
  while (value >= 0x80) {
    *out++ = static_cast<uint8_t>(value | 0x80);
    value >>= 7;
  }
  *out++ = static_cast<uint8_t>(value);
  return out;
}

// Bounds-checked reading of untrusted bytes.
class UntrustedReader {
 public:
  // Reads `bytes`, which start at byte `base` of the page (offset() counts
  // from the page's start).
  UntrustedReader(std::string_view bytes, size_t base)
      : begin_(reinterpret_cast<const uint8_t*>(bytes.data())),
        pos_(begin_),
        end_(begin_ + bytes.size()),
        base_(base) {}

  size_t offset() const { return base_ + static_cast<size_t>(pos_ - begin_); }
  size_t remaining() const { return static_cast<size_t>(end_ - pos_); }

  // The next `length` bytes, read past. REQUIRES: length <= remaining().
  std::string_view Take(size_t length) {
    const std::string_view taken(reinterpret_cast<const char*>(pos_), length);
    pos_ += length;
    return taken;
  }

  // Reads one byte into `value`; false at the end of the input.
  bool Byte(uint8_t* value) {
    if (pos_ == end_) return false;
    *value = *pos_++;
    return true;
  }

  // Reads one varint into `value`; on failure says why in `problem`.
  bool Varint(uint64_t* value, const char** problem) {
    uint64_t result = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (pos_ == end_) {
        *problem = "truncated varint";
        return false;
      }
      const uint8_t byte = *pos_++;
      if (shift == 63 && byte > 1) {
        *problem = "varint overflows 64 bits";
        return false;
      }
      result |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *value = result;
        return true;
      }
    }
    *problem = "varint longer than 10 bytes";
    return false;
  }

 private:
  const uint8_t* begin_;
  const uint8_t* pos_;
  const uint8_t* end_;
  size_t base_;
};

Status Corrupt(size_t offset, const std::string& what) {
  return Status::InvalidArgument("corrupt span page at byte " + std::to_string(offset) + ": " +
                                 what);
}

}  // namespace

std::string Encode(std::span<const Span> spans) {
  assert(spans.size() <= kMaxSpansPerPage);
  std::string out;
  // The columns go after room for the largest header, each value in at
  // most kMaxVarintBytes; the header is written in front of them once
  // their lengths are known, and the room left over is cut.
  out.resize(kMaxHeaderBytes + kColumnCount * (1 + spans.size() * kMaxVarintBytes));
  auto* const begin = reinterpret_cast<uint8_t*>(out.data());
  uint8_t* const columns = begin + kMaxHeaderBytes;
  uint8_t* pos = columns;
  uint64_t lengths[kColumnCount] = {};
  ForEachColumn(
      kFormatVersion, [&](size_t position, Column, const char*, Coding coding, auto member) {
        uint8_t* const column_begin = pos;
        const bool constant =
            !spans.empty() && std::all_of(spans.begin(), spans.end(), [&](const Span& span) {
              return span.*member == spans.front().*member;
            });
        if (constant) {
          *pos++ = kConstant;
          pos = PutVarint(pos, ToBits(spans.front().*member));
        } else {
          *pos++ = kPerValue;
          uint64_t previous = 0;
          for (const Span& span : spans) {
            const uint64_t bits = ToBits(span.*member);
            pos = PutVarint(pos, coding == Coding::kDelta ? ZigZag(bits - previous) : bits);
            previous = bits;
          }
        }
        lengths[position] = static_cast<uint64_t>(pos - column_begin);
        return true;
      });
  uint8_t header[kMaxHeaderBytes];
  uint8_t* header_end = header;
  *header_end++ = kFormatVersion;
  header_end = PutVarint(header_end, spans.size());
  for (const uint64_t length : lengths) header_end = PutVarint(header_end, length);
  const auto header_size = static_cast<size_t>(header_end - header);
  std::copy(header, header_end, columns - header_size);
  out.resize(static_cast<size_t>(pos - begin));
  out.erase(0, kMaxHeaderBytes - header_size);
  return out;
}

Result<std::vector<Span>> Decode(std::string_view bytes_untrusted, ColumnSet columns) {
  std::vector<Span> spans;
  Status decoded = DecodeInto(bytes_untrusted, columns, &spans);
  if (!decoded.ok()) return decoded;
  return spans;
}

Status DecodeInto(std::string_view bytes_untrusted, ColumnSet columns, std::vector<Span>* out) {
  if (bytes_untrusted.empty()) return Corrupt(0, "empty page");
  const auto version = static_cast<uint8_t>(bytes_untrusted[0]);
  if (version < kFormatVersionWithoutDevicePresence || version > kFormatVersion) {
    return Corrupt(0, "format version " + std::to_string(version) + ", expected " +
                          std::to_string(kFormatVersionWithoutDevicePresence) + " to " +
                          std::to_string(kFormatVersion));
  }
  UntrustedReader reader(bytes_untrusted.substr(1), 1);
  const char* problem = nullptr;
  uint64_t count = 0;
  if (!reader.Varint(&count, &problem)) return Corrupt(1, std::string(problem) + " in span count");
  if (count > kMaxSpansPerPage) {
    return Corrupt(1, "span count " + std::to_string(count) + " exceeds the page limit " +
                          std::to_string(kMaxSpansPerPage));
  }
  const bool has_lengths = version >= kFormatVersionWithColumnLengths;
  uint64_t lengths[kColumnCount] = {};
  if (has_lengths) {
    uint64_t total = 0;
    for (size_t i = 0; i < ColumnCount(version); ++i) {
      const size_t at = reader.offset();
      if (!reader.Varint(&lengths[i], &problem)) {
        return Corrupt(at, std::string(problem) + " in the length of column " + std::to_string(i));
      }
      total += std::min<uint64_t>(lengths[i], bytes_untrusted.size());  // cannot wrap
    }
    if (total != reader.remaining()) {
      return Corrupt(reader.offset(), "the column lengths add up to " + std::to_string(total) +
                                          " bytes, the page has " +
                                          std::to_string(reader.remaining()) + " after them");
    }
  } else {
    columns = kAllColumns;  // no lengths: every column is read to reach the next
  }
  std::vector<Span>& spans = *out;
  spans.resize(count);
  Status error;
  ForEachColumn(
      version, [&](size_t position, Column column, const char* name, Coding coding, auto member) {
        // With lengths, each column is read within its own bytes (the sum
        // check above keeps every length within the page).
        std::optional<UntrustedReader> own;
        if (has_lengths) {
          const size_t at = reader.offset();
          own.emplace(reader.Take(lengths[position]), at);
        }
        if ((columns & column) == 0) return true;
        UntrustedReader& in = own ? *own : reader;
        using Field = std::remove_reference_t<decltype(spans[0].*member)>;
        const uint64_t max = MaxBits<Field>();
        auto fail = [&](size_t at, const std::string& what) {
          error = Corrupt(at, "column " + std::string(name) + ": " + what);
          return false;
        };
        uint8_t mode = 0;
        if (!in.Byte(&mode)) return fail(in.offset(), "truncated before its mode byte");
        if (mode != kPerValue && mode != kConstant) {
          return fail(in.offset() - 1, "unknown mode " + std::to_string(mode));
        }
        uint64_t previous = 0;
        for (size_t i = 0; i < spans.size(); ++i) {
          const size_t at = in.offset();
          uint64_t value = previous;
          if (mode == kPerValue || i == 0) {
            if (!in.Varint(&value, &problem)) {
              return fail(at, std::string(problem) + " at span " + std::to_string(i));
            }
            if (mode == kPerValue && coding == Coding::kDelta) value = previous + UnZigZag(value);
            if (value > max) {
              return fail(at, "value " + std::to_string(value) + " of span " + std::to_string(i) +
                                  " exceeds " + std::to_string(max));
            }
          }
          previous = value;
          spans[i].*member = static_cast<Field>(value);
        }
        if (own && own->remaining() != 0) {
          return fail(own->offset(), std::to_string(own->remaining()) + " bytes after its values");
        }
        return true;
      });
  if (!error.ok()) return error;
  if (reader.remaining() != 0) {
    return Corrupt(reader.offset(),
                   std::to_string(reader.remaining()) + " bytes after the last column");
  }
  ResetColumnsNewerThan(version, columns, spans);
  if (version == kFormatVersionWithoutDevicePresence) {
    for (Span& span : spans) span.has_device_ns = span.device_ns != 0;
  }
  return Status::Ok();
}

}  // namespace optrace::daemon::span_page
