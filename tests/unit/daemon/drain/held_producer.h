// A real producer process (optrace-test-producer) that ran a known number
// of op pairs and holds one op open, attached by this test as the drain
// loop attaches it: a ProducerSession over its segment.
#ifndef OPTRACE_TESTS_UNIT_DAEMON_HELD_PRODUCER_H_
#define OPTRACE_TESTS_UNIT_DAEMON_HELD_PRODUCER_H_

#include <map>
#include <memory>
#include <string>

#include "drain/producer_session.h"
#include "subprocess.h"

namespace optrace::daemon {

class HeldProducer {
 public:
  // Starts the producer with one "start" op and `iterations` outer+inner
  // op pairs (so 2 * iterations + 1 spans) at OPTRACE_LEVEL=trace, plus `env`, waits until it
  // holds its last op open, and wraps its segment as session `id`.
  // Records a test failure (and ok() is false) when any step fails.
  HeldProducer(SessionId id, long iterations, StringDictionary* dictionary,
               std::map<std::string, std::string> env = {});
  // Kills the producer and removes its segment.
  ~HeldProducer();
  HeldProducer(const HeldProducer&) = delete;
  HeldProducer& operator=(const HeldProducer&) = delete;

  // True when the producer ran and its segment is attached.
  bool ok() const { return attached_; }
  const std::string& segment_name() const { return segment_name_; }
  // The session, until TakeSession.
  ProducerSession& session() { return *session_; }
  std::unique_ptr<ProducerSession> TakeSession() { return std::move(session_); }
  // Kills the producer with SIGKILL and waits for it.
  void Kill();

 private:
  std::unique_ptr<testing::Subprocess> process_;
  std::string segment_name_;
  std::unique_ptr<ProducerSession> session_;
  bool attached_ = false;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_TESTS_UNIT_DAEMON_HELD_PRODUCER_H_
