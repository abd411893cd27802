#include "segment_reading.h"

#include <gtest/gtest.h>
#include <time.h>

#include <cstdlib>
#include <filesystem>

#include "common/clock_now.h"
#include "common/segment_name.h"

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

uint64_t MonotonicNowNs() { return ClockNowNs(CLOCK_MONOTONIC); }

bool SegmentExists(uint32_t pid) {
  const std::string prefix = TestPolicy().ns + ".";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kShmFolder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const auto parsed = SegmentName::Parse(name);
    if (parsed && parsed->pid == pid) return true;
  }
  return false;
}

}  // namespace optrace::testing
