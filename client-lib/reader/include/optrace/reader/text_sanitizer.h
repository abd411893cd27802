// Untrusted bytes to printable text, before they reach SQLite, a log line or
// a terminal.
#ifndef OPTRACE_READER_TEXT_SANITIZER_H_
#define OPTRACE_READER_TEXT_SANITIZER_H_

#include <string>
#include <string_view>

namespace optrace::reader {

// Returns `bytes` as valid UTF-8 with every invalid sequence replaced by
// U+FFFD and every control character (C0, DEL, C1) replaced by '?'.
// Stops at the first NUL when `stop_at_nul` (for NUL-padded header fields).
std::string SanitizeText(std::string_view bytes, bool stop_at_nul = false);

}  // namespace optrace::reader

#endif  // OPTRACE_READER_TEXT_SANITIZER_H_
