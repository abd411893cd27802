// Which optrace op each CUDA API call was made in, by CUPTI correlation
// id: written on the application's thread when the call starts, read on
// CUPTI's thread when the kernel or copy it launched is reported.
#ifndef OPTRACE_NVTX_CUPTI_CORRELATION_TABLE_H_
#define OPTRACE_NVTX_CUPTI_CORRELATION_TABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>

namespace optrace::nvtx {

// A direct-mapped table of the last kSlots correlation ids (CUPTI hands
// them out in increasing order, so a slot is reused only kSlots calls
// later; a record older than that finds another id in its slot and gets
// no parent). Lock-free: each slot is a small seqlock, so a reader never
// takes an op id that belongs to another correlation id.
// Thread rules: any number of writers and readers. A slot written by two
// threads at once (ids kSlots apart) keeps one of the two.
class CorrelationTable {
 public:
  static constexpr uint32_t kSlots = 1u << 16;

  CorrelationTable();

  // Remembers that API call `correlation_id` ran inside op `op_id`.
  void Put(uint32_t correlation_id, uint64_t op_id) noexcept;

  // The op of `correlation_id`, or 0 when unknown or overwritten.
  uint64_t Find(uint32_t correlation_id) const noexcept;

 private:
  struct Slot {
    std::atomic<uint32_t> correlation_id{0};  // 0 while being written
    std::atomic<uint64_t> op_id{0};
  };
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace optrace::nvtx

#endif  // OPTRACE_NVTX_CUPTI_CORRELATION_TABLE_H_
