// Requests a hostile or broken client sends to the daemon's gRPC API:
// random bytes in place of a request, and well-formed requests of every
// RPC with hostile field values. Sent without waiting for each answer
// (many in flight), with each answer's status code tallied.
#ifndef OPTRACE_TESTS_RELIABILITY_HOSTILE_REQUESTS_H_
#define OPTRACE_TESTS_RELIABILITY_HOSTILE_REQUESTS_H_

#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace optrace::testing {

// One request as it goes on the wire: the method path
// ("/optrace.v1.OpTrace/GetStatus") and the serialized request.
struct RawRequest {
  std::string method;
  std::string bytes;
};

// Makes hostile requests for every RPC of optrace.v1.OpTrace, found in the
// generated descriptors (a new RPC is covered without changing this).
// Thread rules: one thread.
class HostileRequests {
 public:
  explicit HostileRequests(unsigned seed);

  // Random bytes (mostly short, sometimes up to 64 KiB, now and then over
  // the daemon's 1 MiB request limit) to a random RPC, or to a method the
  // service does not have.
  RawRequest Garbage();

  // A request message of a random RPC that parses, with every field set
  // to a hostile value: edge integers, enum numbers outside the enum,
  // NaN and infinities, strings of regex syntax and control characters
  // (sometimes long), nested messages, several repeated entries.
  RawRequest WellFormed();

 private:
  void Fill(google::protobuf::Message* message, int depth);
  std::string HostileText();
  size_t Length();

  std::mt19937_64 random_;
  std::vector<const google::protobuf::MethodDescriptor*> methods_;
};

// Sends every request `next` makes, `count` of them, through `channel`
// with at most `in_flight` unanswered at once, each with `deadline`; the
// answers' bodies are discarded. Returns how many calls ended with each
// status code.
std::map<grpc::StatusCode, int> SendAll(const std::shared_ptr<grpc::Channel>& channel, int count,
                                        int in_flight, std::chrono::milliseconds deadline,
                                        const std::function<RawRequest()>& next);

// "OK 12, INVALID_ARGUMENT 30, ..." for a figure or a failure message.
std::string CodesText(const std::map<grpc::StatusCode, int>& codes);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_RELIABILITY_HOSTILE_REQUESTS_H_
