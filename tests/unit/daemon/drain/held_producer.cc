#include "held_producer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>

#include <chrono>

#include "segment_reading.h"
#include "test_producer.h"

namespace optrace::daemon {

using namespace std::chrono_literals;

HeldProducer::HeldProducer(SessionId id, long iterations, StringDictionary* dictionary,
                           std::map<std::string, std::string> env) {
  process_ = testing::StartTestProducer(
      {"--ops", std::to_string(iterations), "--hold-open", "held_op"}, std::move(env));
  const auto name = process_->WaitForLine("segment=", 10s);
  const auto holding = process_->WaitForLine("holding=", 10s);
  if (!name || !holding) {
    ADD_FAILURE() << "the producer did not report its segment and held op";
    return;
  }
  segment_name_ = *name;
  auto segment = testing::AttachOrFail(segment_name_);
  if (segment == nullptr) return;
  SessionRecord record;
  record.id = id;
  record.segment_name = segment_name_;
  record.pid = segment->geometry().name.pid;
  record.uid = segment->geometry().name.uid;
  record.label = segment->geometry().session_label;
  session_ = std::make_unique<ProducerSession>(std::move(segment), std::move(record), dictionary,
                                               nullptr, ProducerSession::Limits{});
  attached_ = true;
}

HeldProducer::~HeldProducer() {
  Kill();
  if (!segment_name_.empty()) ::shm_unlink(segment_name_.c_str());
}

void HeldProducer::Kill() {
  if (process_ == nullptr) return;
  process_->Kill(SIGKILL);
  process_->Wait(10s);
  process_.reset();
}

}  // namespace optrace::daemon
