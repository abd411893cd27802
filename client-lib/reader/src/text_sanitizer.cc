#include "optrace/reader/text_sanitizer.h"

#include <cstdint>

namespace optrace::reader {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence at the start of `s`, or 0 if invalid
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
size_t ValidSequenceLength(std::string_view s) {
  const auto b0 = static_cast<uint8_t>(s[0]);
  size_t len;
  uint32_t cp;
  if (b0 < 0x80) return 1;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (s.size() < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    const auto b = static_cast<uint8_t>(s[i]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  if (cp >= 0x80 && cp <= 0x9F) return 0;  // C1 controls: treated as invalid text
  return len;
}

}  // namespace

std::string SanitizeText(std::string_view bytes, bool stop_at_nul) {
  if (stop_at_nul) bytes = bytes.substr(0, bytes.find('\0'));
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    const auto c = static_cast<uint8_t>(bytes[0]);
    if (c < 0x20 || c == 0x7F) {
      out.push_back('?');
      bytes.remove_prefix(1);
      continue;
    }
    const size_t len = ValidSequenceLength(bytes);
    if (len == 0) {
      out.append(kReplacement);
      bytes.remove_prefix(1);
    } else {
      out.append(bytes.substr(0, len));
      bytes.remove_prefix(len);
    }
  }
  return out;
}

}  // namespace optrace::reader
