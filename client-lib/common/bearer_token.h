// Bearer tokens: the secrets that callers of optraced's TCP and HTTP
// listeners present ("authorization: Bearer TOKEN"), and the files that
// hold them. The daemon reads its tokens (listen_token_dir,
// metrics_token_file) and the clients theirs (optrace --token-file,
// optrace.Client(token_file=...)) by the same rule, so that a token file
// that leaks to other users is refused on both sides, by name.
#ifndef OPTRACE_COMMON_BEARER_TOKEN_H_
#define OPTRACE_COMMON_BEARER_TOKEN_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace optrace {

// The longest token a token file's first line may hold.
inline constexpr size_t kMaxTokenBytes = 4096;

// The token on the first line of the file at `path`, blanks around it
// trimmed. `setting` names where the path came from ("metrics_token_file",
// "--token-file") in the messages. Reads the file once, through the
// descriptor it checked. Errors name the setting and the file, never
// what it holds:
//  - kInvalidArgument: it cannot be opened, or is not a regular file;
//  - kPermissionDenied: other users may read or write it, or its group
//    may write it (o+r, o+w, g+w), with its owner and mode;
//  - kInvalidArgument: its first line is empty, longer than
//    kMaxTokenBytes, or holds a character other than printable ASCII
//    (a space included: a header could not carry it).
Result<std::string> ReadTokenFile(const std::string& path, std::string_view setting);

// The token of an Authorization header value "Bearer TOKEN" (the scheme
// spelled exactly so); nullopt for any other value.
std::optional<std::string_view> BearerCredential(std::string_view authorization_untrusted);

// Whether `authorization_untrusted` is "Bearer `token`", compared in a
// time that does not depend on where the two differ (constant_time.h).
bool BearerTokenMatches(std::string_view authorization_untrusted, std::string_view token);

}  // namespace optrace

#endif  // OPTRACE_COMMON_BEARER_TOKEN_H_
