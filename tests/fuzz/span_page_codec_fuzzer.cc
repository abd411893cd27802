// libFuzzer target: arbitrary bytes as a stored span page. Decoding must
// fail cleanly or give spans that encode and decode back to themselves.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "storage/span_page_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace optrace::daemon;
  auto spans = span_page::Decode(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!spans.ok()) return 0;
  const std::string again = span_page::Encode(spans.value());
  auto round = span_page::Decode(again);
  if (!round.ok() || round.value().size() != spans.value().size()) std::abort();
  for (size_t i = 0; i < spans.value().size(); ++i) {
    const Span& a = spans.value()[i];
    const Span& b = round.value()[i];
    if (a.op_id != b.op_id || a.start_ns != b.start_ns || a.duration_ns != b.duration_ns ||
        a.name != b.name || a.status != b.status || a.has_device_ns != b.has_device_ns) {
      std::abort();
    }
  }
  return 0;
}
