#include "fake_producer.h"

#include <gtest/gtest.h>

#include "segment_reading.h"

namespace optrace::testing {

FakeProducer::FakeProducer(uint32_t rings, uint32_t capacity) {
  client::ProducerOptions o;
  o.ns = TestPolicy().ns;
  o.ring_count = rings;
  o.ring_capacity = capacity;
  o.string_slots = 64;
  o.string_blob_bytes = 4096;
  std::string error;
  segment_ = client::ProducerSegment::Create(o, abi::LevelValue::kTrace, abi::LevelValue::kTrace, &error);
  if (!segment_) {
    ADD_FAILURE() << error;
    return;
  }
  strings_ = std::make_unique<client::StringInterner>(o.string_slots, o.string_blob_bytes);
  strings_->AttachSegment(segment_.get());
  for (uint32_t i = 0; i < rings; ++i) {
    ring(i).state.store(static_cast<uint32_t>(abi::RingState::kActive));
  }
}

FakeProducer::~FakeProducer() {
  if (segment_) segment_->Unlink();
}

abi::OpEvent FakeProducer::Event(abi::EventKind kind, uint64_t op_id, uint32_t name_id) {
  abi::OpEvent e{};
  e.ts = 1000 + op_id;
  e.op_id = op_id;
  e.name_id = name_id;
  e.kind = static_cast<uint8_t>(kind);
  e.level = static_cast<uint8_t>(abi::LevelValue::kTrace);
  e.target_kind = static_cast<uint8_t>(abi::TargetKind::kCpu);
  e.thread_id = 1;
  return e;
}

void FakeProducer::Write(uint32_t ring_index, abi::OpEvent e) {
  abi::RingHeader& r = ring(ring_index);
  const uint64_t pos = r.write_pos.load(std::memory_order_relaxed);
  e.stamp = abi::StampFor(pos);
  segment_->slots(ring_index)[pos & (header().ring_capacity - 1)] = e;
  r.write_pos.store(pos + 1, std::memory_order_release);
}

void FakeProducer::SetPositions(uint32_t ring_index, uint64_t pos) {
  ring(ring_index).write_pos.store(pos);
  ring(ring_index).read_pos.store(pos);
}

}  // namespace optrace::testing
