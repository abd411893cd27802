// libFuzzer target: arbitrary bytes as a ClickHouse answer in RowBinary,
// read as the fleet queries read it (strings, fixed-width numbers) until
// the input ends or a read fails. The first byte picks the column types,
// two bits a column. A hostile answer must fail cleanly: no crash, no
// allocation of a claimed huge length, no read past the input.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "forward/row_binary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using optrace::daemon::RowBinaryReader;
  if (size == 0) return 0;
  const uint8_t columns = data[0];
  RowBinaryReader reader(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  // Each read consumes at least one byte or fails, so this ends.
  for (int column = 0; !reader.AtEnd() && reader.status().ok(); column = (column + 1) % 4) {
    switch ((columns >> (2 * column)) & 3) {
      case 0:
        if (reader.String().size() > RowBinaryReader::kMaxStringBytes) std::abort();
        break;
      case 1:
        reader.Int<uint64_t>();
        break;
      case 2:
        reader.Int<int8_t>();
        break;
      default:
        reader.Int<uint32_t>();
        break;
    }
  }
  // A failed read says so; reads after it keep failing without reading.
  if (!reader.status().ok() && !reader.String().empty()) std::abort();
  return 0;
}
