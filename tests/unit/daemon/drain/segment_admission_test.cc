// Segment admission over real segments: producer processes' own segments,
// hand-made files in the shm folder that fail validation or never finish,
// and a real SpanStore whose stored sessions decide what is continued,
// removed or closed.
#include "drain/segment_admission.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/producer_lock.h"
#include "common/segment_name.h"
#include "held_producer.h"
#include "segment_reading.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

bool ShmFileExists(const std::string& name) {
  return ::access(("/dev/shm/" + name).c_str(), F_OK) == 0;
}

// Creates /dev/shm/<name> of `bytes` (sparse), mode 0600.
void MakeShmFile(const std::string& name, off_t bytes) {
  const int fd = ::open(("/dev/shm/" + name).c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << name;
  EXPECT_EQ(::ftruncate(fd, bytes), 0);
  ::close(fd);
}

// Sets the file's modification time `seconds` into the past: a segment
// its producer stopped changing a while ago.
void AgeShmFile(const std::string& name, int seconds) {
  timespec times[2];
  ASSERT_EQ(::clock_gettime(CLOCK_REALTIME, &times[0]), 0);
  times[0].tv_sec -= seconds;
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, ("/dev/shm/" + name).c_str(), times, 0), 0) << name;
}

// The pid of a process that has exited (and been reaped).
uint32_t GonePid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return static_cast<uint32_t>(child);
}

// A segment name in this test's namespace for `pid`.
std::string NameFor(uint32_t pid, uint64_t nonce) {
  return SegmentName{testing::TestPolicy().ns, static_cast<uint32_t>(::getuid()), pid, nonce}
      .Format();
}

// Whether admission.TryAttach(name) attached with this process's
// open-file limit set at its lowest free descriptor number (so that no
// descriptor is left to open the segment with); the limit is restored.
bool AttachedWithNoDescriptorLeft(SegmentAdmission& admission, const std::string& name,
                                  uint64_t now_ns) {
  rlimit before{};
  EXPECT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  const int lowest_free = ::dup(0);
  EXPECT_GE(lowest_free, 0);
  ::close(lowest_free);
  const rlimit none_left{static_cast<rlim_t>(lowest_free), before.rlim_max};
  EXPECT_EQ(::setrlimit(RLIMIT_NOFILE, &none_left), 0);
  const bool attached = admission.TryAttach(name, now_ns).has_value();
  EXPECT_EQ(::setrlimit(RLIMIT_NOFILE, &before), 0);
  return attached;
}

class SegmentAdmissionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = SpanStore::Open({.db_path = path_});
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(store).value();
    auto reader = SpanReader::Open(path_);
    ASSERT_TRUE(reader.ok()) << reader.status().message();
    reader_ = std::move(reader).value();
  }

  SegmentAdmission MakeAdmission(SegmentAdmission::Options options = {}) {
    options.attach = testing::TestPolicy();
    return SegmentAdmission(std::move(options), reader_.get(), &dictionary_, nullptr, &counters_);
  }

  // One that attaches at most `max_segments_per_uid` segments of a uid.
  SegmentAdmission MakeAdmissionOfCap(uint32_t max_segments_per_uid) {
    SegmentAdmission::Options options;
    options.max_segments_per_uid = max_segments_per_uid;
    return MakeAdmission(std::move(options));
  }

  // A CLOCK_MONOTONIC time past every retry's delay until the last call.
  uint64_t Later() { return now_ += 10'000 * kMs; }

  void StoreAndFlush(StoreBatch batch) {
    batch.sequence = ++sequence_;
    ASSERT_TRUE(store_->Submit(std::move(batch)));
    ASSERT_TRUE(store_->Flush(10'000));
  }

  // Stores session `id` of segment `segment_name` as ended.
  void StoreEnded(SessionId id, const std::string& segment_name) {
    StoreBatch batch;
    SessionRecord& ended = batch.sessions.emplace_back();
    ended.id = id;
    ended.segment_name = segment_name;
    ended.state = SessionState::kExited;
    StoreAndFlush(std::move(batch));
  }

  std::optional<SessionRecord> Stored(SessionId id) {
    auto record = reader_->GetSession(id);
    EXPECT_TRUE(record.ok()) << record.status().message();
    return record.ok() ? record.value() : std::nullopt;
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
  std::unique_ptr<SpanStore> store_;
  std::unique_ptr<SpanReader> reader_;
  StringDictionary dictionary_;
  DaemonCounters counters_;
  uint64_t sequence_ = 0;
  static constexpr uint64_t kMs = 1'000'000;
  uint64_t now_ = 1'000 * kMs;
};

TEST_F(SegmentAdmissionTest, TryAttach_NewSegment_SessionAfterTheStoredIdsWithItsProcessFields) {
  HeldProducer producer(1, 1, &dictionary_, {{"OPTRACE_SESSION", "admitted"}});
  ASSERT_TRUE(producer.ok());
  SegmentAdmission admission = MakeAdmission();
  ResumeState resume;
  resume.max_session_id = 41;
  admission.Resume(std::move(resume));
  auto admitted = admission.TryAttach(producer.segment_name(), now_);
  ASSERT_TRUE(admitted.has_value());
  EXPECT_FALSE(admitted->resumed);
  const SessionRecord& r = admitted->session->record();
  EXPECT_EQ(r.id, 42u);
  EXPECT_EQ(r.segment_name, producer.segment_name());
  EXPECT_EQ(r.pid, producer.session().record().pid);
  EXPECT_EQ(r.label, "admitted");
  EXPECT_GT(r.start_ns, 0);
  EXPECT_FALSE(admission.TryAttach(producer.segment_name(), now_).has_value()) << "attached already";
  admission.Release(producer.segment_name());
  ASSERT_TRUE(admission.TryAttach(producer.segment_name(), now_).has_value()) << "released";
}

TEST_F(SegmentAdmissionTest, TryAttach_SegmentOfARunningStoredSession_ContinuesIt) {
  HeldProducer producer(1, 1, &dictionary_);
  ASSERT_TRUE(producer.ok());
  SegmentAdmission admission = MakeAdmission();
  ResumeState resume;
  resume.max_session_id = 5;
  SessionRecord stored;
  stored.id = 5;
  stored.segment_name = producer.segment_name();
  stored.label = "stored-label";
  resume.running_sessions.push_back(stored);
  admission.Resume(std::move(resume));
  auto admitted = admission.TryAttach(producer.segment_name(), now_);
  ASSERT_TRUE(admitted.has_value());
  EXPECT_TRUE(admitted->resumed);
  EXPECT_EQ(admitted->session->record().id, 5u);
  EXPECT_EQ(admitted->session->record().label, "stored-label");
}

TEST_F(SegmentAdmissionTest, TryAttach_SegmentOfAnEndedStoredSession_RemovedAndNeverRetried) {
  HeldProducer producer(1, 1, &dictionary_);
  ASSERT_TRUE(producer.ok());
  StoreEnded(9, producer.segment_name());
  SegmentAdmission admission = MakeAdmission();
  admission.Resume(ResumeState{});
  ASSERT_TRUE(ShmFileExists(producer.segment_name()));
  EXPECT_FALSE(admission.TryAttach(producer.segment_name(), now_).has_value());
  EXPECT_FALSE(ShmFileExists(producer.segment_name())) << "removed";
  EXPECT_EQ(counters_.segments_rejected.load(), 0u) << "not a validation failure";
}

TEST_F(SegmentAdmissionTest, TryAttach_StoredSessionUnreadable_NoSecondSessionRetriedUntilRead) {
  HeldProducer producer(1, 1, &dictionary_);
  ASSERT_TRUE(producer.ok());
  StoreEnded(9, producer.segment_name());
  // The stored row no longer reads (a pid out of range): SessionBySegment
  // fails, which is not "not stored".
  ASSERT_EQ(testing::QueryColumn(path_, "UPDATE sessions SET pid = -1 WHERE id = 9"),
            std::vector<std::string>{});
  SegmentAdmission admission = MakeAdmission();
  admission.Resume(ResumeState{});
  EXPECT_FALSE(admission.TryAttach(producer.segment_name(), now_).has_value())
      << "a second session for a segment whose session is stored";
  EXPECT_TRUE(ShmFileExists(producer.segment_name())) << "kept until its session reads";
  EXPECT_EQ(counters_.segments_rejected.load(), 0u) << "not a validation failure";
  const auto never_adopted = [](SegmentAdmission::Admitted admitted) {
    ADD_FAILURE() << "adopted as session " << admitted.session->record().id;
  };
  admission.RetryDue(Later(), never_adopted);
  EXPECT_TRUE(ShmFileExists(producer.segment_name())) << "still unreadable: still kept";

  ASSERT_EQ(testing::QueryColumn(path_, "UPDATE sessions SET pid = 1 WHERE id = 9"),
            std::vector<std::string>{});
  admission.RetryDue(Later(), never_adopted);
  EXPECT_FALSE(ShmFileExists(producer.segment_name())) << "read at the retry: stored, removed";
}

TEST_F(SegmentAdmissionTest, TryAttach_InvalidSegment_RejectedOnceAndCounted) {
  const std::string name = NameFor(static_cast<uint32_t>(::getpid()), 0xbad);
  MakeShmFile(name, static_cast<off_t>(abi::kMaxSegmentBytes + 4096));
  SegmentAdmission admission = MakeAdmission();
  admission.Resume(ResumeState{});
  EXPECT_FALSE(admission.TryAttach(name, now_).has_value());
  EXPECT_EQ(counters_.segments_rejected.load(), 1u);
  EXPECT_FALSE(admission.TryAttach(name, now_).has_value());
  EXPECT_EQ(counters_.segments_rejected.load(), 1u) << "never retried";
  EXPECT_TRUE(ShmFileExists(name)) << "reported, left alone";
  ::unlink(("/dev/shm/" + name).c_str());
}

TEST_F(SegmentAdmissionTest, RetryDue_ProducerGoneBeforeSizingItsSegment_LeftoverRemoved) {
  const std::string unfinished = NameFor(GonePid(), 0x5);
  const std::string sizing = NameFor(static_cast<uint32_t>(::getpid()), 0x6);  // still alive
  MakeShmFile(unfinished, 0);
  MakeShmFile(sizing, 0);
  AgeShmFile(unfinished, 10);
  AgeShmFile(sizing, 10);
  SegmentAdmission admission = MakeAdmission();
  admission.Resume(ResumeState{});
  EXPECT_FALSE(admission.TryAttach(unfinished, now_).has_value());
  EXPECT_FALSE(admission.TryAttach(sizing, now_).has_value());
  EXPECT_EQ(counters_.segments_rejected.load(), 0u) << "not ready is not invalid";
  int adopted = 0;
  admission.RetryDue(Later(), [&](SegmentAdmission::Admitted) { ++adopted; });
  EXPECT_EQ(adopted, 0);
  EXPECT_FALSE(ShmFileExists(unfinished)) << "its producer is gone";
  EXPECT_TRUE(ShmFileExists(sizing)) << "its producer may still size it";
  ::unlink(("/dev/shm/" + sizing).c_str());
}

// A producer in another PID namespace: its pid means nothing here, but it
// holds the liveness lock while it sizes its segment, which stays. So does
// a segment changed a moment ago, whose producer may be about to lock it.
TEST_F(SegmentAdmissionTest, RetryDue_UnknownPidButLockHeldOrJustCreated_SegmentKept) {
  const std::string locked = NameFor(GonePid(), 0x7);
  const std::string fresh = NameFor(GonePid(), 0x8);
  MakeShmFile(locked, 0);
  MakeShmFile(fresh, 0);
  AgeShmFile(locked, 10);
  const int lock_fd = ::open(("/dev/shm/" + locked).c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(lock_fd, 0);
  ASSERT_TRUE(TakeProducerLock(lock_fd));
  SegmentAdmission admission = MakeAdmission();
  admission.Resume(ResumeState{});
  EXPECT_FALSE(admission.TryAttach(locked, now_).has_value());
  EXPECT_FALSE(admission.TryAttach(fresh, now_).has_value());
  admission.RetryDue(Later(), [](SegmentAdmission::Admitted) {});
  EXPECT_TRUE(ShmFileExists(locked)) << "its producer holds the lock";
  EXPECT_TRUE(ShmFileExists(fresh)) << "within the grace period";
  ::close(lock_fd);  // the producer dies
  AgeShmFile(fresh, 10);
  admission.RetryDue(Later(), [](SegmentAdmission::Admitted) {});
  EXPECT_FALSE(ShmFileExists(locked)) << "lock free and pid gone";
  EXPECT_FALSE(ShmFileExists(fresh)) << "lock free and pid gone";
}

TEST_F(SegmentAdmissionTest, CloseOrphans_RunningSessionWithoutSegment_StoredCrashedOpIncomplete) {
  HeldProducer producer(1, 1, &dictionary_);
  ASSERT_TRUE(producer.ok());
  // A previous daemon's view: session 3 (segment gone) with one op open,
  // session 4 (segment still there).
  HalfOp open;
  open.op_id = 77;
  open.kind = static_cast<uint8_t>(abi::EventKind::kLaunch);
  open.ts_ns = 1'000;
  SessionRecord orphan;
  orphan.id = 3;
  orphan.segment_name = NameFor(static_cast<uint32_t>(::getpid()), 0x3);
  orphan.spans = 10;
  SessionRecord alive;
  alive.id = 4;
  alive.segment_name = producer.segment_name();
  StoreBatch before;
  before.sessions = {orphan};
  before.halves_opened.push_back({3, {open}});
  StoreAndFlush(std::move(before));
  auto resume = store_->LoadResumeState();
  ASSERT_TRUE(resume.ok()) << resume.status().message();
  ASSERT_EQ(resume.value().open_halves[3].size(), 1u);
  resume.value().running_sessions.push_back(alive);

  SegmentAdmission admission = MakeAdmission();
  admission.Resume(std::move(resume).value());
  ASSERT_TRUE(admission.TryAttach(producer.segment_name(), now_).has_value());
  BatchPipeline pipeline(store_.get(), &dictionary_, &counters_, {});
  admission.CloseOrphans(&pipeline);
  ASSERT_TRUE(store_->Flush(10'000));

  const auto closed = Stored(3);
  ASSERT_TRUE(closed.has_value());
  EXPECT_EQ(closed->state, SessionState::kCrashed);
  EXPECT_GT(closed->end_ns, 0);
  EXPECT_EQ(closed->open_ops, 1u);
  EXPECT_EQ(closed->spans, 11u) << "the open op, as an incomplete span";
  auto halves = reader_->OpenHalves(3);
  ASSERT_TRUE(halves.ok());
  EXPECT_TRUE(halves.value().empty()) << "its half closed";
  EXPECT_FALSE(Stored(4).has_value()) << "attached: not an orphan";
}

TEST_F(SegmentAdmissionTest, TryAttach_UidAtItsCap_WaitsCountedOnceAttachedWhenOneEnds) {
  HeldProducer first(1, 1, &dictionary_);
  HeldProducer second(2, 1, &dictionary_);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(second.ok());
  SegmentAdmission admission = MakeAdmissionOfCap(1);
  admission.Resume(ResumeState{});
  ASSERT_TRUE(admission.TryAttach(first.segment_name(), now_).has_value());
  EXPECT_FALSE(admission.TryAttach(second.segment_name(), now_).has_value()) << "the uid is full";
  EXPECT_FALSE(admission.TryAttach(second.segment_name(), now_).has_value());
  admission.Scanned({first.segment_name(), second.segment_name()}, Later(),
                    [](SegmentAdmission::Admitted) { ADD_FAILURE() << "the uid is full"; });
  EXPECT_EQ(counters_.segments_deferred_uid_cap.load(), 1u) << "counted once per segment";
  EXPECT_EQ(counters_.segments_rejected.load(), 0u) << "waiting is not rejected";

  int adopted = 0;
  admission.RetryDue(Later(), [&](SegmentAdmission::Admitted) { ++adopted; });
  EXPECT_EQ(adopted, 0) << "still full";
  admission.Release(first.segment_name());
  std::string attached;
  admission.RetryDue(Later(), [&](SegmentAdmission::Admitted admitted) {
    attached = admitted.session->record().segment_name;
  });
  EXPECT_EQ(attached, second.segment_name()) << "attached once its uid had room";
  EXPECT_FALSE(admission.TryAttach(first.segment_name(), now_).has_value()) << "full again";
  EXPECT_EQ(counters_.segments_deferred_uid_cap.load(), 2u);
}

TEST_F(SegmentAdmissionTest, RetryDue_NotReadySegment_TriedAgainOnlyAfterADoublingDelay) {
  const std::string name = NameFor(static_cast<uint32_t>(::getpid()), 0x9);
  MakeShmFile(name, 0);  // being sized: not ready
  SegmentAdmission::Options options;
  options.retry = {.first_ns = 100 * kMs, .most_ns = 400 * kMs};
  SegmentAdmission admission = MakeAdmission(std::move(options));
  admission.Resume(ResumeState{});
  EXPECT_FALSE(admission.TryAttach(name, now_).has_value());
  // From here on a try would reject it: each try shows in the counter.
  MakeShmFile(name, static_cast<off_t>(abi::kMaxSegmentBytes + 4096));
  const auto none = [](SegmentAdmission::Admitted) { ADD_FAILURE() << "not a valid segment"; };
  admission.RetryDue(now_ + 99 * kMs, none);
  admission.Scanned({name}, now_ + 99 * kMs, none);
  EXPECT_EQ(counters_.segments_rejected.load(), 0u) << "tried before its delay passed";
  admission.RetryDue(now_ + 100 * kMs, none);
  EXPECT_EQ(counters_.segments_rejected.load(), 1u) << "tried once its delay passed";
  ::unlink(("/dev/shm/" + name).c_str());
}

TEST_F(SegmentAdmissionTest, Scanned_RejectedNameGoneFromTheFolder_Forgotten) {
  const std::string name = NameFor(static_cast<uint32_t>(::getpid()), 0xa);
  MakeShmFile(name, static_cast<off_t>(abi::kMaxSegmentBytes + 4096));
  SegmentAdmission admission = MakeAdmission();
  admission.Resume(ResumeState{});
  EXPECT_FALSE(admission.TryAttach(name, now_).has_value());
  admission.Scanned({name}, Later(), [](SegmentAdmission::Admitted) {});
  EXPECT_EQ(counters_.segments_rejected.load(), 1u) << "remembered while it is there";
  admission.Scanned({}, Later(), [](SegmentAdmission::Admitted) {});
  EXPECT_FALSE(admission.TryAttach(name, now_).has_value());
  EXPECT_EQ(counters_.segments_rejected.load(), 2u) << "forgotten once gone: validated again";
  EXPECT_EQ(counters_.segments_rejected_forgotten.load(), 0u) << "gone is not forgotten for room";
  ::unlink(("/dev/shm/" + name).c_str());
}

TEST_F(SegmentAdmissionTest, TryAttach_MoreRejectedNamesThanRemembered_OldestForgottenAndCounted) {
  const std::string first = NameFor(static_cast<uint32_t>(::getpid()), 0xb);
  const std::string second = NameFor(static_cast<uint32_t>(::getpid()), 0xc);
  for (const std::string& name : {first, second}) {
    MakeShmFile(name, static_cast<off_t>(abi::kMaxSegmentBytes + 4096));
  }
  SegmentAdmission::Options options;
  options.max_rejected_names = 1;
  SegmentAdmission admission = MakeAdmission(std::move(options));
  admission.Resume(ResumeState{});
  EXPECT_FALSE(admission.TryAttach(first, now_).has_value());
  EXPECT_FALSE(admission.TryAttach(second, now_).has_value());
  EXPECT_EQ(counters_.segments_rejected_forgotten.load(), 1u);
  EXPECT_FALSE(admission.TryAttach(second, now_).has_value());
  EXPECT_EQ(counters_.segments_rejected.load(), 2u) << "the newest is remembered";
  EXPECT_FALSE(admission.TryAttach(first, now_).has_value());
  EXPECT_EQ(counters_.segments_rejected.load(), 3u) << "the forgotten one validated again";
  for (const std::string& name : {first, second}) ::unlink(("/dev/shm/" + name).c_str());
}

// Out of file descriptors, a producer's valid segment cannot be opened:
// that is no fault of the segment, which is attached once there are.
TEST_F(SegmentAdmissionTest, RetryDue_OutOfFileDescriptors_NotRejectedAttachedLater) {
  HeldProducer producer(1, 1, &dictionary_);
  ASSERT_TRUE(producer.ok());
  SegmentAdmission admission = MakeAdmission();
  admission.Resume(ResumeState{});
  EXPECT_FALSE(AttachedWithNoDescriptorLeft(admission, producer.segment_name(), now_));
  EXPECT_EQ(counters_.segments_rejected.load(), 0u);
  int adopted = 0;
  admission.RetryDue(Later(), [&](SegmentAdmission::Admitted) { ++adopted; });
  EXPECT_EQ(adopted, 1);
}

TEST_F(SegmentAdmissionTest, TryAttach_ResumedSessionOfAUidAtItsCap_ContinuesAnyway) {
  HeldProducer fresh(1, 1, &dictionary_);
  HeldProducer continued(2, 1, &dictionary_);
  ASSERT_TRUE(fresh.ok());
  ASSERT_TRUE(continued.ok());
  SegmentAdmission admission = MakeAdmissionOfCap(1);
  ResumeState resume;
  resume.max_session_id = 7;
  SessionRecord stored;
  stored.id = 7;
  stored.segment_name = continued.segment_name();
  resume.running_sessions.push_back(stored);
  admission.Resume(std::move(resume));
  ASSERT_TRUE(admission.TryAttach(fresh.segment_name(), now_).has_value());
  auto admitted = admission.TryAttach(continued.segment_name(), now_);
  ASSERT_TRUE(admitted.has_value()) << "the last daemon held it within the bound";
  EXPECT_TRUE(admitted->resumed);
  EXPECT_EQ(counters_.segments_deferred_uid_cap.load(), 0u);
}

// A session the last daemon left running whose segment cannot be opened
// at start (no descriptor left) is not closed as an orphan: it continues
// once the segment attaches.
TEST_F(SegmentAdmissionTest, CloseOrphans_ResumedSegmentNotOpenedYet_KeptAndContinuedLater) {
  HeldProducer producer(1, 1, &dictionary_);
  ASSERT_TRUE(producer.ok());
  SessionRecord running;
  running.id = 4;
  running.segment_name = producer.segment_name();
  StoreBatch before;
  before.sessions = {running};
  StoreAndFlush(std::move(before));
  auto resume = store_->LoadResumeState();
  ASSERT_TRUE(resume.ok()) << resume.status().message();
  ASSERT_EQ(resume.value().running_sessions.size(), 1u);
  SegmentAdmission admission = MakeAdmission();
  admission.Resume(std::move(resume).value());
  ASSERT_FALSE(AttachedWithNoDescriptorLeft(admission, producer.segment_name(), now_));
  BatchPipeline pipeline(store_.get(), &dictionary_, &counters_, {});
  admission.CloseOrphans(&pipeline);
  ASSERT_TRUE(store_->Flush(10'000));
  const auto kept = Stored(4);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->state, SessionState::kRunning) << "not closed: its segment is there";
  std::optional<SegmentAdmission::Admitted> later;
  admission.RetryDue(Later(), [&](SegmentAdmission::Admitted a) { later = std::move(a); });
  ASSERT_TRUE(later.has_value());
  EXPECT_TRUE(later->resumed);
  EXPECT_EQ(later->session->record().id, 4u);
}

// A name that waits for a uid's room but fails validation once tried (a
// file made by another user, or a broken one) does not use that room: the
// next waiting segment attaches in the same retry.
TEST_F(SegmentAdmissionTest, RetryDue_WaitingNameThatFailsValidation_RoomGoesToTheNext) {
  HeldProducer first(1, 1, &dictionary_);
  HeldProducer second(2, 1, &dictionary_);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(second.ok());
  const std::string broken = NameFor(1, 0xd);  // pid 1: tried first, in name order
  MakeShmFile(broken, static_cast<off_t>(abi::kMaxSegmentBytes + 4096));
  SegmentAdmission admission = MakeAdmissionOfCap(1);
  admission.Resume(ResumeState{});
  ASSERT_TRUE(admission.TryAttach(first.segment_name(), now_).has_value());
  EXPECT_FALSE(admission.TryAttach(broken, now_).has_value());
  EXPECT_FALSE(admission.TryAttach(second.segment_name(), now_).has_value());
  EXPECT_EQ(counters_.segments_deferred_uid_cap.load(), 2u);
  admission.Release(first.segment_name());
  std::string attached;
  admission.RetryDue(Later(), [&](SegmentAdmission::Admitted admitted) {
    attached = admitted.session->record().segment_name;
  });
  EXPECT_EQ(counters_.segments_rejected.load(), 1u) << "the broken one, tried first";
  EXPECT_EQ(attached, second.segment_name()) << "in the same retry";
  ::unlink(("/dev/shm/" + broken).c_str());
}

}  // namespace
}  // namespace optrace::daemon
