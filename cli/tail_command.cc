#include "tail_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "common/level_names.h"
#include "exit_codes.h"
#include "interrupt_watcher.h"
#include "json_convert.h"
#include "proto_names.h"
#include "rpc_error.h"
#include "tail_line.h"
#include "tail_stream.h"
#include "terminal.h"

namespace optrace::cli {

v1::TailRequest BuildTailRequest(const TailOptions& options) {
  v1::TailRequest request;
  if (options.level) request.set_level(*options.level);
  request.set_session_id(options.session_id);
  request.set_pid(options.pid);
  request.set_label(options.label);
  request.set_name_pattern(options.name_pattern);
  if (options.target) request.set_target(*options.target);
  if (options.device) {
    request.set_has_device(true);
    request.set_device(*options.device);
  }
  request.set_min_duration_ns(options.min_duration_ns);
  const bool spans = options.spans || options.min_duration_ns > 0;
  request.set_spans(spans);
  request.set_events(!spans);
  request.set_batch(true);  // far fewer messages at high rates
  return request;
}

int RunTail(Connection& connection, const TailOptions& options) {
  const Palette palette(ColoursWanted(STDOUT_FILENO));
  const auto context = connection.NewContext(std::nullopt);
  InterruptWatcher interrupts([&context] { context->TryCancel(); });
  const auto reader = connection.stub().Tail(context.get(), BuildTailRequest(options));
  auto print = [&](const v1::TailResponse& item) {
    if (options.json) {
      fmt::print("{}\n", ToJson(item).dump());
    } else {
      fmt::print("{}\n", FormatTailLine(item, options.verbose, palette));
    }
  };
  ReadTailStream(*reader, [&](const v1::TailResponse& response) {
    if (response.has_batch()) {
      for (const v1::TailResponse& item : response.batch().items()) print(item);
    } else {
      print(response);
    }
    // One flush per message read: prompt on a terminal, few writes in a pipe.
    std::fflush(stdout);
  });
  const grpc::Status status = reader->Finish();
  if (interrupts.interrupted()) return kExitOk;
  if (!status.ok())
    return Fail(
        ErrorFromRpc(status, connection.address(),
                     options.session_id != 0 ? std::optional(options.session_id) : std::nullopt));
  return kExitOk;
}

CommandSpec DescribeTailCommand() {
  auto options = std::make_shared<TailOptions>();
  CommandSpec tail("tail", "show live op events as they happen");
  tail.footer =
      "Lines look like\n  [OP] LAUNCH elementwise [id=40028] target=cpu:0\n"
      "Examples:\n  optrace tail --level=trace\n  optrace tail --pid 1234 -v\n"
      "  optrace tail --spans --min-duration 1ms --target gpu --json";
  tail.AddWord("--level", Word(&options->level, ParseLevelWord, std::string(LevelNameList())),
               "show events up to this level, raising producers to it while the tail runs");
  tail.Add("--session", &options->session_id, "only this session")
      .Excludes("--pid")
      .Excludes("--label");
  tail.Add("--pid", &options->pid, "only this process").Excludes("--label");
  tail.Add("--label", &options->label, "only sessions with this label");
  tail.Add("--name", &options->name_pattern, "only ops whose name or tag matches this RE2 pattern");
  tail.AddWord("--target", Word(&options->target, ParseTargetWord, TargetWordList()),
               "only ops on this kind of device");
  tail.Add("--device", &options->device, "only ops on this device ordinal");
  tail.AddFlag("--spans", &options->spans,
               "show completed spans (with durations) instead of events");
  tail.AddDuration("--min-duration", &options->min_duration_ns,
                   "only spans at least this long, e.g. 1ms (implies --spans)");
  tail.AddFlag("-v,--verbose", &options->verbose, "append pid, tag, duration and source location");
  tail.AddJsonFlag(&options->json, "one JSON object per line");
  tail.run = [options](Connection& connection) { return RunTail(connection, *options); };
  return tail;
}

}  // namespace optrace::cli
