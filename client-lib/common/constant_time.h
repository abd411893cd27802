// Comparing secrets (tokens, cookies) without telling an attacker, by the
// time an answer takes, how much of a guess was right.
#ifndef OPTRACE_COMMON_CONSTANT_TIME_H_
#define OPTRACE_COMMON_CONSTANT_TIME_H_

#include <string_view>

namespace optrace {

// Whether `untrusted` equals `secret`, in a time that depends on their
// lengths only, never on where they differ. Texts of different lengths
// are unequal at once: a secret's length is not a secret here (tokens
// have a fixed length).
bool ConstantTimeEquals(std::string_view untrusted, std::string_view secret);

}  // namespace optrace

#endif  // OPTRACE_COMMON_CONSTANT_TIME_H_
