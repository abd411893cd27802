// optraced's settings: defaults, then the TOML config file, then flags.
#ifndef OPTRACE_DAEMON_CONFIG_DAEMON_CONFIG_H_
#define OPTRACE_DAEMON_CONFIG_DAEMON_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "optrace/abi.h"

namespace optrace::daemon {

// A live-level rule: producers whose session label matches `label_pattern`
// (RE2, full match) get at least `level`.
struct LevelRule {
  std::string label_pattern;
  abi::LevelValue level = abi::LevelValue::kOff;
};

struct DaemonConfig {
  std::string socket;                 // Unix socket of the gRPC API
  std::string listen;                 // HOST:PORT for TCP, "" = none
  std::string tls_cert;               // PEM files for TCP beyond loopback
  std::string tls_key;
  std::string db;                     // SQLite file
  std::string ns = "optrace";         // shm namespace
  abi::LevelValue level = abi::LevelValue::kOff;  // default live level
  std::vector<LevelRule> level_rules;
  uint64_t retention_max_bytes = 1ULL << 30;       // 0 = unbounded
  int64_t retention_max_age_ns = 7LL * 24 * 3600 * 1'000'000'000;  // 0 = unbounded
  std::vector<uint32_t> allowed_uids;  // producers of these uids are served too
  std::string admin_group = "optrace";  // members see and control every uid's sessions
  bool debug_log = false;
};

// Defaults for the calling user, per the design: socket and database under
// the runtime and state folders (root: /run/optrace, /var/lib/optrace),
// namespace and socket from OPTRACE_NAMESPACE and OPTRACE_SOCKET.
DaemonConfig DefaultConfig();

// Overlays the TOML file at `path` on `config`. Unknown keys, wrong types
// and invalid values are errors naming the key, the value and what is
// expected ("retention_max_bytes: '12XB' is not a size like 512MiB").
Status ApplyConfigFile(const std::string& path, DaemonConfig* config);

// Parses "1073741824", "512MiB", "1GB", "64k"... into bytes.
std::optional<uint64_t> ParseByteSize(const std::string& text);
// Parses "30s", "15m", "12h", "7d" or plain seconds into nanoseconds.
std::optional<int64_t> ParseDurationNs(const std::string& text);

// Checks cross-field rules once everything is applied (namespace
// characters, TLS files in pairs, absolute paths...).
Status ValidateConfig(const DaemonConfig& config);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_CONFIG_DAEMON_CONFIG_H_
