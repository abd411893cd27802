#include "op_filter.h"

#include "proto_names.h"

namespace optrace::cli {

v1::OpFilter ToOpFilter(const OpFilterOptions& options) {
  v1::OpFilter filter;
  filter.set_name_pattern(options.name_pattern);
  filter.set_tag_pattern(options.tag_pattern);
  if (options.target) filter.set_target(*options.target);
  if (options.device) {
    filter.set_has_device(true);
    filter.set_device(*options.device);
  }
  if (options.status) filter.set_status(*options.status);
  filter.set_min_duration_ns(options.min_duration_ns);
  filter.set_start_min_unix_ns(options.start_min_unix_ns);
  filter.set_start_max_unix_ns(options.start_max_unix_ns);
  return filter;
}

std::vector<OptionSpec*> AddOpFilterOptions(CommandSpec& command, OpFilterOptions* filter) {
  return {
      &command.Add("--name", &filter->name_pattern, "only ops whose name matches this RE2 pattern"),
      &command.Add("--tag", &filter->tag_pattern, "only ops whose tag matches this RE2 pattern"),
      &command.AddWord("--target", Word(&filter->target, ParseTargetWord, TargetWordList()),
                       "only ops on this kind of device"),
      &command.Add("--device", &filter->device, "only ops on this device ordinal"),
      &command.AddWord("--status", Word(&filter->status, ParseSpanStatusWord, SpanStatusWordList()),
                       "only spans with this status"),
      &command.AddDuration("--min-duration", &filter->min_duration_ns,
                           "only spans at least this long (e.g. 1ms)"),
      &command.AddAgo("--since", &filter->start_min_unix_ns,
                      "only spans that started within this long before now (e.g. 1h)"),
      &command.AddAgo("--until", &filter->start_max_unix_ns,
                      "only spans that started at least this long before now (e.g. 10m)"),
  };
}

}  // namespace optrace::cli
