// ClickHouse's RowBinary format: rows as the columns' values one after
// another, little-endian fixed-width numbers, strings as a LEB128 length
// and the bytes. Written for INSERTs (the forwarder), read back from
// SELECT ... FORMAT RowBinary (fleet queries).
#ifndef OPTRACE_DAEMON_FORWARD_ROW_BINARY_H_
#define OPTRACE_DAEMON_FORWARD_ROW_BINARY_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/status.h"

namespace optrace::daemon {

// Appends values to a buffer in RowBinary. The caller writes each row's
// columns in the order its INSERT statement names them; nothing here knows
// the columns. Thread rules: a value type.
class RowBinaryWriter {
 public:
  // A fixed-width integer (UInt8..UInt64, Int8..Int64, and Enum8/Enum16
  // as their underlying Int8/Int16), little-endian.
  template <typename T>
  void Int(T value) {
    static_assert(std::is_integral_v<T> && std::endian::native == std::endian::little);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out_.append(bytes, sizeof(T));
  }

  // A String (also LowCardinality(String)): LEB128 length, then the bytes.
  void String(std::string_view text);

  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }
  void Clear() { out_.clear(); }
  void Reserve(size_t bytes) { out_.reserve(bytes); }

 private:
  std::string out_;
};

// Reads RowBinary that a ClickHouse server sent: untrusted bytes, every
// read bounds-checked. Borrows `bytes_untrusted`, which must outlive the
// reader. After the first failed read, every later read fails too and
// status() names the first problem; callers check it once per row.
// Thread rules: a value type.
class RowBinaryReader {
 public:
  explicit RowBinaryReader(std::string_view bytes_untrusted) : in_(bytes_untrusted) {}

  // Whether every byte has been read.
  bool AtEnd() const { return pos_ == in_.size(); }

  // A fixed-width little-endian integer; 0 after a failure.
  template <typename T>
  T Int() {
    static_assert(std::is_integral_v<T> && std::endian::native == std::endian::little);
    T value{};
    if (!Need(sizeof(T), "a " + std::to_string(sizeof(T) * 8) + "-bit number")) return value;
    std::memcpy(&value, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  // A String of at most kMaxStringBytes; "" after a failure.
  std::string String();

  // OK, or the first read that failed ("RowBinary: truncated at byte 12
  // while reading a string of 40 bytes").
  const Status& status() const { return status_; }

  // The longest string accepted (names, tags and labels are far shorter).
  static constexpr uint64_t kMaxStringBytes = 1 << 20;

 private:
  // Whether `bytes` more are left; sets the error otherwise.
  bool Need(uint64_t bytes, const std::string& what);

  std::string_view in_;
  size_t pos_ = 0;
  Status status_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FORWARD_ROW_BINARY_H_
