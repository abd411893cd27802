#include "common/bearer_token.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/constant_time.h"
#include "common/user_database.h"

namespace optrace {
namespace {

std::string_view Trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// Closes a descriptor when it goes out of scope.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<std::string> ReadTokenFile(const std::string& path, std::string_view setting) {
  const std::string named = std::string(setting) + " " + path;
  // O_NONBLOCK: a FIFO put in the file's place must not hang the reader.
  const FdCloser file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (file.fd < 0) {
    return Status::InvalidArgument(named + " cannot be read: " + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    return Status::InvalidArgument(named + " is not a regular file");
  }
  if ((info.st_mode & (S_IROTH | S_IWOTH | S_IWGRP)) != 0) {
    return Status::PermissionDenied(
        named + " is " + DescribeOwnerAndMode(info.st_uid, info.st_mode) +
        ": other users could read or replace the token; a token file must be readable by its "
        "owner (and its group) only and writable by its owner only (chmod 0600 or 0640)");
  }
  std::string text(kMaxTokenBytes + 2, '\0');
  size_t filled = 0;
  while (filled < text.size()) {
    const ssize_t got = ::read(file.fd, text.data() + filled, text.size() - filled);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Status::InvalidArgument(named + " cannot be read: " + std::strerror(errno));
    if (got == 0) break;
    filled += static_cast<size_t>(got);
  }
  text.resize(filled);
  const size_t line_end = text.find('\n');
  if (line_end == std::string::npos && filled > kMaxTokenBytes) {
    return Status::InvalidArgument(named + ": its first line is longer than " +
                                   std::to_string(kMaxTokenBytes) + " bytes");
  }
  const std::string_view token = Trimmed(std::string_view(text).substr(0, line_end));
  if (token.empty()) return Status::InvalidArgument(named + " has an empty first line");
  if (token.size() > kMaxTokenBytes) {
    return Status::InvalidArgument(named + ": its token is longer than " +
                                   std::to_string(kMaxTokenBytes) + " bytes");
  }
  for (const char c : token) {
    if (c <= ' ' || c > '~') {
      return Status::InvalidArgument(named +
                                     ": the token holds a character other than printable ASCII "
                                     "without spaces (an authorization header could not carry it)");
    }
  }
  return std::string(token);
}

std::optional<std::string_view> BearerCredential(std::string_view authorization_untrusted) {
  constexpr std::string_view kScheme = "Bearer ";  // not a secret: compared as usual
  if (!authorization_untrusted.starts_with(kScheme)) return std::nullopt;
  return authorization_untrusted.substr(kScheme.size());
}

bool BearerTokenMatches(std::string_view authorization_untrusted, std::string_view token) {
  const std::optional<std::string_view> presented = BearerCredential(authorization_untrusted);
  return presented.has_value() && ConstantTimeEquals(*presented, token);
}

}  // namespace optrace
