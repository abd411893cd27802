#include "producer_options.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "common/level_names.h"
#include "common/segment_name.h"

namespace optrace::client {
namespace {

// A longer start-up wait would stall a process start for a daemon that is
// stuck; ten seconds is already far beyond any healthy attach.
constexpr uint32_t kMaxAttachTimeoutMs = 10'000;
// A lossless wait longer than a minute is a hung daemon, not a slow one.
constexpr uint32_t kMaxFullRingTimeoutMs = 60'000;
// Lines of a listing on each side of its op's line: a screenful is plenty.
constexpr uint32_t kMaxListingContext = 200;
// The listing area: room for one small file at least, 16 MiB at most (it
// is reserved memory in /dev/shm, per process).
constexpr uint32_t kMinListingBytes = 4096;
constexpr uint32_t kMaxListingBytes = 16u << 20;

void Warn(const char* variable, std::string_view value, std::string_view problem,
          std::string_view fallback) {
  std::fprintf(stderr, "optrace: %s=%.*s %.*s; using %.*s\n", variable,
               static_cast<int>(value.size()), value.data(), static_cast<int>(problem.size()),
               problem.data(), static_cast<int>(fallback.size()), fallback.data());
}

// Reads an unsigned variable in [lo, hi]; a power of two when `pow2`.
void ReadCount(const char* variable, uint32_t lo, uint32_t hi, bool pow2, uint32_t* out) {
  const char* raw = std::getenv(variable);
  if (raw == nullptr || *raw == '\0') return;
  const std::string_view text(raw);
  uint32_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool ok = ec == std::errc() && ptr == text.data() + text.size() && v >= lo && v <= hi &&
                  (!pow2 || (v & (v - 1)) == 0);
  if (ok) {
    *out = v;
    return;
  }
  const std::string problem = std::string("is not ") + (pow2 ? "a power of two " : "a number ") +
                              "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  Warn(variable, text, problem, std::to_string(*out));
}

// Reads a variable of two words: `on` sets `*out`, `off` clears it; any
// other value leaves the default in `*out`.
void ReadSwitch(const char* variable, std::string_view on, std::string_view off, bool* out) {
  const char* raw = std::getenv(variable);
  if (raw == nullptr || *raw == '\0') return;
  const std::string_view value(raw);
  if (value == on || value == off) {
    *out = value == on;
    return;
  }
  Warn(variable, value, "is not " + std::string(on) + " or " + std::string(off), *out ? on : off);
}

}  // namespace

ProducerOptions ReadProducerOptions() {
  ProducerOptions o;
  if (const char* ns = std::getenv("OPTRACE_NAMESPACE"); ns != nullptr && *ns != '\0') {
    if (IsValidNamespace(ns)) {
      o.ns = ns;
    } else {
      Warn("OPTRACE_NAMESPACE", ns, "is not 1-64 characters of [A-Za-z0-9_-]", o.ns);
    }
  }
  if (const char* lv = std::getenv("OPTRACE_LEVEL"); lv != nullptr && *lv != '\0') {
    if (auto parsed = ParseLevel(lv)) {
      o.level = *parsed;
    } else {
      Warn("OPTRACE_LEVEL", lv, std::string("is not one of ") + std::string(LevelNameList()),
           "off");
    }
  }
  if (const char* label = std::getenv("OPTRACE_SESSION"); label != nullptr) {
    o.session_label = label;
    if (o.session_label.size() >= abi::kLabelBytes) o.session_label.resize(abi::kLabelBytes - 1);
  }
  ReadSwitch("OPTRACE_SINK", "stderr", "none", &o.sink_stderr);
  ReadSwitch("OPTRACE_FULL_RING", "wait", "drop", &o.full_ring_wait);
  ReadCount("OPTRACE_FULL_RING_TIMEOUT_MS", 1, kMaxFullRingTimeoutMs, false,
            &o.full_ring_timeout_ms);
  ReadCount("OPTRACE_RING_COUNT", 1, abi::kMaxRings, false, &o.ring_count);
  ReadCount("OPTRACE_RING_CAPACITY", abi::kMinRingCapacity, abi::kMaxRingCapacity, true,
            &o.ring_capacity);
  ReadCount("OPTRACE_ATTACH_TIMEOUT_MS", 0, kMaxAttachTimeoutMs, false, &o.attach_timeout_ms);
  ReadSwitch("OPTRACE_LISTINGS", "1", "0", &o.listings);
  ReadCount("OPTRACE_LISTING_CONTEXT", 0, kMaxListingContext, false, &o.listing_context);
  ReadCount("OPTRACE_LISTING_BYTES", kMinListingBytes, kMaxListingBytes, false,
            &o.listing_blob_bytes);
  return o;
}

}  // namespace optrace::client
