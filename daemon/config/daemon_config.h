// optraced's settings: defaults, then the TOML config file, then flags.
#ifndef OPTRACE_DAEMON_CONFIG_DAEMON_CONFIG_H_
#define OPTRACE_DAEMON_CONFIG_DAEMON_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/byte_size.h"  // ParseByteSize, for the flags and keys of sizes
#include "common/status.h"
#include "model/keep.h"
#include "optrace/abi.h"

namespace optrace::daemon {

// A live-level rule: producers whose session label matches `label_pattern`
// (RE2, full match) get at least `level`.
struct LevelRule {
  std::string label_pattern;
  abi::LevelValue level = abi::LevelValue::kOff;

  bool operator==(const LevelRule&) const = default;
};

// Forwarding of stored spans to ClickHouse (daemon/forward/, docs/fleet.md).
// Off while `url` is "".
struct ForwardConfig {
  std::string url;                   // ClickHouse's HTTP interface, http(s)://HOST:PORT
  std::string database = "optrace";  // created if absent
  std::string table = "spans";       // what fleet queries read (see cluster)
  // "" = one ClickHouse server: `table` is a ReplacingMergeTree. Else the
  // name of a cluster of ClickHouse's remote_servers: spans go to
  // `table`_local on the server at `url`, and `table` is a Distributed table
  // over every shard's `table`_local.
  std::string cluster;
  uint64_t batch_spans = 100'000;             // spans per INSERT, at most
  int64_t flush_interval_ns = 1'000'000'000;  // a partial batch waits at most this long
  std::string credentials_file;               // "user:password" on its first line; "" = none
  bool gzip = false;                          // compress INSERT bodies

  bool operator==(const ForwardConfig&) const = default;
};

struct DaemonConfig {
  std::string socket;    // Unix socket of the gRPC API
  std::string listen;    // HOST:PORT for TCP, "" = none
  std::string tls_cert;  // PEM files for TCP beyond loopback
  std::string tls_key;
  // Who TCP callers are (docs/security.md): a folder of per-user bearer
  // token files, and the CA whose client certificates name users; one of
  // them (or insecure_tcp_admin) is required with `listen`.
  std::string listen_token_dir;
  std::string tls_client_ca;
  // Serve TCP without identifying callers, every one an admin (the
  // behaviour before TCP callers were identified); optrace status warns.
  bool insecure_tcp_admin = false;
  std::string db;                                 // SQLite file
  std::string ns = "optrace";                     // shm namespace
  abi::LevelValue level = abi::LevelValue::kOff;  // default live level
  std::vector<LevelRule> level_rules;
  uint64_t retention_max_bytes = 1ULL << 30;                       // 0 = unbounded
  int64_t retention_max_age_ns = 7LL * 24 * 3600 * 1'000'000'000;  // 0 = unbounded
  uint64_t uid_max_bytes = 0;  // span page bytes of one uid's sessions; 0 = unbounded
  // The rolling window of a running session (docs/daemon.md says why these
  // defaults): its last 10 minutes, at most 256 MiB of span pages.
  int64_t keep_last_ns = 10LL * 60 * 1'000'000'000;  // 0 = keep everything
  uint64_t keep_last_bytes = uint64_t{256} << 20;    // 0 = unbounded
  // What keeps may hold (docs/daemon.md: keeps): page bytes per session
  // and per uid; 0 = unbounded, but never over half of retention_max_bytes.
  uint64_t keep_session_max_bytes = uint64_t{64} << 20;
  uint64_t keep_uid_max_bytes = uint64_t{256} << 20;
  // The window a keep triggered at a moment holds around it (a crash, a
  // slow op): keep_before before and keep_after after. keep_after also
  // bounds how far any keep may reach past its session's newest span.
  int64_t keep_before_ns = 30LL * 1'000'000'000;
  int64_t keep_after_ns = 10LL * 1'000'000'000;
  std::vector<KeepRule> keep_rules;           // [[keep_rule]]: latency rules of keeps
  std::vector<uint32_t> allowed_uids;         // producers of these uids are served too
  std::string socket_group = "optrace";       // members may connect to the socket
  std::string admin_group = "optrace-admin";  // members see and control every uid's sessions
  bool debug_log = false;
  std::string node;  // this machine's name in the fleet; "" = the host name
  ForwardConfig forward;
  // Per-uid caps of the streaming calls (Tail, QueryOps, Export): streams
  // open at once, and bytes handed to gRPC that the clients have not read.
  uint64_t max_streams_per_uid = 1024;
  // Producer segments of one uid attached at once (each holds two file
  // descriptors and a mapping); more wait until one of its sessions ends.
  uint64_t max_segments_per_uid = 256;
  uint64_t max_bytes_in_flight_per_uid = uint64_t{64} << 20;
  // QueryOps and Export streams served at once, all uids together and of
  // one uid: each runs its scan on a thread of its own while it streams
  // (a GetStats pass over a large session takes a second thread from the
  // same share, or reads on one).
  uint64_t max_threaded_streams = 16;
  uint64_t max_threaded_streams_per_uid = 4;
  // Unary requests (docs/daemon.md: bounds on requests): groups one
  // GetStats collects and returns (and stored groups a session of a
  // CompareSessions may have); memory a GetStats pass keeps for exact
  // percentiles (then sketches); open ops a GetSession returns.
  uint64_t max_query_groups = 16'384;
  uint64_t max_query_durations_bytes = uint64_t{256} << 20;
  uint64_t max_open_ops_returned = 1000;
  // The metrics endpoint (docs/daemon.md: metrics): HOST:PORT of GET
  // /metrics, "" = off; the bearer token's file ("" = none), and whether a
  // non-loopback address may serve without one.
  std::string metrics_listen;
  std::string metrics_token_file;
  bool metrics_insecure = false;
  // Its cardinality caps (OpMetricsLimits): series one session's names
  // may have, and series of all sessions together.
  uint64_t metrics_max_names_per_session = 200;
  uint64_t metrics_max_series = 2000;
  // The labels of the op series (OpLabelSet::Parse checks the words when
  // the endpoint starts), and how long a series no running session counts
  // in is kept.
  std::vector<std::string> metrics_labels = {"name", "target"};
  int64_t metrics_series_grace_ns = int64_t{300} * 1'000'000'000;
  // Source listings (docs/daemon.md: listings): whether producers' listing
  // areas are read, and what one session may store (text bytes, distinct
  // files); more is counted as capped.
  bool listings = true;
  uint64_t listing_max_bytes = uint64_t{4} << 20;
  uint64_t listing_max_files = 1024;
};

// Limits of forward_clickhouse_batch_spans: one INSERT of at most this many
// rows is one block for ClickHouse (max_insert_block_size is 1048576),
// which it writes whole or not at all.
inline constexpr uint64_t kMinForwardBatchSpans = 1;
// The most distinct files one session's listings may name.
inline constexpr uint64_t kMaxListingFiles = 1'000'000;
inline constexpr uint64_t kMaxForwardBatchSpans = 1'000'000;

// `config.node`, or the host name when it is "" ("localhost" when even
// that cannot be read).
std::string NodeName(const DaemonConfig& config);

// Defaults for the calling user, per the design: socket and database under
// the runtime and state folders (root: /run/optrace, /var/lib/optrace),
// namespace and socket from OPTRACE_NAMESPACE and OPTRACE_SOCKET.
DaemonConfig DefaultConfig();

// Overlays the TOML file at `path` on `config`. Unknown keys, wrong types
// and invalid values are errors naming the key, the value and what is
// expected ("retention_max_bytes: '12XB' is not a size like 512MiB").
Status ApplyConfigFile(const std::string& path, DaemonConfig* config);

// When a changed value of a config key takes effect in a running daemon.
enum class ReloadRule {
  kLiveOnSighup,  // SIGHUP applies it at once
  kAtRestart,     // SIGHUP keeps the running value (and says so); a restart applies it
};

// One key of the config file, as the key table in daemon_config.cc has it.
struct ConfigKey {
  std::string_view name;
  ReloadRule reload;
};

// Every key ApplyConfigFile knows, in the order its unknown-key error lists
// them.
std::vector<ConfigKey> ConfigKeys();

// The keys with reload rule `rule` whose values differ between `running`
// and `reloaded`, in ConfigKeys() order.
std::vector<std::string_view> ChangedConfigKeys(const DaemonConfig& running,
                                                const DaemonConfig& reloaded, ReloadRule rule);

// Parses "250ms", "30s", "15m", "12h", "7d" or plain seconds into nanoseconds.
std::optional<int64_t> ParseDurationNs(const std::string& text);

// Checks cross-field rules once everything is applied (namespace
// characters, TLS files in pairs, a way to identify TCP callers with
// `listen`, absolute paths, the forwarder's URL, names and limits...).
Status ValidateConfig(const DaemonConfig& config);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_CONFIG_DAEMON_CONFIG_H_
