#include "nvtx/event_namer.h"

#include <cstddef>
#include <string_view>

#include "nvtx/utf8_text.h"

namespace optrace::nvtx {
namespace {

// True when the attributes declare a size that covers the member at
// `offset` of `bytes` bytes.
bool Covers(uint16_t declared_size, size_t offset, size_t bytes) {
  return declared_size >= offset + bytes;
}

}  // namespace

EventNamer::EventNamer(instrument::NameTable& names, instrument::LossCounter& truncated,
                       instrument::LossCounter& malformed)
    : names_(names),
      truncated_(truncated),
      malformed_(malformed),
      unnamed_id_(names.Id("<unnamed>")) {}

uint32_t EventNamer::NameOf(const char* message) {
  if (message == nullptr || message[0] == '\0') return unnamed_id_;
  const BoundedLength kept = BoundedUtf8Length(message, kMaxNameBytes);
  if (kept.truncated) truncated_.Add();
  if (kept.bytes == 0) return unnamed_id_;
  return names_.Id(std::string_view(message, kept.bytes));
}

uint32_t EventNamer::NameOf(const wchar_t* message) {
  if (message == nullptr || message[0] == L'\0') return unnamed_id_;
  char utf8[kMaxNameBytes];
  const BoundedLength kept = WideToUtf8(message, utf8, sizeof utf8);
  if (kept.truncated) truncated_.Add();
  if (kept.bytes == 0) return unnamed_id_;
  return names_.Id(std::string_view(utf8, kept.bytes));
}

EventNames EventNamer::NamesOf(Domain& domain, const nvtxEventAttributes_t* attributes_untrusted) {
  EventNames out{unnamed_id_, domain.TagId(0)};
  if (attributes_untrusted == nullptr) return out;
  // Copy the two header fields once, then decide from the copy what may
  // be read (the application owns this memory).
  const uint16_t size = attributes_untrusted->size;
  if (Covers(size, offsetof(nvtxEventAttributes_t, category), sizeof(uint32_t))) {
    out.tag_id = domain.TagId(attributes_untrusted->category);
  }
  if (!Covers(size, offsetof(nvtxEventAttributes_t, message), sizeof(nvtxMessageValue_t))) {
    malformed_.Add();
    return out;
  }
  const int32_t type = attributes_untrusted->messageType;
  const nvtxMessageValue_t message = attributes_untrusted->message;
  switch (type) {
    case NVTX_MESSAGE_UNKNOWN:
      break;
    case NVTX_MESSAGE_TYPE_ASCII:
      out.name_id = NameOf(message.ascii);
      break;
    case NVTX_MESSAGE_TYPE_UNICODE:
      out.name_id = NameOf(message.unicode);
      break;
    case NVTX_MESSAGE_TYPE_REGISTERED:
      out.name_id = NameOfRegistered(message.registered);
      break;
    default:
      malformed_.Add();
      break;
  }
  return out;
}

nvtxStringHandle_t EventNamer::HandleOf(uint32_t name_id) {
  return reinterpret_cast<nvtxStringHandle_t>(static_cast<uintptr_t>(name_id));
}

uint32_t EventNamer::NameOfRegistered(nvtxStringHandle_t handle) {
  const auto value = reinterpret_cast<uintptr_t>(handle);
  // Only our own handles (string ids) are valid; anything else names
  // nothing we know.
  if (value == 0 || value > UINT32_MAX) {
    malformed_.Add();
    return unnamed_id_;
  }
  return static_cast<uint32_t>(value);
}

}  // namespace optrace::nvtx
