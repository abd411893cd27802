#include "nvtx/cupti/activity_ops.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string_view>

#include "nvtx/utf8_text.h"

namespace optrace::nvtx {
namespace {

// The name id of `text`, bounded like an NVTX message.
uint32_t BoundedNameId(instrument::NameTable& names, const char* text) {
  const BoundedLength kept = BoundedUtf8Length(text, kMaxNameBytes);
  if (kept.bytes == 0) return names.Id("<unnamed kernel>");
  return names.Id(std::string_view(text, kept.bytes));
}

uint16_t DeviceOrdinal(uint32_t device) {
  return static_cast<uint16_t>(std::min<uint32_t>(device, std::numeric_limits<uint16_t>::max()));
}

}  // namespace

ActivityOps::ActivityOps(instrument::NameTable& names, const CorrelationTable& correlations)
    : names_(names), correlations_(correlations) {}

uint32_t ActivityOps::KernelNameId(const char* mangled) {
  if (mangled == nullptr || mangled[0] == '\0') return names_.Id("<unnamed kernel>");
  if (auto it = kernel_name_ids_.find(mangled); it != kernel_name_ids_.end()) return it->second;
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> demangled(
      ::abi::__cxa_demangle(mangled, nullptr, nullptr, &status), &std::free);
  // Plain C names (extern "C" kernels) do not demangle: keep them.
  const uint32_t id = BoundedNameId(names_, status == 0 && demangled ? demangled.get() : mangled);
  if (kernel_name_ids_.size() < kMaxCachedKernels) kernel_name_ids_.emplace(mangled, id);
  return id;
}

FinishedOp ActivityOps::GpuOp(uint32_t device, uint32_t stream, uint64_t start_ns, uint64_t end_ns,
                              uint32_t correlation_id, const ClockMapping& clock) const {
  FinishedOp op;
  op.placement = Placement::Gpu(DeviceOrdinal(device), stream);
  op.parent_op_id = correlations_.Find(correlation_id);
  op.launch_ts = clock.ToEventClock(start_ns);
  op.complete_ts = std::max(op.launch_ts, clock.ToEventClock(end_ns));
  op.device_duration_ns = end_ns > start_ns ? end_ns - start_ns : 0;
  return op;
}

FinishedOp ActivityOps::FromKernel(const KernelActivity& kernel, const ClockMapping& clock) {
  FinishedOp op = GpuOp(kernel.device, kernel.stream, kernel.start_ns, kernel.end_ns,
                        kernel.correlation_id, clock);
  op.name_id = KernelNameId(kernel.name);
  const std::string tag = "grid=" + std::to_string(kernel.grid[0]) + "x" +
                          std::to_string(kernel.grid[1]) + "x" + std::to_string(kernel.grid[2]) +
                          " block=" + std::to_string(kernel.block[0]) + "x" +
                          std::to_string(kernel.block[1]) + "x" + std::to_string(kernel.block[2]) +
                          " smem=" + std::to_string(kernel.shared_memory_bytes) +
                          " regs=" + std::to_string(kernel.registers_per_thread);
  op.tag_id = names_.Id(tag);
  return op;
}

FinishedOp ActivityOps::FromMemcpy(const MemcpyActivity& copy, const ClockMapping& clock) {
  FinishedOp op =
      GpuOp(copy.device, copy.stream, copy.start_ns, copy.end_ns, copy.correlation_id, clock);
  op.name_id = names_.Id(std::string("memcpy_") + copy.direction);
  op.tag_id = names_.Id("bytes=" + std::to_string(copy.bytes));
  return op;
}

}  // namespace optrace::nvtx
