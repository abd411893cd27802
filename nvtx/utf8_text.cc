#include "nvtx/utf8_text.h"

#include <cstdint>
#include <cstring>

namespace optrace::nvtx {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Bytes that code point `cp` takes in UTF-8.
size_t Utf8Bytes(uint32_t cp) {
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp < 0x10000) return 3;
  return 4;
}

// REQUIRES: `cp` is a scalar value and `out` has Utf8Bytes(cp) bytes.
void EncodeUtf8(uint32_t cp, char* out) {
  const auto byte = [](uint32_t v) { return static_cast<char>(static_cast<unsigned char>(v)); };
  switch (Utf8Bytes(cp)) {
    case 1:
      out[0] = byte(cp);
      break;
    case 2:
      out[0] = byte(0xC0 | (cp >> 6));
      out[1] = byte(0x80 | (cp & 0x3F));
      break;
    case 3:
      out[0] = byte(0xE0 | (cp >> 12));
      out[1] = byte(0x80 | ((cp >> 6) & 0x3F));
      out[2] = byte(0x80 | (cp & 0x3F));
      break;
    default:
      out[0] = byte(0xF0 | (cp >> 18));
      out[1] = byte(0x80 | ((cp >> 12) & 0x3F));
      out[2] = byte(0x80 | ((cp >> 6) & 0x3F));
      out[3] = byte(0x80 | (cp & 0x3F));
      break;
  }
}

constexpr uint32_t kReplacementCharacter = 0xFFFD;

}  // namespace

BoundedLength BoundedUtf8Length(const char* text, size_t max_bytes) {
  const size_t length = ::strnlen(text, max_bytes + 1);
  if (length <= max_bytes) return {length, false};
  // text[max_bytes] exists: cut before it, and before a character that it
  // would split.
  size_t cut = max_bytes;
  while (cut > 0 && IsContinuationByte(text[cut])) --cut;
  return {cut, true};
}

BoundedLength WideToUtf8(const wchar_t* text, char* out, size_t capacity) {
  size_t written = 0;
  for (const wchar_t* p = text; *p != L'\0'; ++p) {
    auto cp = static_cast<uint32_t>(*p);
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacementCharacter;
    const size_t need = Utf8Bytes(cp);
    if (written + need > capacity) return {written, true};
    EncodeUtf8(cp, out + written);
    written += need;
  }
  return {written, false};
}

}  // namespace optrace::nvtx
