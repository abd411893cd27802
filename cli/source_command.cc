#include "source_command.h"

#include <fmt/core.h>

#include <algorithm>
#include <memory>

#include "exit_codes.h"
#include "json_convert.h"
#include "rpc_error.h"

namespace optrace::cli {
namespace {

// The narrowest line-number column, so that short listings line up with
// longer ones.
constexpr size_t kMinLineNumberWidth = 4;

}  // namespace

std::string RenderSource(const v1::GetSourceResponse& source, uint64_t session_id, uint64_t op_id) {
  std::string out = fmt::format("{} (session {}, op {}{})\n", source.source_location(), session_id,
                                op_id, source.registered() ? ", registered by the runtime" : "");
  const uint64_t last_line = uint64_t{source.first_line()} + source.lines_size() - 1;
  const size_t width = std::max(kMinLineNumberWidth, std::to_string(last_line).size());
  for (int i = 0; i < source.lines_size(); ++i) {
    const uint64_t number = uint64_t{source.first_line()} + static_cast<uint64_t>(i);
    out += fmt::format("{}{:>{}} | {}\n", number == source.line() ? '>' : ' ', number, width,
                       source.lines(i));
  }
  return out;
}

int RunSource(Connection& connection, const SourceOptions& options) {
  v1::GetSourceRequest request;
  request.set_session_id(options.session_id);
  request.set_op_id(options.op_id);
  request.set_context(options.context);
  v1::GetSourceResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().GetSource(context.get(), request, &response);
  // NOT_FOUND says what is missing (the session, the op, its location or
  // a listing of it): the daemon's message, not "no session N".
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address()));
  if (options.json) {
    fmt::print("{}\n", ToJson(response).dump(2));
  } else {
    fmt::print("{}", RenderSource(response, options.session_id, options.op_id));
  }
  return kExitOk;
}

CommandSpec DescribeSourceCommand() {
  auto options = std::make_shared<SourceOptions>();
  CommandSpec source("source", "the source listing around an op's call site");
  source.footer =
      "Examples:\n  optrace source 12 40028\n  optrace source 12 40028 --context 3 --json\n"
      "The listing is the one the producer shipped when the session was recorded (or its\n"
      "runtime registered), so it reads right after the code changed or is gone.";
  source.Add("SESSION", &options->session_id, "the session id").Required();
  source.Add("OP_ID", &options->op_id, "the op's id, as optrace ops lists it").Required();
  source.Add("--context", &options->context, "lines before and after the op's (0 = all)")
      .ShowDefault();
  source.AddJsonFlag(&options->json, "the listing");
  source.run = [options](Connection& connection) { return RunSource(connection, *options); };
  return source;
}

}  // namespace optrace::cli
