#include "rpc_error.h"

#include <gtest/gtest.h>

#include "exit_codes.h"

namespace optrace::cli {
namespace {

TEST(ErrorFromRpcTest, Unavailable_NoDaemonHowToStartExit2) {
  const CliError e =
      ErrorFromRpc(grpc::Status(grpc::StatusCode::UNAVAILABLE, "connect failed: ..."),
                   "/run/optrace/optraced.sock");
  EXPECT_EQ(e.exit_code, kExitUsage);
  EXPECT_EQ(e.message,
            "no daemon at /run/optrace/optraced.sock; start one with `optraced` or `systemctl "
            "start optraced`");
}

TEST(ErrorFromRpcTest, NotFoundSession_NamesItExit1) {
  const CliError e =
      ErrorFromRpc(grpc::Status(grpc::StatusCode::NOT_FOUND, "session 99 not found"), "x", 99);
  EXPECT_EQ(e.exit_code, kExitFailure);
  EXPECT_EQ(e.message, "no session 99; see optrace sessions");
}

TEST(ErrorFromRpcTest, NotFoundInASession_DaemonsMessageExit1) {
  const std::string message = "session 12 has no step 9 (its steps are numbered 1 to 5)";
  const CliError e = ErrorFromRpc(grpc::Status(grpc::StatusCode::NOT_FOUND, message), "x", 12);
  EXPECT_EQ(e.exit_code, kExitFailure);
  EXPECT_EQ(e.message, message);
}

TEST(ErrorFromRpcTest, InvalidArgument_ServerMessageExit2) {
  const CliError e = ErrorFromRpc(
      grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "name_pattern: missing ) at end"), "x");
  EXPECT_EQ(e.exit_code, kExitUsage);
  EXPECT_EQ(e.message, "name_pattern: missing ) at end");
}

TEST(ErrorFromRpcTest, Other_OneLineNamingTheDaemon) {
  const CliError e = ErrorFromRpc(grpc::Status(grpc::StatusCode::INTERNAL, "disk I/O error"), "s");
  EXPECT_EQ(e.exit_code, kExitFailure);
  EXPECT_EQ(e.message, "the daemon at s failed: disk I/O error");
  EXPECT_EQ(e.message.find('\n'), std::string::npos);
}

TEST(ErrorFromRpcTest, UnavailableFromClickHouse_DaemonMessageExit1) {
  const CliError e =
      ErrorFromRpc(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                "ClickHouse at http://ch1:8123: Couldn't connect to server"),
                   "/run/optrace/optraced.sock");
  EXPECT_EQ(e.exit_code, kExitFailure);
  EXPECT_EQ(e.message,
            "fleet query failed: ClickHouse at http://ch1:8123: Couldn't connect to server");
}

TEST(ErrorFromRpcTest, Unauthenticated_DaemonMessageExit1) {
  const CliError e = ErrorFromRpc(
      grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "this call carries none"), "127.0.0.1:7070");
  EXPECT_EQ(e.exit_code, kExitFailure);
  EXPECT_EQ(e.message,
            "the daemon at 127.0.0.1:7070 does not know who you are: this call carries none");
}

TEST(ErrorFromRpcTest, FailedPrecondition_DaemonMessageExit1) {
  const CliError e = ErrorFromRpc(
      grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "fleet queries need ClickHouse"),
      "/run/optrace/optraced.sock");
  EXPECT_EQ(e.exit_code, kExitFailure);
  EXPECT_EQ(e.message, "fleet queries need ClickHouse");
}

TEST(ErrorFromRpcTest, ResourceExhausted_KeepBudgetMessageExit1) {
  const std::string budget = "keep of session 3 refused: over the per-session keep budget";
  const CliError e =
      ErrorFromRpc(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, budget), "/tmp/s", 3);
  EXPECT_EQ(e.exit_code, kExitFailure);
  EXPECT_EQ(e.message, budget);
}

}  // namespace
}  // namespace optrace::cli
