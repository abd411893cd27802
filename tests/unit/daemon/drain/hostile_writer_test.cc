// A segment rewritten by another party while the daemon drains it: the
// stress the fuzzers cannot give (they must be deterministic). A thread of
// this test maps a real producer's segment on its own, as another process
// of that uid could, fills all of it with random bytes, then rewrites
// random windows of it again and again while the daemon's ProducerSession
// drains it pass after pass, then finishes it. Everything the drain reads
// from the segment is checked before use: every pass ends, the damage is
// counted, and the session ends with a record. The TSan build
// (tools/run-sanitizers.sh) runs it too, the drain beside a writer thread.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <thread>

#include "common/clock_now.h"
#include "drain/producer_session.h"
#include "held_producer.h"

namespace optrace::daemon {
namespace {

// The segment file of `segment_name`, mapped read-write on its own.
class OwnMapping {
 public:
  explicit OwnMapping(const std::string& segment_name) {
    const int fd = ::open(("/dev/shm/" + segment_name).c_str(), O_RDWR | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && ::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED,
                       fd, 0);
      if (p != MAP_FAILED) {
        base_ = static_cast<uint8_t*>(p);
        bytes_ = static_cast<size_t>(st.st_size);
      }
    }
    if (fd >= 0) ::close(fd);
  }
  ~OwnMapping() {
    if (base_ != nullptr) ::munmap(base_, bytes_);
  }
  OwnMapping(const OwnMapping&) = delete;
  OwnMapping& operator=(const OwnMapping&) = delete;

  uint8_t* base() const { return base_; }
  size_t bytes() const { return bytes_; }

 private:
  uint8_t* base_ = nullptr;
  size_t bytes_ = 0;
};

TEST(HostileWriterTest, Malicious_SegmentRewrittenWhileDrained_EveryPassEndsDamageCounted) {
  StringDictionary dictionary;
  HeldProducer producer(1, 50, &dictionary);
  ASSERT_TRUE(producer.ok());
  OwnMapping segment(producer.segment_name());
  ASSERT_NE(segment.base(), nullptr);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> writes{0};
  std::thread writer([&] {
    std::mt19937_64 random(29);
    const auto fill = [&](size_t from, size_t to) {
      for (size_t at = from; at + 8 <= to; at += 8) {
        const uint64_t value = random();
        std::memcpy(segment.base() + at, &value, 8);
      }
      writes.fetch_add(1, std::memory_order_release);
    };
    // All of it once, then 256-byte windows anywhere, again and again.
    fill(0, segment.bytes());
    while (!stop.load(std::memory_order_relaxed)) {
      const size_t from = (random() % segment.bytes()) & ~size_t{7};
      fill(from, std::min(segment.bytes(), from + 256));
    }
  });
  // The first fill is whole before the first pass: every pass reads garbage.
  while (writes.load(std::memory_order_acquire) == 0) std::this_thread::yield();
  ProducerSession& session = producer.session();
  // At least 200 passes, and on until the writer has rewritten 20,000
  // windows beside them (whatever the speed of the machine).
  constexpr int kMinPasses = 200;
  constexpr uint64_t kMinWrites = 20'000;
  for (int pass = 0; pass < kMinPasses || writes.load() < kMinWrites; ++pass) {
    session.Drain(4096, reader::DrainMode::kLive, ClockNowNs(CLOCK_MONOTONIC));
  }
  stop.store(true, std::memory_order_relaxed);
  writer.join();
  session.Finish(static_cast<int64_t>(ClockNowNs(CLOCK_REALTIME)), ClockNowNs(CLOCK_MONOTONIC));
  // How much the writer overlapped the drain, for whoever reads the test's
  // XML output: its writes, and what the reader counted.
  ::testing::Test::RecordProperty("writer_writes", std::to_string(writes.load()));
  ::testing::Test::RecordProperty("violations",
                                  std::to_string(session.reader_stats().Violations()));
  EXPECT_TRUE(session.finished());
  EXPECT_GT(session.reader_stats().Violations(), 0u) << "the garbage went unnoticed";
  StoreBatch batch;
  batch.sequence = 1;
  session.CutInto(&batch);
  ASSERT_EQ(batch.sessions.size(), 1u);
  EXPECT_NE(batch.sessions[0].state, SessionState::kRunning);
}

}  // namespace
}  // namespace optrace::daemon
