// Ops recorded after they finished (optrace/finished_op.hpp).
#include "optrace/finished_op.hpp"

namespace optrace {

uint64_t RecordFinishedOp(const FinishedOp& op) noexcept {
  if (op.name_id == abi::kStringNone || op.complete_ts < op.launch_ts) return 0;
  if (op.placement.target != Target::kCpu && op.placement.target != Target::kGpu &&
      op.placement.target != Target::kOther) {
    return 0;
  }
  if (!detail::LevelEnabled(abi::LevelValue::kTrace)) return 0;
  detail::ThreadWriter& w = detail::tls_writer;
  const uint64_t id = detail::NextOpId(w);
  detail::Emit([&](abi::OpEvent& e) {
    detail::FillEvent(e, abi::EventKind::kLaunch, op.name_id, op.tag_id, op.srcloc_id, op.placement,
                      id, op.parent_op_id);
    e.ts = op.launch_ts;
  });
  detail::Emit([&](abi::OpEvent& e) {
    detail::FillEvent(e, abi::EventKind::kComplete, op.name_id, op.tag_id, op.srcloc_id,
                      op.placement, id, op.parent_op_id);
    e.ts = op.complete_ts;
    if (op.device_duration_ns != 0) {
      e.arg = op.device_duration_ns;
      e.flags = abi::kFlagDeviceDuration;
    }
  });
  return id;
}

}  // namespace optrace
