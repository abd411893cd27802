// Consumer-side helpers for tests: attach to a segment and read it all.
#ifndef OPTRACE_TESTS_SUPPORT_SEGMENT_READING_H_
#define OPTRACE_TESTS_SUPPORT_SEGMENT_READING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "optrace/reader/attached_segment.h"
#include "optrace/reader/reader_stats.h"
#include "optrace/reader/segment_drainer.h"

namespace optrace::testing {

// The policy tests use: this process's namespace (OPTRACE_NAMESPACE).
reader::AttachPolicy TestPolicy();

// Attaches to `shm_name` or fails the calling test (ASSERT-style: returns
// nullptr after recording the failure).
std::unique_ptr<reader::AttachedSegment> AttachOrFail(const std::string& shm_name);

// Drains everything the rings hold now, in `mode`.
std::vector<abi::OpEvent> DrainAll(reader::SegmentDrainer& drainer, reader::DrainMode mode,
                                   reader::ReaderStats* stats);

// CLOCK_MONOTONIC now, in ns.
uint64_t MonotonicNowNs();

// True while a segment of process `pid` in this test binary's namespace
// (OPTRACE_NAMESPACE) is in /dev/shm.
bool SegmentExists(uint32_t pid);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_SEGMENT_READING_H_
