// libFuzzer target: arbitrary bytes as the cursor a client passes back to a
// fleet QueryOps (DecodeFleetCursor). The first byte picks the direction:
//   even: the rest is a cursor. One that decodes encodes back to a cursor
//         that decodes to the same key; one that does not is refused with
//         kInvalidArgument.
//   odd:  the rest gives a key (start, store, page, index, then the node's
//         bytes); a node of at most 255 bytes round-trips through the text.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "fleet/fleet_cursor.h"

namespace {

using namespace optrace::daemon;

void CheckDecode(std::string_view text) {
  const auto cursor = DecodeFleetCursor(text);
  if (!cursor.ok()) {
    if (cursor.status().code() != optrace::Status::Code::kInvalidArgument) std::abort();
    return;
  }
  const auto again = DecodeFleetCursor(EncodeFleetCursor(cursor.value()));
  if (!again.ok() || !(again.value() == cursor.value())) std::abort();
}

void CheckEncode(const uint8_t* data, size_t size) {
  FleetCursor cursor;
  if (size < 28) return;
  std::memcpy(&cursor.start_ns, data, 8);
  std::memcpy(&cursor.store_id, data + 8, 8);
  std::memcpy(&cursor.page_id, data + 16, 8);
  std::memcpy(&cursor.page_index, data + 24, 4);
  cursor.node.assign(reinterpret_cast<const char*>(data) + 28, size - 28);
  const auto decoded = DecodeFleetCursor(EncodeFleetCursor(cursor));
  if (decoded.ok() != (cursor.node.size() <= 255)) std::abort();
  if (decoded.ok() && !(decoded.value() == cursor)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  if ((data[0] & 1) == 0) {
    CheckDecode(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  } else {
    CheckEncode(data + 1, size - 1);
  }
  return 0;
}
