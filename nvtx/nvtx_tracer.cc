#include "nvtx/nvtx_tracer.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace optrace::nvtx {

TracerLimits ReadTracerLimits() {
  TracerLimits limits;
  const char* text = std::getenv("OPTRACE_NVTX_MAX_NAMES");
  if (text == nullptr || text[0] == '\0') return limits;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-' || value == 0 || value > (1u << 20)) {
    std::fprintf(stderr,
                 "optrace: OPTRACE_NVTX_MAX_NAMES=%s is not a count from 1 to 1048576; "
                 "using %zu\n",
                 text, limits.max_names);
    return limits;
  }
  limits.max_names = static_cast<size_t>(value);
  return limits;
}

std::string ReadStepRangeName() {
  const char* text = std::getenv("OPTRACE_NVTX_STEP_RANGE");
  return text == nullptr ? std::string() : std::string(text);
}

std::atomic<NvtxTracer*> NvtxTracer::instance_{nullptr};

NvtxTracer& NvtxTracer::Create() {
  // Leaked on purpose.
  static NvtxTracer* const tracer = new NvtxTracer(ReadTracerLimits(), ReadStepRangeName());
  // Release pairs with the acquire load in Get.
  instance_.store(tracer, std::memory_order_release);
  return *tracer;
}

NvtxTracer::NvtxTracer(const TracerLimits& limits, const std::string& step_range)
    : names_(limits.max_names, names_over_cap_),
      domains_(limits.max_domains, names_, domains_over_cap_),
      namer_(names_, messages_truncated_, malformed_attributes_),
      async_ranges_(limits.max_open_async, async_untracked_),
      step_range_id_(StepRangeId(step_range)),
      step_mark_id_(step_range.empty() ? 0 : names_.Id(OPTRACE_STEP_RANGE_MARK_NAME)) {}

uint32_t NvtxTracer::StepRangeId(const std::string& step_range) {
  if (step_range.empty()) return 0;
  // Named as the namer names messages, so that the ids compare equal; a
  // name past the cap would share its placeholder with every other one.
  const uint32_t id = namer_.NameOf(step_range.c_str());
  return names_.IsPlaceholder(id) ? 0 : id;
}

void NvtxTracer::MarkStep() noexcept {
  // Relaxed: the count only numbers the steps, and orders nothing else.
  const int64_t number = steps_marked_.fetch_add(1, std::memory_order_relaxed) + 1;
  optrace_counter(OPTRACE_LEVEL_TRACE, step_mark_id_, number);
}

void NvtxTracer::EndPushed(const PushedRange& closed) noexcept {
  const optrace_op_desc desc = DescOf(closed.name_id, closed.tag_id);
  optrace_op_end(&desc, closed.op_id, 0);
}

void NvtxTracer::End(nvtxRangeId_t id) noexcept {
  if (id == 0) return;  // started while not traced
  AsyncRangeNames names;
  if (!async_ranges_.Take(id, &names)) {
    unknown_range_ends_.Add();
    return;
  }
  const optrace_op_desc desc = DescOf(names.name_id, names.tag_id);
  optrace_op_end(&desc, id, 0);
}

nvtxDomainHandle_t NvtxTracer::CreateDomain(std::string_view name) noexcept {
  if (name.empty()) return nullptr;
  try {
    return reinterpret_cast<nvtxDomainHandle_t>(&domains_.Create(name));
  } catch (...) {  // allocation failure: events go to the default domain
    return nullptr;
  }
}

void NvtxTracer::NameCategory(Domain& domain, uint32_t category, std::string_view name) noexcept {
  try {
    domain.NameCategory(category, name);
  } catch (...) {  // allocation failure: the category keeps its number
  }
}

}  // namespace optrace::nvtx
