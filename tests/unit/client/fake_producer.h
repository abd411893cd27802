// A producer written by hand against the ABI, for consumer tests that need
// exact control of ring positions, stamps, strings and corruption. It uses
// the library's own segment creation, so the layout is the real one.
#ifndef OPTRACE_TESTS_UNIT_CLIENT_FAKE_PRODUCER_H_
#define OPTRACE_TESTS_UNIT_CLIENT_FAKE_PRODUCER_H_

#include <memory>
#include <string>

#include "optrace/abi.h"
#include "producer_segment.h"
#include "string_interner.h"

namespace optrace::testing {

class FakeProducer {
 public:
  // Creates a segment in the test namespace with `rings` rings of
  // `capacity` events. Fails the test (and leaves segment() null) on error.
  FakeProducer(uint32_t rings, uint32_t capacity);
  ~FakeProducer();  // removes the segment

  bool ok() const { return segment_ != nullptr; }
  client::ProducerSegment& segment() { return *segment_; }
  abi::SegmentHeader& header() { return segment_->header(); }
  abi::RingHeader& ring(uint32_t index) { return segment_->ring(index); }
  const std::string& name() const { return segment_->name(); }
  std::string path() const { return "/dev/shm/" + segment_->name(); }

  uint32_t Intern(const std::string& text) { return strings_->Intern(text); }

  // An op event of `kind` for `op_id` named `name_id`, on the CPU.
  static abi::OpEvent Event(abi::EventKind kind, uint64_t op_id, uint32_t name_id);

  // Writes `e` at the ring's next position with the right stamp and
  // publishes it, as the real fast path does.
  void Write(uint32_t ring_index, abi::OpEvent e);

  // Sets both positions of a ring (before any consumer attaches).
  void SetPositions(uint32_t ring_index, uint64_t pos);

 private:
  std::unique_ptr<client::ProducerSegment> segment_;
  std::unique_ptr<client::StringInterner> strings_;
};

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_UNIT_CLIENT_FAKE_PRODUCER_H_
