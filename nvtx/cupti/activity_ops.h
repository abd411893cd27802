// What CUPTI's kernel and memcpy records become in optrace: finished ops
// on gpu:N with the device's start and end on the event clock, the
// kernel's launch geometry (or the copy's size) as the tag, and the op the
// launching API call was made in as the parent.
#ifndef OPTRACE_NVTX_CUPTI_ACTIVITY_OPS_H_
#define OPTRACE_NVTX_CUPTI_ACTIVITY_OPS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "instrument/name_table.h"
#include "nvtx/cupti/clock_mapping.h"
#include "nvtx/cupti/correlation_table.h"
#include "optrace/finished_op.hpp"

namespace optrace::nvtx {

// The fields of a CUPTI kernel record that we use (a copy, so that this
// mapping does not depend on the record's struct version).
struct KernelActivity {
  const char* name = nullptr;  // mangled; owned by CUPTI, valid during the call
  uint32_t device = 0;
  uint32_t stream = 0;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int32_t shared_memory_bytes = 0;  // static + dynamic
  uint16_t registers_per_thread = 0;
  uint64_t start_ns = 0;  // CUPTI clock
  uint64_t end_ns = 0;
  uint32_t correlation_id = 0;
};

// The fields of a CUPTI memcpy record that we use.
struct MemcpyActivity {
  const char* direction = "";  // "HtoD", "DtoH", ... (static strings)
  uint64_t bytes = 0;
  uint32_t device = 0;
  uint32_t stream = 0;
  uint64_t start_ns = 0;  // CUPTI clock
  uint64_t end_ns = 0;
  uint32_t correlation_id = 0;
};

// Builds FinishedOps from activity records. Kernel names are demangled
// and bounded like NVTX messages; names and tags go through `names` (and
// its cap). Thread rules: one thread at a time (the collector's lock).
// Borrows `names` and `correlations`, which must outlive it.
class ActivityOps {
 public:
  ActivityOps(instrument::NameTable& names, const CorrelationTable& correlations);

  FinishedOp FromKernel(const KernelActivity& kernel, const ClockMapping& clock);
  FinishedOp FromMemcpy(const MemcpyActivity& copy, const ClockMapping& clock);

 private:
  // The name id of a kernel's mangled name: demangled once, then cached
  // (at most kMaxCachedKernels names).
  uint32_t KernelNameId(const char* mangled);
  // Placement, parent and times shared by both kinds.
  FinishedOp GpuOp(uint32_t device, uint32_t stream, uint64_t start_ns, uint64_t end_ns,
                   uint32_t correlation_id, const ClockMapping& clock) const;

  static constexpr size_t kMaxCachedKernels = 4096;

  instrument::NameTable& names_;
  const CorrelationTable& correlations_;
  std::unordered_map<std::string, uint32_t> kernel_name_ids_;  // mangled -> name id
};

}  // namespace optrace::nvtx

#endif  // OPTRACE_NVTX_CUPTI_ACTIVITY_OPS_H_
