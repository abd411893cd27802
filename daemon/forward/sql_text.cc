#include "forward/sql_text.h"

namespace optrace::daemon {

std::string SqlString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('\'');
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\0':
        out += "\\0";
        break;
      default:
        out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

std::string SqlInt(int64_t value) { return "toInt64(" + std::to_string(value) + ")"; }

std::string SqlUInt(uint64_t value) { return "toUInt64(" + std::to_string(value) + ")"; }

}  // namespace optrace::daemon
