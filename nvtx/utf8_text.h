// Bounded UTF-8 text from NVTX messages: application strings of any length
// (narrow, assumed UTF-8, or wide) cut to a size the string table takes,
// never inside a character.
#ifndef OPTRACE_NVTX_UTF8_TEXT_H_
#define OPTRACE_NVTX_UTF8_TEXT_H_

#include <cstddef>

namespace optrace::nvtx {

// The most bytes of a message kept as an op name (the string table holds
// up to 4096; names this long are already unreadable in a listing).
inline constexpr size_t kMaxNameBytes = 512;

// How much of a message was kept.
struct BoundedLength {
  size_t bytes = 0;        // bytes kept
  bool truncated = false;  // the message was longer
};

// The longest prefix of the NUL-terminated `text` that has at most
// `max_bytes` bytes and does not end inside a UTF-8 sequence. Reads at most
// max_bytes + 1 bytes of `text`, so a huge or unterminated-looking message
// costs no more than a short one. Invalid UTF-8 is kept as it is (the
// daemon sanitises what it displays).
// REQUIRES: `text` is non-null and NUL-terminated or at least max_bytes + 1
// bytes long.
BoundedLength BoundedUtf8Length(const char* text, size_t max_bytes);

// Converts the NUL-terminated wide string `text` (UTF-32 on Linux) to UTF-8
// in out[0, capacity), stopping before the first character that would not
// fit. Code points that are not Unicode scalar values (surrogates, above
// U+10FFFF) become U+FFFD. Does not write a NUL. Returns the bytes written
// and whether characters were left over.
// REQUIRES: `text` and `out` are non-null.
BoundedLength WideToUtf8(const wchar_t* text, char* out, size_t capacity);

}  // namespace optrace::nvtx

#endif  // OPTRACE_NVTX_UTF8_TEXT_H_
