#include "live/tail_request.h"

#include <string>
#include <utility>

#include "optrace/v1/target_numbers.h"
#include "wire/op_filter_check.h"
#include "wire/proto_convert.h"

namespace optrace::daemon {

Result<TailSubscription::Filter> TailFilterFromRequest(const v1::TailRequest& request,
                                                       std::optional<uint32_t> uid) {
  TailSubscription::Filter f;
  if (request.level() != v1::LEVEL_UNSPECIFIED) {
    const auto level = LevelFromProto(request.level());
    if (!level)
      return Status::InvalidArgument("level " + std::to_string(request.level()) +
                                     " is not a level");
    f.level = *level;
  }
  if (!request.name_pattern().empty()) {
    auto pattern = CompilePattern(request.name_pattern(), "name_pattern");
    if (!pattern.ok()) return pattern.status();
    f.pattern = std::move(pattern).value();
  }
  // TARGET_UNSPECIFIED is kNone: any target.
  const std::optional<abi::TargetKind> target = v1::KindFromTarget(request.target());
  if (!target) {
    return Status::InvalidArgument("target " + std::to_string(request.target()) +
                                   " is not a target");
  }
  f.target = static_cast<uint8_t>(*target);
  if (request.has_device()) {
    if (request.device() > 0xFFFF) return Status::InvalidArgument("device must be below 65536");
    f.device = static_cast<uint16_t>(request.device());
  }
  f.session = request.session_id();
  f.pid = request.pid();
  f.label = request.label();
  f.min_duration_ns = request.min_duration_ns();
  f.events = request.events() || !request.spans();
  f.spans = request.spans();
  f.uid = uid;
  return f;
}

}  // namespace optrace::daemon
