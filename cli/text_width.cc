#include "text_width.h"

namespace optrace::cli {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

size_t DisplayWidth(std::string_view text) {
  size_t columns = 0;
  for (char c : text) columns += IsContinuationByte(c) ? 0 : 1;
  return columns;
}

std::string FitToWidth(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  if (width == 0) return "";
  size_t columns = 0;
  size_t end = 0;
  // Keep width - 1 code points: stop at the start of the next one.
  for (; end < text.size(); ++end) {
    if (IsContinuationByte(text[end])) continue;
    if (columns == width - 1) break;
    ++columns;
  }
  std::string fitted(text.substr(0, end));
  fitted.append(kEllipsis);
  return fitted;
}

}  // namespace optrace::cli
