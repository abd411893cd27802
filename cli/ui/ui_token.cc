#include "ui/ui_token.h"

#include <sys/random.h>

#include <array>
#include <cerrno>

namespace optrace::cli {

std::optional<std::string> NewUiToken() {
  std::array<unsigned char, kUiTokenChars / 2> bytes{};
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    got += static_cast<size_t>(n);
  }
  constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(kUiTokenChars);
  for (const unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 0xf];
  }
  return token;
}

}  // namespace optrace::cli
