#include "segment_reading.h"

#include <gtest/gtest.h>
#include <time.h>

#include <cstdlib>

namespace optrace::testing {

reader::AttachPolicy TestPolicy() {
  reader::AttachPolicy policy;
  const char* ns = std::getenv("OPTRACE_NAMESPACE");
  policy.ns = ns != nullptr ? ns : "optrace";
  return policy;
}

std::unique_ptr<reader::AttachedSegment> AttachOrFail(const std::string& shm_name) {
  auto attached = reader::AttachedSegment::Attach(shm_name, TestPolicy());
  if (!attached.ok()) {
    ADD_FAILURE() << "attach " << shm_name << ": " << attached.status().message();
    return nullptr;
  }
  return std::move(attached).value();
}

std::vector<abi::OpEvent> DrainAll(reader::SegmentDrainer& drainer, reader::DrainMode mode,
                                   reader::ReaderStats* stats) {
  std::vector<abi::OpEvent> out;
  while (drainer.Drain(1 << 16, mode, MonotonicNowNs(), &out, stats)) {
  }
  return out;
}

uint64_t MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace optrace::testing
