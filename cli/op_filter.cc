#include "op_filter.h"

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

}  // namespace optrace::cli
