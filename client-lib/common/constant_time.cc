#include "common/constant_time.h"

namespace optrace {

bool ConstantTimeEquals(std::string_view untrusted, std::string_view secret) {
  if (untrusted.size() != secret.size()) return false;
  // Every byte is looked at; volatile keeps the compiler from stopping at
  // the first difference.
  volatile unsigned char differ = 0;
  for (size_t i = 0; i < secret.size(); ++i) {
    differ =
        static_cast<unsigned char>(differ | static_cast<unsigned char>(untrusted[i] ^ secret[i]));
  }
  return differ == 0;
}

}  // namespace optrace
