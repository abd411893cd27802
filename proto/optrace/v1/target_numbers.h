// How the API's Target enum (optrace.proto) numbers the targets: as the
// ABI's target kinds (optrace/abi.h TargetKind: cpu 1, gpu 2, other 3),
// with the ABI's kNone ("no target", "any" in a filter) as
// TARGET_UNSPECIFIED (0), proto3's default. The one statement of that
// mapping for the daemon and its clients.
#ifndef OPTRACE_V1_TARGET_NUMBERS_H_
#define OPTRACE_V1_TARGET_NUMBERS_H_

#include <optional>

#include "optrace/abi.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::v1 {

// The API's Target for `kind`: TARGET_UNSPECIFIED for kNone.
constexpr Target TargetFromKind(abi::TargetKind kind) {
  switch (kind) {
    case abi::TargetKind::kCpu:
      return TARGET_CPU;
    case abi::TargetKind::kGpu:
      return TARGET_GPU;
    case abi::TargetKind::kOther:
      return TARGET_OTHER;
    case abi::TargetKind::kNone:
      break;
  }
  return TARGET_UNSPECIFIED;
}

// The ABI's kind for `target`: kNone for TARGET_UNSPECIFIED; nullopt for a
// number that is no Target of this build (a newer peer's, or any int a
// request carried).
constexpr std::optional<abi::TargetKind> KindFromTarget(int target) {
  switch (target) {
    case TARGET_UNSPECIFIED:
      return abi::TargetKind::kNone;
    case TARGET_CPU:
      return abi::TargetKind::kCpu;
    case TARGET_GPU:
      return abi::TargetKind::kGpu;
    case TARGET_OTHER:
      return abi::TargetKind::kOther;
    default:
      return std::nullopt;
  }
}

// Every kind maps to a Target and back; the proto has no Target beyond
// them (tests/unit/daemon/wire/target_numbers_test.cc walks the proto's
// descriptor too, for values added out of order).
static_assert(Target_MAX == TARGET_OTHER && abi::kMaxTargetKind == 3,
              "a new target needs its case in TargetFromKind and KindFromTarget");
static_assert(KindFromTarget(TargetFromKind(abi::TargetKind::kNone)) == abi::TargetKind::kNone);
static_assert(KindFromTarget(TargetFromKind(abi::TargetKind::kCpu)) == abi::TargetKind::kCpu);
static_assert(KindFromTarget(TargetFromKind(abi::TargetKind::kGpu)) == abi::TargetKind::kGpu);
static_assert(KindFromTarget(TargetFromKind(abi::TargetKind::kOther)) == abi::TargetKind::kOther);
static_assert(TargetFromKind(*KindFromTarget(TARGET_UNSPECIFIED)) == TARGET_UNSPECIFIED);
static_assert(TargetFromKind(*KindFromTarget(TARGET_CPU)) == TARGET_CPU);
static_assert(TargetFromKind(*KindFromTarget(TARGET_GPU)) == TARGET_GPU);
static_assert(TargetFromKind(*KindFromTarget(TARGET_OTHER)) == TARGET_OTHER);
static_assert(!KindFromTarget(Target_MAX + 1) && !KindFromTarget(-1));

}  // namespace optrace::v1

#endif  // OPTRACE_V1_TARGET_NUMBERS_H_
