// libFuzzer target: arbitrary bytes as a stored span page. Decoding must
// fail cleanly or give spans that encode and decode back to themselves,
// and decoding only some columns of a page that decodes must give those
// columns' values.
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
  constexpr span_page::ColumnSet kSome =
      span_page::kName | span_page::kDurationNs | span_page::kStatus | span_page::kHasDeviceNs;
  auto some = span_page::Decode(std::string_view(reinterpret_cast<const char*>(data), size), kSome);
  if (!some.ok() || some.value().size() != spans.value().size()) std::abort();
  for (size_t i = 0; i < spans.value().size(); ++i) {
    const Span& a = spans.value()[i];
    const Span& b = some.value()[i];
    if (a.name != b.name || a.duration_ns != b.duration_ns || a.status != b.status ||
        a.has_device_ns != b.has_device_ns) {
      std::abort();
    }
  }
  return 0;
}
