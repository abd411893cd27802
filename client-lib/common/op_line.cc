#include "common/op_line.h"

namespace optrace {

std::string_view TargetKindName(abi::TargetKind target) {
  switch (target) {
    case abi::TargetKind::kCpu: return "cpu";
    case abi::TargetKind::kGpu: return "gpu";
    case abi::TargetKind::kOther: return "other";
    case abi::TargetKind::kNone: break;
  }
  return "none";
}

bool ParseTargetKind(std::string_view text, abi::TargetKind* out) {
  for (auto t : {abi::TargetKind::kCpu, abi::TargetKind::kGpu, abi::TargetKind::kOther}) {
    if (text == TargetKindName(t)) {
      *out = t;
      return true;
    }
  }
  return false;
}

std::string_view EventKindWord(abi::EventKind kind) {
  switch (kind) {
    case abi::EventKind::kLaunch: return "LAUNCH";
    case abi::EventKind::kComplete: return "COMPLETE";
    case abi::EventKind::kMark: return "MARK";
    case abi::EventKind::kCounter: return "COUNTER";
  }
  return "UNKNOWN";
}

std::string FormatOpLine(abi::EventKind kind, std::string_view name, uint64_t op_id,
                         abi::TargetKind target, uint32_t device, int64_t counter_value) {
  std::string line;
  line.reserve(64 + name.size());
  const std::string target_text =
      std::string(TargetKindName(target)) + ":" + std::to_string(device);
  switch (kind) {
    case abi::EventKind::kLaunch:
    case abi::EventKind::kComplete:
      line.append("[OP] ").append(EventKindWord(kind)).append(" ").append(name);
      line.append(" [id=").append(std::to_string(op_id)).append("] target=").append(target_text);
      break;
    case abi::EventKind::kMark:
      line.append("[MARK] ").append(name).append(" target=").append(target_text);
      break;
    case abi::EventKind::kCounter:
      line.append("[COUNTER] ").append(name).append(" value=").append(std::to_string(counter_value));
      break;
  }
  return line;
}

}  // namespace optrace
