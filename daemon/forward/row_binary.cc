#include "forward/row_binary.h"

namespace optrace::daemon {

void RowBinaryWriter::String(std::string_view text) {
  uint64_t length = text.size();
  do {
    const uint8_t low = length & 0x7f;
    length >>= 7;
    out_.push_back(static_cast<char>(length != 0 ? low | 0x80 : low));
  } while (length != 0);
  out_.append(text);
}

bool RowBinaryReader::Need(uint64_t bytes, const std::string& what) {
  if (!status_.ok()) return false;
  if (bytes <= in_.size() - pos_) return true;
  status_ = Status::InvalidArgument("RowBinary: truncated at byte " + std::to_string(pos_) +
                                    " of " + std::to_string(in_.size()) + " while reading " + what);
  return false;
}

std::string RowBinaryReader::String() {
  uint64_t length = 0;
  for (int shift = 0;; shift += 7) {
    if (!Need(1, "a string length")) return {};
    const uint8_t byte = static_cast<uint8_t>(in_[pos_++]);
    if (shift == 63 && byte > 1) {
      status_ = Status::InvalidArgument("RowBinary: string length at byte " +
                                        std::to_string(pos_ - 1) + " overflows 64 bits");
      return {};
    }
    length |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  if (length > kMaxStringBytes) {
    status_ =
        Status::InvalidArgument("RowBinary: a string of " + std::to_string(length) +
                                " bytes at byte " + std::to_string(pos_) + " is longer than the " +
                                std::to_string(kMaxStringBytes) + " allowed");
    return {};
  }
  if (!Need(length, "a string of " + std::to_string(length) + " bytes")) return {};
  std::string text(in_.substr(pos_, length));
  pos_ += length;
  return text;
}

}  // namespace optrace::daemon
