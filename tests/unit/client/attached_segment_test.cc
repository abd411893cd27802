// Attaching validates a segment against every identity and geometry rule
// before the consumer uses any of it.
#include "optrace/reader/attached_segment.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <random>

#include "fake_producer.h"
#include "optrace/reader/segment_drainer.h"
#include "segment_reading.h"

namespace optrace::reader {
namespace {

using testing::FakeProducer;
using testing::TestPolicy;

Status AttachStatus(const std::string& name) {
  auto r = AttachedSegment::Attach(name, TestPolicy());
  return r.ok() ? Status::Ok() : r.status();
}

TEST(AttachedSegmentTest, ValidSegment_GeometryAndIdentityCopied) {
  FakeProducer p(3, 128);
  ASSERT_TRUE(p.ok());
  auto seg = AttachedSegment::Attach(p.name(), TestPolicy());
  ASSERT_TRUE(seg.ok()) << seg.status().message();
  const SegmentGeometry& g = seg.value()->geometry();
  EXPECT_EQ(g.ring_count, 3u);
  EXPECT_EQ(g.ring_capacity, 128u);
  EXPECT_EQ(g.name.pid, static_cast<uint32_t>(::getpid()));
  EXPECT_EQ(seg.value()->CheckLiveness(), ProducerLiveness::kAlive);
  EXPECT_NE(g.executable.find("client_tests"), std::string::npos);
}

TEST(AttachedSegmentTest, Malicious_WrongMagic_RejectedNamingTheField) {
  FakeProducer p(1, 64);
  p.header().magic = 0x1122334455667788ULL;
  const Status s = AttachStatus(p.name());
  EXPECT_EQ(s.code(), Status::Code::kInvalidSegment);
  EXPECT_NE(s.message().find("magic 0x1122334455667788"), std::string::npos) << s.message();
}

TEST(AttachedSegmentTest, Malicious_OtherAbiMajor_Rejected) {
  FakeProducer p(1, 64);
  p.header().abi_major = 7;
  EXPECT_NE(AttachStatus(p.name()).message().find("ABI major 7"), std::string::npos);
}

TEST(AttachedSegmentTest, Malicious_SegmentBytesDiffersFromFileSize_Rejected) {
  FakeProducer p(1, 64);
  p.header().segment_bytes += 4096;
  EXPECT_NE(AttachStatus(p.name()).message().find("differs from the file size"), std::string::npos);
}

TEST(AttachedSegmentTest, Malicious_HeaderPidDiffersFromName_Rejected) {
  FakeProducer p(1, 64);
  p.header().pid += 1;
  EXPECT_NE(AttachStatus(p.name()).message().find("do not match the name"), std::string::npos);
}

TEST(AttachedSegmentTest, Initializing_NotReadyRetryLater) {
  FakeProducer p(1, 64);
  p.header().state.store(0);
  EXPECT_EQ(AttachStatus(p.name()).code(), Status::Code::kNotReady);
}

TEST(AttachedSegmentTest, Malicious_UnknownState_Rejected) {
  FakeProducer p(1, 64);
  p.header().state.store(99);
  EXPECT_EQ(AttachStatus(p.name()).code(), Status::Code::kInvalidSegment);
}

TEST(AttachedSegmentTest, Malicious_GroupWritableMode_Refused) {
  FakeProducer p(1, 64);
  ASSERT_EQ(::chmod(p.path().c_str(), 0666), 0);
  const Status s = AttachStatus(p.name());
  EXPECT_EQ(s.code(), Status::Code::kPermissionDenied);
  EXPECT_NE(s.message().find("0666"), std::string::npos);
}

TEST(AttachedSegmentTest, Malicious_OwnerDiffersFromUidInName_Refused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the file to another uid";
  FakeProducer p(1, 64);
  ASSERT_EQ(::chown(p.path().c_str(), 4242, 4242), 0);
  const Status s = AttachStatus(p.name());
  EXPECT_EQ(s.code(), Status::Code::kPermissionDenied);
  EXPECT_NE(s.message().find("is owned by uid 4242"), std::string::npos) << s.message();
}

TEST(AttachedSegmentTest, Malicious_OtherNamespaceOrMissing_Refused) {
  FakeProducer p(1, 64);
  AttachPolicy other = TestPolicy();
  other.ns = "someoneelse";
  EXPECT_EQ(AttachedSegment::Attach(p.name(), other).status().code(),
            Status::Code::kInvalidArgument);
  std::string missing = p.name();
  missing.back() = missing.back() == '0' ? '1' : '0';
  EXPECT_EQ(AttachStatus(missing).code(), Status::Code::kNotFound);
}

TEST(AttachedSegmentTest, Malicious_RandomHeaderBytes_RejectedNeverCrash) {
  FakeProducer p(2, 64);
  std::mt19937_64 rng(1234);
  for (int round = 0; round < 300; ++round) {
    auto* raw = reinterpret_cast<unsigned char*>(&p.header());
    // Keep the header "ready" so validation goes past the state check,
    // and randomise everything else in the immutable part.
    for (size_t i = 0; i < offsetof(abi::SegmentHeader, state); ++i) {
      raw[i] = static_cast<unsigned char>(rng());
    }
    if (round % 2 == 0) p.header().magic = abi::kSegmentMagic;  // get past the magic too
    if (round % 4 == 0) p.header().abi_major = abi::kAbiMajor;
    p.header().state.store(1);
    const Status s = AttachStatus(p.name());
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(s.message().empty());
  }
}

// A byte copy of a valid header (it holds atomics, so it cannot be copied).
void CopyHeader(FakeProducer& p, abi::SegmentHeader* out) {
  std::memcpy(static_cast<void*>(out), &p.header(), sizeof *out);
}

TEST(ValidateGeometryTest, Malicious_EachBrokenRule_NamedInTheError) {
  FakeProducer p(2, 64);
  const uint64_t size = p.header().segment_bytes;
  struct Case {
    const char* expect;
    void (*mutate)(abi::SegmentHeader&);
  };
  const Case cases[] = {
      {"ring_count 0", [](abi::SegmentHeader& h) { h.ring_count = 0; }},
      {"ring_count 257", [](abi::SegmentHeader& h) { h.ring_count = 257; }},
      {"ring_capacity 100 is not a power of two",
       [](abi::SegmentHeader& h) { h.ring_capacity = 100; }},
      {"ring_capacity 32", [](abi::SegmentHeader& h) { h.ring_capacity = 32; }},
      {"string_slots 1 ", [](abi::SegmentHeader& h) { h.string_slots = 1; }},
      {"string_blob_bytes", [](abi::SegmentHeader& h) { h.string_blob_bytes = 0xFFFFFFFF; }},
      {"outside", [](abi::SegmentHeader& h) { h.slots_offset = ~0ULL - 63; }},
      {"not 64-byte aligned", [](abi::SegmentHeader& h) { h.rings_offset += 8; }},
      {"overlap", [](abi::SegmentHeader& h) { h.string_entries_offset = h.slots_offset; }},
      {"overlap", [](abi::SegmentHeader& h) { h.rings_offset = 0; }},
  };
  abi::SegmentHeader valid;
  CopyHeader(p, &valid);
  EXPECT_TRUE(ValidateGeometry(valid, size, p.name()).ok());
  for (const Case& c : cases) {
    abi::SegmentHeader h;
    CopyHeader(p, &h);
    c.mutate(h);
    const Status s = ValidateGeometry(h, size, p.name());
    EXPECT_FALSE(s.ok()) << c.expect;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << s.message();
  }
}

TEST(AttachedSegmentTest, Malicious_TruncatedAfterAttach_FaultCountedNoCrash) {
  FakeProducer p(1, 1024);
  auto seg = AttachedSegment::Attach(p.name(), TestPolicy());
  ASSERT_TRUE(seg.ok());
  for (int i = 1; i <= 10; ++i) p.Write(0, FakeProducer::Event(abi::EventKind::kLaunch, i, 0));
  SegmentDrainer drainer(*seg.value());
  // Shrink the file under the consumer's mapping: reads beyond the first
  // page now raise SIGBUS, which the guard must turn into a count.
  ASSERT_EQ(::truncate(p.path().c_str(), 4096), 0);
  ReaderStats stats;
  std::vector<abi::OpEvent> out;
  drainer.Drain(100, DrainMode::kLive, testing::MonotonicNowNs(), &out, &stats);
  EXPECT_GT(stats.shm_faults, 0u);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace optrace::reader
