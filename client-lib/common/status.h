// Status and Result<T>: expected failures as values that name the problem.
// Used by the segment reader and the daemon; the client library's hot path
// never constructs one.
#ifndef OPTRACE_COMMON_STATUS_H_
#define OPTRACE_COMMON_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace optrace {

// The outcome of an operation that can fail for reasons outside our control.
// A default-constructed Status is OK. Thread rules: a value type.
class Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,     // a caller- or user-supplied value is wrong
    kInvalidSegment,      // shared-memory bytes broke an ABI rule
    kNotFound,            // the named thing does not exist (or no longer does)
    kNotReady,            // try again later (e.g. a segment still initialising)
    kPermissionDenied,    // owner or mode rules refuse it
    kIoError,             // the operating system refused an operation
    kUnavailable,         // a service or resource is temporarily unavailable
    kResourceExhausted,   // a budget or quota refuses it (not worth retrying as is)
    kFailedPrecondition,  // the thing is in a state that refuses it (e.g. ended)
    kUnauthenticated,     // the caller's identity is unknown: no or wrong credentials
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return {Code::kInvalidArgument, std::move(msg)};
  }
  static Status InvalidSegment(std::string_view segment, std::string_view msg) {
    return {Code::kInvalidSegment, "segment " + std::string(segment) + ": " + std::string(msg)};
  }
  static Status NotFound(std::string msg) { return {Code::kNotFound, std::move(msg)}; }
  static Status NotReady(std::string msg) { return {Code::kNotReady, std::move(msg)}; }
  static Status PermissionDenied(std::string msg) {
    return {Code::kPermissionDenied, std::move(msg)};
  }
  static Status IoError(std::string msg) { return {Code::kIoError, std::move(msg)}; }
  static Status Unavailable(std::string msg) { return {Code::kUnavailable, std::move(msg)}; }
  static Status ResourceExhausted(std::string msg) {
    return {Code::kResourceExhausted, std::move(msg)};
  }
  static Status FailedPrecondition(std::string msg) {
    return {Code::kFailedPrecondition, std::move(msg)};
  }
  static Status Unauthenticated(std::string msg) {
    return {Code::kUnauthenticated, std::move(msg)};
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
// REQUIRES: value() only when ok(); constructing from an OK Status is a bug.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace optrace

#endif  // OPTRACE_COMMON_STATUS_H_
