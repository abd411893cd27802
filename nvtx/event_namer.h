// What an NVTX event is called in optrace: the name id of its message and
// the tag id of its domain and category.
#ifndef OPTRACE_NVTX_EVENT_NAMER_H_
#define OPTRACE_NVTX_EVENT_NAMER_H_

#include <cstddef>
#include <cstdint>

#include "instrument/loss_counter.h"
#include "instrument/name_table.h"
#include "nvtx/domain_registry.h"
#include "nvtx/nvtx_api.h"
#include "nvtx/utf8_text.h"

namespace optrace::nvtx {

// Name and tag string ids of one event.
struct EventNames {
  uint32_t name_id = 0;
  uint32_t tag_id = 0;
};

// Turns NVTX messages (narrow, wide, registered) and event attributes into
// string ids. Messages longer than kMaxNameBytes of UTF-8 are cut (never
// inside a character) and counted in `truncated`; attributes whose
// declared size is too small for the fields read, or whose message type is
// unknown, are counted in `malformed`; both, and events with no message,
// are still named ("<unnamed>" when nothing usable is left).
// Thread-safe. Borrows `names`, `truncated` and `malformed`, which must
// outlive it.
class EventNamer {
 public:
  EventNamer(instrument::NameTable& names, instrument::LossCounter& truncated,
             instrument::LossCounter& malformed);

  // Name id of a narrow (UTF-8) or wide message; null or empty gives
  // "<unnamed>".
  uint32_t NameOf(const char* message);
  uint32_t NameOf(const wchar_t* message);

  // Name and tag of an event described by `attributes_untrusted` (may be
  // null) in `domain`. Reads only the fields its `size` covers.
  EventNames NamesOf(Domain& domain, const nvtxEventAttributes_t* attributes_untrusted);

  // nvtxDomainRegisterString hands out the string id as the handle.
  static nvtxStringHandle_t HandleOf(uint32_t name_id);

 private:
  uint32_t NameOfRegistered(nvtxStringHandle_t handle);

  instrument::NameTable& names_;
  instrument::LossCounter& truncated_;
  instrument::LossCounter& malformed_;
  const uint32_t unnamed_id_;
};

}  // namespace optrace::nvtx

#endif  // OPTRACE_NVTX_EVENT_NAMER_H_
