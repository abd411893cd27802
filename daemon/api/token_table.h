// The bearer tokens of TCP callers (listen_token_dir): a folder of one
// file per user, named for the user (a user name of this machine or a
// numeric uid) and holding that user's token on its first line. A call
// that presents a user's token is that user's, with the rights the user
// has on the Unix socket (caller_identity.h).
//
// Whoever can change the folder or a file in it can make themselves any
// user, root included, so the rules are strict: the folder is owned by
// the daemon's uid or root and writable by its owner only; each file is
// owned by the daemon's uid or root and neither readable nor writable by
// its group or others (0600 or 0400: the socket's group, whose members
// connect, must not read other users' tokens). Users keep a copy of their
// own token in a file of their own (optrace --token-file).
#ifndef OPTRACE_DAEMON_API_TOKEN_TABLE_H_
#define OPTRACE_DAEMON_API_TOKEN_TABLE_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace optrace::daemon {

// The shortest token accepted: anything shorter could be guessed over the
// network. `openssl rand -hex 32` makes one of 64.
inline constexpr size_t kMinTcpTokenBytes = 16;

// Immutable once loaded; thread-safe to read.
class TokenTable {
 public:
  // Reads every file of `folder` once (names starting with "." are
  // skipped). `daemon_uid`: the uid that may own the folder and files
  // besides root. Errors (kInvalidArgument, kPermissionDenied) name the
  // folder or the file and what is wrong, never a token:
  //  - the folder cannot be read or is not a folder, or is owned by
  //    another uid or writable by its group or others;
  //  - a file is not a regular file, names no user of this machine, is
  //    owned by another uid, or is readable or writable by its group or
  //    others (with its owner and mode);
  //  - ReadTokenFile's refusals (common/bearer_token.h);
  //  - a token shorter than kMinTcpTokenBytes, or one that two files hold;
  //  - no file at all.
  static Result<TokenTable> Load(const std::string& folder, uid_t daemon_uid);

  // The uid whose token `presented_untrusted` is; nullopt when none's is.
  // Compares it with every token, each in constant time, and goes on past
  // a match, so that the time taken depends only on the table's tokens'
  // lengths, never on which token matched or how much of a guess did.
  std::optional<uint32_t> Find(std::string_view presented_untrusted) const;

  // How many users have a token.
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    uint32_t uid = 0;
    std::string token;
  };
  explicit TokenTable(std::vector<Entry> entries) : entries_(std::move(entries)) {}

  std::vector<Entry> entries_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_TOKEN_TABLE_H_
