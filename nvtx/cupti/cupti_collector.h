// CUDA kernel and memcpy activity through CUPTI: every kernel and copy the
// process runs on a GPU becomes a finished optrace op (activity_ops.h),
// parented to the op its launching API call was made in.
#ifndef OPTRACE_NVTX_CUPTI_CUPTI_COLLECTOR_H_
#define OPTRACE_NVTX_CUPTI_CUPTI_COLLECTOR_H_

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "instrument/loss_counter.h"
#include "instrument/name_table.h"
#include "nvtx/cupti/activity_ops.h"
#include "nvtx/cupti/clock_mapping.h"
#include "nvtx/cupti/correlation_table.h"

namespace optrace::nvtx {

// The process's CUPTI client. Start() subscribes to CUDA runtime and
// driver API callbacks (to note, at each call, which op it was made in),
// enables concurrent-kernel and memcpy activity, and lets CUPTI flush its
// buffers every kFlushPeriodMs; each completed buffer is converted under
// one lock, on whichever thread CUPTI delivers it.
// Losses are counted: records CUPTI dropped ("optrace.cupti.records_dropped")
// and buffers we could not allocate ("optrace.cupti.buffers_unallocated").
// Thread-safe. Created on first use, never destroyed (CUPTI may deliver
// buffers until the process ends).
class CuptiCollector {
 public:
  static constexpr uint32_t kFlushPeriodMs = 200;
  static constexpr size_t kBufferBytes = 4u << 20;

  static CuptiCollector& Get();

  // Starts collection. Returns false with the reason in `*error` (the
  // CUPTI call and its message) when CUPTI refuses activity tracing (no
  // driver, ...). When only the API subscription is refused (another CUPTI
  // client such as Nsight or a framework profiler holds it), returns true
  // with that warning in `*error`: activity is collected, unparented.
  bool Start(std::string* error);

  // Delivers every record CUPTI holds (forced flush). Called at exit.
  void Flush();

 private:
  CuptiCollector();

  static void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI OnBufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer,
                                         size_t size, size_t valid_size);
  static void CUPTIAPI OnApiCall(void* collector, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId callback_id, const void* data);

  // Converts and records every kernel and memcpy record of `buffer`.
  void ProcessBuffer(uint8_t* buffer, size_t valid_size);

  instrument::LossCounter names_over_cap_{"optrace.cupti.names_over_cap",
                                          instrument::LossKind::kNameCapped};
  instrument::LossCounter records_dropped_{"optrace.cupti.records_dropped"};
  instrument::LossCounter buffers_unallocated_{"optrace.cupti.buffers_unallocated"};
  instrument::NameTable names_;
  CorrelationTable correlations_;
  std::mutex mu_;
  std::optional<ClockMapping> clock_;      // GUARDED_BY(mu_); set by Start
  ActivityOps ops_;                        // GUARDED_BY(mu_)
  uint64_t (*read_clock_ns_)() = nullptr;  // CUPTI's clock, set by Start
};

}  // namespace optrace::nvtx

#endif  // OPTRACE_NVTX_CUPTI_CUPTI_COLLECTOR_H_
