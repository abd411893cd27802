#include "hostile_requests.h"

#include <google/protobuf/descriptor.h>
#include <grpcpp/generic/generic_stub.h>

#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

#include "optrace/v1/optrace.grpc.pb.h"

namespace optrace::testing {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

constexpr size_t kRequestLimitBytes = 1 << 20;  // the daemon's SetMaxReceiveMessageSize
constexpr int kMaxDepth = 3;

// Picks one of `values`.
template <typename T>
T OneOf(std::mt19937_64& random, std::initializer_list<T> values) {
  return *(values.begin() + std::uniform_int_distribution<size_t>(0, values.size() - 1)(random));
}

// An edge value of integer type T, or a random one.
template <typename T>
T EdgeInteger(std::mt19937_64& random) {
  using Limits = std::numeric_limits<T>;
  const T edge = OneOf<T>(random, {T(0), T(1), T(2), T(Limits::max()), T(Limits::max() - 1),
                                   T(Limits::min()), T(-1), T(1000000)});
  return random() % 2 == 0 ? edge : static_cast<T>(random());
}

}  // namespace

HostileRequests::HostileRequests(unsigned seed) : random_(seed) {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          v1::OpTrace::service_full_name());
  for (int i = 0; i < service->method_count(); ++i) methods_.push_back(service->method(i));
}

size_t HostileRequests::Length() {
  switch (random_() % 100) {
    case 0:  // beyond the daemon's request limit
      return kRequestLimitBytes + random_() % kRequestLimitBytes;
    case 1:
    case 2:
    case 3:
      return random_() % (64 << 10);
    default:
      return random_() % 64;
  }
}

RawRequest HostileRequests::Garbage() {
  RawRequest r;
  const std::string service = std::string("/") + v1::OpTrace::service_full_name() + "/";
  switch (random_() % 20) {
    case 0:
      r.method = service + "NoSuchMethod";
      break;
    case 1:
      r.method = "/not.a.Service/GetStatus";
      break;
    default:
      r.method = service + methods_[random_() % methods_.size()]->name();
  }
  r.bytes.resize(Length());
  for (char& c : r.bytes) c = static_cast<char>(random_());
  return r;
}

std::string HostileRequests::HostileText() {
  // Regex syntax, wildcards, path and format characters, controls: what
  // patterns, labels and cursors must survive.
  static constexpr char kAlphabet[] = "()[]{}*+?|^$\\.%/:,=-_aZ09 \t\n\x01\x7f";
  std::string text(Length(), ' ');
  for (char& c : text) c = kAlphabet[random_() % (sizeof kAlphabet - 1)];
  return text;
}

void HostileRequests::Fill(Message* message, int depth) {
  const google::protobuf::Descriptor* type = message->GetDescriptor();
  const Reflection* reflection = message->GetReflection();
  for (int i = 0; i < type->field_count(); ++i) {
    const FieldDescriptor* field = type->field(i);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && depth >= kMaxDepth) continue;
    const int copies = field->is_repeated() ? static_cast<int>(random_() % 4) : 1;
    for (int k = 0; k < copies; ++k) {
      const bool add = field->is_repeated();
      switch (field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT32: {
          const auto v = EdgeInteger<int32_t>(random_);
          add ? reflection->AddInt32(message, field, v) : reflection->SetInt32(message, field, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_INT64: {
          const auto v = EdgeInteger<int64_t>(random_);
          add ? reflection->AddInt64(message, field, v) : reflection->SetInt64(message, field, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_UINT32: {
          const auto v = EdgeInteger<uint32_t>(random_);
          add ? reflection->AddUInt32(message, field, v) : reflection->SetUInt32(message, field, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_UINT64: {
          const auto v = EdgeInteger<uint64_t>(random_);
          add ? reflection->AddUInt64(message, field, v) : reflection->SetUInt64(message, field, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_DOUBLE:
        case FieldDescriptor::CPPTYPE_FLOAT: {
          const double v = OneOf<double>(random_, {std::nan(""), HUGE_VAL, -HUGE_VAL, 0.0, -0.0,
                                                   1e300, -1.5, static_cast<double>(random_())});
          if (field->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT) {
            const auto f = static_cast<float>(v);
            add ? reflection->AddFloat(message, field, f) : reflection->SetFloat(message, field, f);
          } else {
            add ? reflection->AddDouble(message, field, v)
                : reflection->SetDouble(message, field, v);
          }
          break;
        }
        case FieldDescriptor::CPPTYPE_BOOL: {
          const bool v = random_() % 2 == 0;
          add ? reflection->AddBool(message, field, v) : reflection->SetBool(message, field, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_ENUM: {
          // proto3 enums are open: numbers outside the enum arrive as they are.
          const int highest =
              field->enum_type()->value(field->enum_type()->value_count() - 1)->number();
          const int v = OneOf<int>(
              random_, {0, 1, highest, highest + 1, -1, 1000, std::numeric_limits<int32_t>::max()});
          add ? reflection->AddEnumValue(message, field, v)
              : reflection->SetEnumValue(message, field, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_STRING: {
          std::string v = HostileText();
          add ? reflection->AddString(message, field, std::move(v))
              : reflection->SetString(message, field, std::move(v));
          break;
        }
        case FieldDescriptor::CPPTYPE_MESSAGE:
          Fill(add ? reflection->AddMessage(message, field)
                   : reflection->MutableMessage(message, field),
               depth + 1);
          break;
      }
    }
  }
}

RawRequest HostileRequests::WellFormed() {
  const google::protobuf::MethodDescriptor* method = methods_[random_() % methods_.size()];
  std::unique_ptr<Message> request(google::protobuf::MessageFactory::generated_factory()
                                       ->GetPrototype(method->input_type())
                                       ->New());
  Fill(request.get(), 0);
  RawRequest r;
  r.method = std::string("/") + v1::OpTrace::service_full_name() + "/" + method->name();
  request->SerializeToString(&r.bytes);
  return r;
}

std::map<grpc::StatusCode, int> SendAll(const std::shared_ptr<grpc::Channel>& channel, int count,
                                        int in_flight, std::chrono::milliseconds deadline,
                                        const std::function<RawRequest()>& next) {
  std::mutex mu;
  int sent = 0;                           // GUARDED_BY(mu)
  std::map<grpc::StatusCode, int> codes;  // GUARDED_BY(mu)
  grpc::GenericStub stub(channel);
  // Each sender makes one call at a time; a server-streaming RPC called as
  // unary ends at its first message or at the deadline.
  auto sender = [&] {
    while (true) {
      RawRequest request;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (sent == count) return;
        ++sent;
        request = next();
      }
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + deadline);
      grpc::Slice slice(request.bytes);
      const grpc::ByteBuffer body(&slice, 1);
      grpc::CompletionQueue cq;
      auto call = stub.PrepareUnaryCall(&ctx, request.method, body, &cq);
      call->StartCall();
      grpc::ByteBuffer response;
      grpc::Status status;
      call->Finish(&response, &status, nullptr);
      void* tag = nullptr;
      bool ok = false;
      cq.Next(&tag, &ok);
      cq.Shutdown();
      while (cq.Next(&tag, &ok)) {
      }
      std::lock_guard<std::mutex> lock(mu);
      ++codes[status.error_code()];
    }
  };
  std::vector<std::thread> senders;
  for (int i = 0; i < in_flight; ++i) senders.emplace_back(sender);
  for (std::thread& t : senders) t.join();
  return codes;
}

std::string CodesText(const std::map<grpc::StatusCode, int>& codes) {
  static const std::map<grpc::StatusCode, const char*> kNames = {
      {grpc::OK, "OK"},
      {grpc::CANCELLED, "CANCELLED"},
      {grpc::UNKNOWN, "UNKNOWN"},
      {grpc::INVALID_ARGUMENT, "INVALID_ARGUMENT"},
      {grpc::DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED"},
      {grpc::NOT_FOUND, "NOT_FOUND"},
      {grpc::ALREADY_EXISTS, "ALREADY_EXISTS"},
      {grpc::PERMISSION_DENIED, "PERMISSION_DENIED"},
      {grpc::RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED"},
      {grpc::FAILED_PRECONDITION, "FAILED_PRECONDITION"},
      {grpc::ABORTED, "ABORTED"},
      {grpc::OUT_OF_RANGE, "OUT_OF_RANGE"},
      {grpc::UNIMPLEMENTED, "UNIMPLEMENTED"},
      {grpc::INTERNAL, "INTERNAL"},
      {grpc::UNAVAILABLE, "UNAVAILABLE"},
      {grpc::DATA_LOSS, "DATA_LOSS"},
      {grpc::UNAUTHENTICATED, "UNAUTHENTICATED"},
  };
  std::string text;
  for (const auto& [code, n] : codes) {
    if (!text.empty()) text += ", ";
    const auto name = kNames.find(code);
    text += (name != kNames.end() ? std::string(name->second) : std::to_string(code)) + " " +
            std::to_string(n);
  }
  return text;
}

}  // namespace optrace::testing
