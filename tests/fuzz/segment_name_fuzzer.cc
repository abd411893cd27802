// libFuzzer target: arbitrary bytes as a file name in the shm folder, which
// anyone may create there, through the parse that discovery and admission
// apply to every name they see (SegmentName::Parse). The first byte picks
// the direction:
//   even: the rest is a name. What parses must be the canonical spelling of
//         what it parsed to (it formats back to the same bytes), in a valid
//         namespace and with a pid; a control segment's name never parses.
//   odd:  the rest gives a namespace, uid, pid and nonce; a well-formed one
//         formats to a name that parses back to it.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "common/segment_name.h"

namespace {

using optrace::SegmentName;

void CheckParse(std::string_view name) {
  const auto parsed = SegmentName::Parse(name);
  if (!parsed) return;
  if (parsed->Format() != name || !optrace::IsValidNamespace(parsed->ns) || parsed->pid == 0) {
    std::abort();
  }
  if (SegmentName::Parse(optrace::ControlSegmentName(parsed->ns, parsed->uid))) std::abort();
}

void CheckFormat(const uint8_t* data, size_t size) {
  SegmentName name;
  if (size < 16) return;
  std::memcpy(&name.uid, data, 4);
  std::memcpy(&name.pid, data + 4, 4);
  std::memcpy(&name.nonce, data + 8, 8);
  name.ns.assign(reinterpret_cast<const char*>(data) + 16, size - 16);
  const auto parsed = SegmentName::Parse(name.Format());
  const bool well_formed = optrace::IsValidNamespace(name.ns) && name.pid != 0;
  if (parsed.has_value() != well_formed) std::abort();
  if (parsed && (parsed->ns != name.ns || parsed->uid != name.uid || parsed->pid != name.pid ||
                 parsed->nonce != name.nonce)) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  if ((data[0] & 1) == 0) {
    CheckParse(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  } else {
    CheckFormat(data + 1, size - 1);
  }
  return 0;
}
