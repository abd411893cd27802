#include "nvtx/cupti/cupti_collector.h"

#include <time.h>

#include <cstdlib>

#include "optrace/finished_op.hpp"

namespace optrace::nvtx {
namespace {

// The record layouts of the CUPTI we build against.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#else
using KernelRecord = CUpti_ActivityKernel9;
#endif
using MemcpyRecord = CUpti_ActivityMemcpy6;

// "cuptiActivityEnable(CONCURRENT_KERNEL): CUPTI_ERROR_NOT_INITIALIZED".
std::string CuptiError(const char* call, CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "?";
  return std::string(call) + ": " + text + " (" + std::to_string(static_cast<int>(result)) + ")";
}

// The clock CUPTI stamps its records with once we register it: monotonic,
// unlike CUPTI's default CLOCK_REALTIME, which steps with the wall clock.
uint64_t CUPTIAPI MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// CUPTI's own clock, when it would not take ours.
uint64_t CuptiNow() {
  uint64_t ts = 0;
  cuptiGetTimestamp(&ts);
  return ts;
}

const char* CopyDirection(uint8_t copy_kind) {
  switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
      return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
      return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "unknown";
  }
}

KernelActivity KernelOf(const KernelRecord& r) {
  KernelActivity k;
  k.name = r.name;
  k.device = r.deviceId;
  k.stream = r.streamId;
  k.grid[0] = r.gridX;
  k.grid[1] = r.gridY;
  k.grid[2] = r.gridZ;
  k.block[0] = r.blockX;
  k.block[1] = r.blockY;
  k.block[2] = r.blockZ;
  k.shared_memory_bytes = r.staticSharedMemory + r.dynamicSharedMemory;
  k.registers_per_thread = r.registersPerThread;
  k.start_ns = r.start;
  k.end_ns = r.end;
  k.correlation_id = r.correlationId;
  return k;
}

MemcpyActivity MemcpyOf(const MemcpyRecord& r) {
  MemcpyActivity m;
  m.direction = CopyDirection(r.copyKind);
  m.bytes = r.bytes;
  m.device = r.deviceId;
  m.stream = r.streamId;
  m.start_ns = r.start;
  m.end_ns = r.end;
  m.correlation_id = r.correlationId;
  return m;
}

}  // namespace

CuptiCollector& CuptiCollector::Get() {
  static CuptiCollector* const collector = new CuptiCollector();  // leaked on purpose
  return *collector;
}

CuptiCollector::CuptiCollector() : names_(4096, names_over_cap_), ops_(names_, correlations_) {}

bool CuptiCollector::Start(std::string* error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Before any activity is enabled, so that every record uses it.
    read_clock_ns_ = cuptiActivityRegisterTimestampCallback(&MonotonicNs) == CUPTI_SUCCESS
                         ? &MonotonicNs
                         : &CuptiNow;
    clock_.emplace(CalibrateClockMapping(read_clock_ns_));
  }
  CUptiResult r = cuptiActivityRegisterCallbacks(&OnBufferRequested, &OnBufferCompleted);
  if (r != CUPTI_SUCCESS) return *error = CuptiError("cuptiActivityRegisterCallbacks", r), false;
  for (const auto kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY}) {
    r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS) {
      *error =
          CuptiError(kind == CUPTI_ACTIVITY_KIND_MEMCPY ? "cuptiActivityEnable(MEMCPY)"
                                                        : "cuptiActivityEnable(CONCURRENT_KERNEL)",
                     r);
      return false;
    }
  }
  // Best effort: without it CUPTI still flushes full buffers and at exit.
  cuptiActivityFlushPeriod(kFlushPeriodMs);
  CUpti_SubscriberHandle subscriber = nullptr;
  r = cuptiSubscribe(&subscriber, &OnApiCall, this);
  if (r == CUPTI_SUCCESS) {
    r = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    if (r == CUPTI_SUCCESS) r = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  }
  if (r != CUPTI_SUCCESS) {
    *error = CuptiError("cuptiSubscribe/cuptiEnableDomain", r) +
             "; kernels and copies are recorded without their parent op";
  }
  return true;
}

void CuptiCollector::Flush() { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }

void CUPTIAPI CuptiCollector::OnBufferRequested(uint8_t** buffer, size_t* size,
                                                size_t* max_records) {
  // CUPTI requires 8-byte alignment.
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
  if (*buffer == nullptr) Get().buffers_unallocated_.Add();
}

void CUPTIAPI CuptiCollector::OnBufferCompleted(CUcontext context, uint32_t stream_id,
                                                uint8_t* buffer, size_t, size_t valid_size) {
  CuptiCollector& self = Get();
  if (buffer != nullptr && valid_size > 0) self.ProcessBuffer(buffer, valid_size);
  std::free(buffer);
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) {
    self.records_dropped_.Add(dropped);
  }
}

void CUPTIAPI CuptiCollector::OnApiCall(void* collector, CUpti_CallbackDomain domain,
                                        CUpti_CallbackId, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call == nullptr || call->callbackSite != CUPTI_API_ENTER) return;
  // On the application's thread, as the call starts: the op open now is
  // the one the kernel or copy it launches belongs to.
  const uint64_t op_id = CurrentOpId();
  if (op_id != 0) {
    static_cast<CuptiCollector*>(collector)->correlations_.Put(call->correlationId, op_id);
  }
}

void CuptiCollector::ProcessBuffer(uint8_t* buffer, size_t valid_size) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!clock_) return;
  clock_->Update({read_clock_ns_(), EventClockNow()});
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        RecordFinishedOp(
            ops_.FromKernel(KernelOf(*reinterpret_cast<const KernelRecord*>(record)), *clock_));
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        RecordFinishedOp(
            ops_.FromMemcpy(MemcpyOf(*reinterpret_cast<const MemcpyRecord*>(record)), *clock_));
        break;
      default:
        break;
    }
  }
}

}  // namespace optrace::nvtx
