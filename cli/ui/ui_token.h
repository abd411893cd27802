// The secret of one `optrace ui` run: what its printed URL carries and its
// cookie holds.
#ifndef OPTRACE_CLI_UI_UI_TOKEN_H_
#define OPTRACE_CLI_UI_UI_TOKEN_H_

#include <optional>
#include <string>

namespace optrace::cli {

// Characters in a token: 32 random bytes as lower-case hex.
inline constexpr size_t kUiTokenChars = 64;

// A fresh token from the kernel's random source (getrandom); nullopt when
// it cannot give 32 bytes (the caller must not serve without one).
std::optional<std::string> NewUiToken();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_TOKEN_H_
