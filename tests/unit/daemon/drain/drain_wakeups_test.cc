// The drain thread's wake-ups over a real control segment (a file in a temp
// folder, mapped as producers map it): a producer's FUTEX_WAKE on the
// read-only mapping becomes a readable eventfd, counted.
#include "drain/drain_wakeups.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/segment_name.h"
#include "common/shared_futex.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

// The control block as a producer sees it: mapped read-only.
class ProducerView {
 public:
  explicit ProducerView(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    EXPECT_GE(fd, 0) << path;
    void* p = ::mmap(nullptr, abi::kControlBytes, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    EXPECT_NE(p, MAP_FAILED);
    block_ = static_cast<const abi::ControlBlock*>(p);
  }
  ~ProducerView() { ::munmap(const_cast<abi::ControlBlock*>(block_), abi::kControlBytes); }
  const abi::ControlBlock& block() const { return *block_; }

 private:
  const abi::ControlBlock* block_ = nullptr;
};

// True when `fd` becomes readable within `timeout_ms`.
bool Readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1;
}

class DrainWakeupsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto control = ControlSegment::Create(folder_.path(), "wakeuptest");
    ASSERT_TRUE(control.ok()) << control.status().message();
    control_ = std::move(control).value();
    path_ = folder_.path() + "/" + ControlSegmentName("wakeuptest", ::getuid());
  }
  testing::TempFolder folder_;
  std::unique_ptr<ControlSegment> control_;
  std::string path_;
  std::atomic<uint64_t> producer_wakes_{0};
};

TEST_F(DrainWakeupsTest, ProducerWakesSleepingDrain_FdReadableAndCounted) {
  auto wakeups = DrainWakeups::Create(control_.get(), &producer_wakes_);
  ASSERT_TRUE(wakeups.ok()) << wakeups.status().message();
  ProducerView producer(path_);
  EXPECT_EQ(producer.block().control_bytes, abi::kControlBytesWithWake);
  EXPECT_EQ(producer.block().drain_sleeping.load(), 0u);
  wakeups.value()->BeforeSleep();
  EXPECT_EQ(producer.block().drain_sleeping.load(), 1u);
  EXPECT_FALSE(Readable(wakeups.value()->fd(), 0));
  // The waiter may not be in its wait yet: wake until the eventfd says so,
  // as a producer's later fill checks would.
  bool woken = false;
  for (int i = 0; i < 1000 && !woken; ++i) {
    ASSERT_GE(SharedFutexWake(&producer.block().wake_word, 1), 0) << "wake on a read-only map";
    woken = Readable(wakeups.value()->fd(), 10);
  }
  ASSERT_TRUE(woken);
  EXPECT_GE(producer_wakes_.load(), 1u);
  wakeups.value()->AfterSleep();
  EXPECT_EQ(producer.block().drain_sleeping.load(), 0u);
  wakeups.value()->Consume();
  EXPECT_FALSE(Readable(wakeups.value()->fd(), 0));
}

TEST_F(DrainWakeupsTest, Notify_FdReadableUntilConsumed) {
  auto wakeups = DrainWakeups::Create(nullptr, &producer_wakes_);
  ASSERT_TRUE(wakeups.ok());
  wakeups.value()->Notify();
  wakeups.value()->Notify();
  EXPECT_TRUE(Readable(wakeups.value()->fd(), 0));
  wakeups.value()->Consume();
  EXPECT_FALSE(Readable(wakeups.value()->fd(), 0));
  EXPECT_EQ(producer_wakes_.load(), 0u);
}

TEST_F(DrainWakeupsTest, Destroyed_WaiterStopsAndWakeWordRetired) {
  {
    auto wakeups = DrainWakeups::Create(control_.get(), &producer_wakes_);
    ASSERT_TRUE(wakeups.ok());
  }  // joins the waiter: a hang here fails by the test's timeout
  ProducerView producer(path_);
  EXPECT_EQ(producer.block().wake_word.load(), 1u);
}

}  // namespace
}  // namespace optrace::daemon
