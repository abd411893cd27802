// Protocol Buffers wire format, appended to a std::string or written at a
// cursor into sized room: just what a writer of messages by hand needs
// (varints, fixed64 and length-delimited fields). Callers name fields by
// the generated k<Name>FieldNumber constants where the message is ours.
#ifndef OPTRACE_DAEMON_WIRE_PROTO_WIRE_H_
#define OPTRACE_DAEMON_WIRE_PROTO_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace optrace::daemon::proto_wire {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

// The bytes of `value` as a base-128 varint (1 to 10).
constexpr size_t VarintSize(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) value >>= 7, ++size;
  return size;
}

// The bytes of the key (field number and wire type) of `field`.
constexpr size_t TagSize(uint32_t field) { return VarintSize(uint64_t{field} << 3); }

// The most bytes a varint takes (a 64-bit value, or a negative int32/64).
inline constexpr size_t kMaxVarintBytes = 10;
static_assert(VarintSize(~uint64_t{0}) == kMaxVarintBytes);

// Writes `value` as a varint at `at`, which has room for kMaxVarintBytes;
// returns the end of what was written.
inline char* PutVarint(char* at, uint64_t value) {
  while (value >= 0x80) {
    *at++ = static_cast<char>(value | 0x80);
    value >>= 7;
  }
  *at++ = static_cast<char>(value);
  return at;
}

inline void AppendVarint(std::string& out, uint64_t value) {
  char bytes[kMaxVarintBytes];
  out.append(bytes, static_cast<size_t>(PutVarint(bytes, value) - bytes));
}

inline void AppendTag(std::string& out, uint32_t field, WireType type) {
  AppendVarint(out, (uint64_t{field} << 3) | type);
}

// A varint field (uint32/64, int32/64 as two's complement, bool, enum).
inline void AppendVarintField(std::string& out, uint32_t field, uint64_t value) {
  AppendTag(out, field, kVarint);
  AppendVarint(out, value);
}

// The bytes of a varint field.
constexpr size_t VarintFieldSize(uint32_t field, uint64_t value) {
  return TagSize(field) + VarintSize(value);
}

// A fixed64 field, little-endian.
inline void AppendFixed64Field(std::string& out, uint32_t field, uint64_t value) {
  AppendTag(out, field, kFixed64);
  char bytes[8];
  for (char& byte : bytes) byte = static_cast<char>(value), value >>= 8;
  out.append(bytes, sizeof bytes);
}

// The key and length of a length-delimited field of `size` bytes; the
// caller appends exactly `size` bytes next.
inline void AppendLengthPrefix(std::string& out, uint32_t field, size_t size) {
  AppendTag(out, field, kLengthDelimited);
  AppendVarint(out, size);
}

// A length-delimited field (string, bytes, or an encoded message).
inline void AppendBytesField(std::string& out, uint32_t field, std::string_view bytes) {
  AppendLengthPrefix(out, field, bytes.size());
  out.append(bytes);
}

// The bytes of a length-delimited field whose content is `size` bytes.
constexpr size_t LengthDelimitedSize(uint32_t field, size_t size) {
  return TagSize(field) + VarintSize(size) + size;
}

// The most a length-delimited field takes besides its content: its key
// and the longest length.
constexpr size_t MaxLengthPrefixSize(uint32_t field) {
  return TagSize(field) + VarintSize(~size_t{0});
}

// Whether FieldCursor checks each write against the end of its room:
// in debug and sanitizer builds (and so in the fuzzers), never on the
// release hot path.
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool kCheckRoom = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kCheckRoom = true;
#else
inline constexpr bool kCheckRoom = false;
#endif
#else
inline constexpr bool kCheckRoom = false;
#endif

// Stops the process: a write of `needed` bytes with `left` bytes of room,
// a bug of the caller that sized the room (never input from a peer).
[[noreturn, gnu::cold, gnu::noinline]] inline void RoomExceeded(size_t needed, size_t left) {
  std::fprintf(stderr, "proto_wire: a write of %zu bytes overruns its room (%zu bytes left)\n",
               needed, left);
  std::abort();
}

// Writes fields at a cursor into room [at, end) that the caller sized for
// them. REQUIRES: the room holds what is written (a varint or fixed64
// field takes at most kMaxFieldBytes, a length-delimited one at most
// kMaxFieldBytes plus its bytes). Where kCheckRoom, each write checks it
// and a write past `end` stops the process (RoomExceeded); elsewhere
// nothing is checked per field.
class FieldCursor {
 public:
  // The most one varint or fixed64 field takes: a 5-byte key and a
  // 10-byte value.
  static constexpr size_t kMaxFieldBytes = TagSize(~uint32_t{0} >> 3) + kMaxVarintBytes;
  static_assert(kMaxFieldBytes == 15);

  FieldCursor(char* at, char* end) : at_(at), end_(end) {}
  // Where the next field goes.
  char* at() const { return at_; }

  void PutVarintField(uint32_t field, uint64_t value) {
    if constexpr (kCheckRoom) CheckRoom(VarintFieldSize(field, value));
    at_ = PutVarint(Key(field, kVarint), value);
  }
  void PutFixed64Field(uint32_t field, uint64_t value) {
    if constexpr (kCheckRoom) CheckRoom(TagSize(field) + sizeof value);
    at_ = Key(field, kFixed64);
    for (size_t i = 0; i < sizeof value; ++i) *at_++ = static_cast<char>(value), value >>= 8;
  }
  // The key and length of a length-delimited field whose `size` bytes the
  // caller puts next (as more fields of this cursor).
  void PutLengthPrefix(uint32_t field, size_t size) {
    if constexpr (kCheckRoom) CheckRoom(TagSize(field) + VarintSize(size));
    at_ = PutVarint(Key(field, kLengthDelimited), size);
  }
  void PutBytesField(uint32_t field, std::string_view bytes) {
    if constexpr (kCheckRoom) CheckRoom(LengthDelimitedSize(field, bytes.size()));
    at_ = PutVarint(Key(field, kLengthDelimited), bytes.size());
    std::memcpy(at_, bytes.data(), bytes.size());
    at_ += bytes.size();
  }

 private:
  void CheckRoom(size_t bytes) const {
    const auto left = static_cast<size_t>(end_ - at_);
    if (bytes > left) RoomExceeded(bytes, left);
  }
  char* Key(uint32_t field, WireType type) { return PutVarint(at_, (uint64_t{field} << 3) | type); }
  char* at_;
  char* end_;
};

// A message being built in a fixed buffer of N bytes, for the hot path of
// a writer whose messages have a known largest size: no allocation, one
// append when done. REQUIRES: the caller never writes more than N bytes
// (it sizes N from the fields it writes; FieldCursor checks it where
// kCheckRoom).
template <size_t N>
class BoundedMessage {
 public:
  static constexpr size_t kMaxFieldBytes = FieldCursor::kMaxFieldBytes;

  void Clear() { size_ = 0; }
  size_t size() const { return size_; }
  std::string_view view() const { return {data_, size_}; }

  void PutVarintField(uint32_t field, uint64_t value) {
    Put([&](FieldCursor& c) { c.PutVarintField(field, value); });
  }
  void PutFixed64Field(uint32_t field, uint64_t value) {
    Put([&](FieldCursor& c) { c.PutFixed64Field(field, value); });
  }
  void PutLengthPrefix(uint32_t field, size_t size) {
    Put([&](FieldCursor& c) { c.PutLengthPrefix(field, size); });
  }
  void PutBytesField(uint32_t field, std::string_view bytes) {
    Put([&](FieldCursor& c) { c.PutBytesField(field, bytes); });
  }

 private:
  template <typename Write>
  void Put(Write&& write) {
    FieldCursor cursor(data_ + size_, data_ + N);
    write(cursor);
    size_ = static_cast<size_t>(cursor.at() - data_);
  }
  char data_[N];
  size_t size_ = 0;
};

}  // namespace optrace::daemon::proto_wire

#endif  // OPTRACE_DAEMON_WIRE_PROTO_WIRE_H_
