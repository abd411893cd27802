// What a Tail request asks for, checked: the filter its subscription
// applies, or the error that names the field to fix.
#ifndef OPTRACE_DAEMON_LIVE_TAIL_REQUEST_H_
#define OPTRACE_DAEMON_LIVE_TAIL_REQUEST_H_

#include <cstdint>
#include <optional>

#include "common/status.h"
#include "live/tail_subscription.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// Validates `request` and compiles its pattern. `uid` restricts the tail to
// one user's producers (callers who may see only their own sessions).
// Errors (kInvalidArgument) name the field: an unknown level or target, a
// pattern RE2 refuses or longer than kMaxPatternBytes, a device above
// 65535. Thread rules: pure.
Result<TailSubscription::Filter> TailFilterFromRequest(const v1::TailRequest& request,
                                                       std::optional<uint32_t> uid);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_TAIL_REQUEST_H_
