#include "config/daemon_config.h"

#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <iterator>

#include "common/default_paths.h"
#include "common/level_names.h"
#include "common/segment_name.h"

namespace optrace::daemon {
namespace {

std::string Quote(const std::string& s) { return "'" + s + "'"; }

// Splits "512MiB" into 512 and "MiB".
Status BadValue(const std::string& key, const std::string& value, const std::string& expected) {
  return Status::InvalidArgument(key + ": " + Quote(value) + " is not " + expected);
}

// Every Read* below reads the TOML value `node` of key `key` into `out`,
// or returns an error that names the key (and the value, where it is not
// of the wrong type) and says what is expected.

// Reads a key that may be written as a number or as a string with a unit:
// `Parse` turns the text into the value; `kExpected` says what it accepts.
template <auto Parse, const char* kExpected>
Status ReadUnitValue(const toml::node& node, const std::string& key,
                     typename decltype(Parse(std::string()))::value_type* out) {
  const std::string expected = kExpected;
  std::string text;
  if (auto i = node.value<int64_t>(); i && node.is_integer()) {
    if (*i < 0) return BadValue(key, std::to_string(*i), expected);
    text = std::to_string(*i);
  } else if (auto s = node.value<std::string>()) {
    text = *s;
  } else {
    return Status::InvalidArgument(key + ": expected " + expected);
  }
  const auto parsed = Parse(text);
  if (!parsed) return BadValue(key, text, expected);
  *out = *parsed;
  return Status::Ok();
}

Status ReadString(const toml::node& node, const std::string& key, std::string* out) {
  auto s = node.value<std::string>();
  if (!s || !node.is_string()) return Status::InvalidArgument(key + ": expected a string");
  *out = *s;
  return Status::Ok();
}

Status ReadLevel(const toml::node& node, const std::string& key, abi::LevelValue* out) {
  std::string text;
  if (Status st = ReadString(node, key, &text); !st.ok()) return st;
  const auto level = ParseLevel(text);
  if (!level) return BadValue(key, text, "a level (" + std::string(LevelNameList()) + ")");
  *out = *level;
  return Status::Ok();
}

Status ReadLevelRules(const toml::node& node, const std::string& key, std::vector<LevelRule>* out) {
  const toml::array* rules = node.as_array();
  if (rules == nullptr) {
    return Status::InvalidArgument(key + ": expected [[" + key + "]] tables");
  }
  out->clear();
  for (size_t i = 0; i < rules->size(); ++i) {
    const std::string where = key + "[" + std::to_string(i) + "]";
    const toml::table* t = (*rules)[i].as_table();
    if (t == nullptr) return Status::InvalidArgument(where + ": expected a table");
    LevelRule rule;
    for (const auto& [k, v] : *t) {
      const std::string field(k.str());
      Status st =
          field == "label" ? ReadString(v, where + ".label", &rule.label_pattern)
          : field == "level"
              ? ReadLevel(v, where + ".level", &rule.level)
              : Status::InvalidArgument(where + "." + field + ": unknown key (label, level)");
      if (!st.ok()) return st;
    }
    if (rule.label_pattern.empty()) return Status::InvalidArgument(where + ": label is required");
    out->push_back(std::move(rule));
  }
  return Status::Ok();
}

Status ReadBool(const toml::node& node, const std::string& key, bool* out) {
  auto b = node.value<bool>();
  if (!b || !node.is_boolean()) return Status::InvalidArgument(key + ": expected true or false");
  *out = *b;
  return Status::Ok();
}

Status ReadCount(const toml::node& node, const std::string& key, uint64_t* out) {
  auto i = node.value<int64_t>();
  if (!i || !node.is_integer() || *i < 0) {
    return Status::InvalidArgument(key + ": expected a whole number of at least 0");
  }
  *out = static_cast<uint64_t>(*i);
  return Status::Ok();
}

// A ClickHouse database, table or cluster name that needs no quoting.
bool IsPlainIdentifier(const std::string& name) {
  if (name.empty() || name.size() > 64 || std::isdigit(static_cast<unsigned char>(name[0]))) {
    return false;
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

Status ValidateForward(const ForwardConfig& f) {
  if (f.url.empty()) return Status::Ok();
  if (f.url.rfind("http://", 0) != 0 && f.url.rfind("https://", 0) != 0) {
    return Status::InvalidArgument(
        "forward_clickhouse_url must be ClickHouse's HTTP interface, like http://HOST:8123 "
        "(it starts with http:// or https://)");
  }
  const std::pair<const char*, const std::string*> names[] = {
      {"forward_clickhouse_database", &f.database},
      {"forward_clickhouse_table", &f.table},
  };
  for (const auto& [key, value] : names) {
    if (!IsPlainIdentifier(*value)) {
      return Status::InvalidArgument(std::string(key) + " " + Quote(*value) +
                                     " must be 1-64 characters of [A-Za-z0-9_], not starting "
                                     "with a digit");
    }
  }
  if (!f.cluster.empty() && !IsPlainIdentifier(f.cluster)) {
    return Status::InvalidArgument("forward_clickhouse_cluster " + Quote(f.cluster) +
                                   " must be 1-64 characters of [A-Za-z0-9_], not starting with "
                                   "a digit (or \"\" for one server)");
  }
  if (f.batch_spans < kMinForwardBatchSpans || f.batch_spans > kMaxForwardBatchSpans) {
    return Status::InvalidArgument(
        "forward_clickhouse_batch_spans " + std::to_string(f.batch_spans) + " must be between " +
        std::to_string(kMinForwardBatchSpans) + " and " + std::to_string(kMaxForwardBatchSpans));
  }
  if (f.flush_interval_ns <= 0) {
    return Status::InvalidArgument("forward_clickhouse_flush_interval must be above 0");
  }
  return Status::Ok();
}

Status ReadStrings(const toml::node& node, const std::string& key, std::vector<std::string>* out) {
  const toml::array* words = node.as_array();
  if (words == nullptr) return Status::InvalidArgument(key + ": expected an array of strings");
  out->clear();
  for (const auto& word : *words) {
    auto text = word.value<std::string>();
    if (!text || !word.is_string()) {
      return Status::InvalidArgument(key + ": every entry must be a string");
    }
    out->push_back(*text);
  }
  return Status::Ok();
}

// The rule of every TCP listener (docs/security.md): `listen` serves
// only callers it can identify, unless insecure_tcp_admin says otherwise.
Status ValidateTcpIdentity(const DaemonConfig& c) {
  const std::pair<const char*, const std::string*> paths[] = {
      {"listen_token_dir", &c.listen_token_dir},
      {"tls_client_ca", &c.tls_client_ca},
  };
  for (const auto& [key, path] : paths) {
    if (!path->empty() && (*path)[0] != '/') {
      return Status::InvalidArgument(std::string(key) + " " + Quote(*path) +
                                     " must be an absolute path");
    }
  }
  const bool identifies = !c.listen_token_dir.empty() || !c.tls_client_ca.empty();
  if (c.insecure_tcp_admin && identifies) {
    return Status::InvalidArgument(
        "insecure_tcp_admin = true makes every TCP caller an admin without credentials: it "
        "cannot be combined with listen_token_dir or tls_client_ca; remove one or the other");
  }
  if (!c.tls_client_ca.empty() && c.tls_cert.empty()) {
    return Status::InvalidArgument(
        "tls_client_ca needs tls_cert and tls_key: client certificates are part of TLS");
  }
  if (!c.listen.empty() && !identifies && !c.insecure_tcp_admin) {
    return Status::InvalidArgument(
        "listen " + Quote(c.listen) +
        ": optraced serves TCP only to callers it can identify: set listen_token_dir "
        "(--listen-token-dir, a folder of per-user bearer token files), or tls_client_ca "
        "(--tls-client-ca) with tls_cert and tls_key (client certificates naming users); or set "
        "insecure_tcp_admin = true (--insecure-tcp-admin) to make every TCP caller an admin "
        "without credentials, which optrace status then reports");
  }
  return Status::Ok();
}

Status ReadUids(const toml::node& node, const std::string& key, std::vector<uint32_t>* out) {
  const toml::array* uids = node.as_array();
  if (uids == nullptr) return Status::InvalidArgument(key + ": expected an array of uids");
  out->clear();
  for (const auto& u : *uids) {
    auto v = u.value<int64_t>();
    if (!v || !u.is_integer() || *v < 0 || *v > 0xFFFFFFFFLL) {
      return Status::InvalidArgument(key + ": every entry must be a uid (0..4294967295)");
    }
    out->push_back(static_cast<uint32_t>(*v));
  }
  return Status::Ok();
}

// The field of `object` that member pointers `First, Rest...` lead to, from
// DaemonConfig down (&DaemonConfig::forward, &ForwardConfig::url).
template <auto First, auto... Rest>
auto& FieldOf(auto& object) {
  if constexpr (sizeof...(Rest) == 0) {
    return object.*First;
  } else {
    return FieldOf<Rest...>(object.*First);
  }
}

// One row of the key table: the key, how its value is read into the
// config, whether two configs hold the same value for it, and when a
// changed value takes effect.
struct ConfigKeyRow {
  std::string_view name;
  Status (*apply)(const toml::node& value, const std::string& key, DaemonConfig* config);
  bool (*same)(const DaemonConfig& a, const DaemonConfig& b);
  ReloadRule reload;
};

// The row of key `name`, read by `Read` into the field at `Path`.
template <auto Read, auto... Path>
constexpr ConfigKeyRow Key(std::string_view name, ReloadRule reload) {
  return {name,
          [](const toml::node& value, const std::string& key, DaemonConfig* config) {
            return Read(value, key, &FieldOf<Path...>(*config));
          },
          [](const DaemonConfig& a, const DaemonConfig& b) {
            return FieldOf<Path...>(a) == FieldOf<Path...>(b);
          },
          reload};
}

constexpr char kSizeLike1GiB[] = "a size like 1GiB or 536870912";
constexpr char kSizeLike64MiB[] = "a size like 64MiB or 67108864";
constexpr char kDurationLike7d[] = "a duration like 7d, 12h or 3600";
constexpr char kDurationLike500ms[] = "a duration like 500ms, 2s or 1m";
constexpr char kDurationLike10m[] = "a duration like 10m, 30s or 1h (0 keeps everything)";
constexpr char kSizeLike256MiB[] = "a size like 256MiB or 268435456 (0 = unbounded)";

// [[keep_rule]] tables: name (required), tag (optional), slower_than
// (required, above 0).
Status ReadKeepRules(const toml::node& node, const std::string& key, std::vector<KeepRule>* out) {
  const toml::array* rules = node.as_array();
  if (rules == nullptr) return Status::InvalidArgument(key + ": expected [[" + key + "]] tables");
  out->clear();
  for (size_t i = 0; i < rules->size(); ++i) {
    const std::string where = key + "[" + std::to_string(i) + "]";
    const toml::table* t = (*rules)[i].as_table();
    if (t == nullptr) return Status::InvalidArgument(where + ": expected a table");
    KeepRule rule;
    for (const auto& [k, v] : *t) {
      const std::string field(k.str());
      Status st = field == "name"  ? ReadString(v, where + ".name", &rule.name)
                  : field == "tag" ? ReadString(v, where + ".tag", &rule.tag)
                  : field == "slower_than"
                      ? ReadUnitValue<ParseDurationNs, kDurationLike500ms>(
                            v, where + ".slower_than", &rule.slower_than_ns)
                      : Status::InvalidArgument(where + "." + field +
                                                ": unknown key (name, tag, slower_than)");
      if (!st.ok()) return st;
    }
    if (rule.name.empty()) return Status::InvalidArgument(where + ": name is required");
    if (rule.slower_than_ns <= 0) {
      return Status::InvalidArgument(where + ": slower_than is required (above 0)");
    }
    out->push_back(std::move(rule));
  }
  return Status::Ok();
}

// Short names for the table below.
using C = DaemonConfig;
using F = ForwardConfig;
constexpr ReloadRule kLive = ReloadRule::kLiveOnSighup;
constexpr ReloadRule kRestart = ReloadRule::kAtRestart;

// Every key of the config file, in the order the unknown-key error lists
// them. Only the level policy (level, level_rule) is re-applied on SIGHUP.
constexpr ConfigKeyRow kConfigKeys[] = {
    Key<ReadString, &C::socket>("socket", kRestart),
    Key<ReadString, &C::listen>("listen", kRestart),
    Key<ReadString, &C::tls_cert>("tls_cert", kRestart),
    Key<ReadString, &C::tls_key>("tls_key", kRestart),
    Key<ReadString, &C::listen_token_dir>("listen_token_dir", kRestart),
    Key<ReadString, &C::tls_client_ca>("tls_client_ca", kRestart),
    Key<ReadBool, &C::insecure_tcp_admin>("insecure_tcp_admin", kRestart),
    Key<ReadString, &C::db>("db", kRestart),
    Key<ReadString, &C::ns>("namespace", kRestart),
    Key<ReadLevel, &C::level>("level", kLive),
    Key<ReadLevelRules, &C::level_rules>("level_rule", kLive),
    Key<ReadUnitValue<ParseByteSize, kSizeLike1GiB>, &C::retention_max_bytes>("retention_max_bytes",
                                                                              kRestart),
    Key<ReadUnitValue<ParseDurationNs, kDurationLike7d>, &C::retention_max_age_ns>(
        "retention_max_age", kRestart),
    Key<ReadUnitValue<ParseByteSize, kSizeLike256MiB>, &C::uid_max_bytes>("uid_max_bytes",
                                                                          kRestart),
    Key<ReadUnitValue<ParseDurationNs, kDurationLike10m>, &C::keep_last_ns>("keep_last", kRestart),
    Key<ReadUnitValue<ParseByteSize, kSizeLike256MiB>, &C::keep_last_bytes>("keep_last_bytes",
                                                                            kRestart),
    Key<ReadUnitValue<ParseByteSize, kSizeLike256MiB>, &C::keep_session_max_bytes>(
        "keep_session_max_bytes", kRestart),
    Key<ReadUnitValue<ParseByteSize, kSizeLike256MiB>, &C::keep_uid_max_bytes>("keep_uid_max_bytes",
                                                                               kRestart),
    Key<ReadUnitValue<ParseDurationNs, kDurationLike500ms>, &C::keep_before_ns>("keep_before",
                                                                                kRestart),
    Key<ReadUnitValue<ParseDurationNs, kDurationLike500ms>, &C::keep_after_ns>("keep_after",
                                                                               kRestart),
    Key<ReadKeepRules, &C::keep_rules>("keep_rule", kRestart),
    Key<ReadUids, &C::allowed_uids>("allowed_uids", kRestart),
    Key<ReadString, &C::socket_group>("socket_group", kRestart),
    Key<ReadString, &C::admin_group>("admin_group", kRestart),
    Key<ReadBool, &C::debug_log>("debug_log", kRestart),
    Key<ReadString, &C::node>("node", kRestart),
    Key<ReadString, &C::forward, &F::url>("forward_clickhouse_url", kRestart),
    Key<ReadString, &C::forward, &F::database>("forward_clickhouse_database", kRestart),
    Key<ReadString, &C::forward, &F::table>("forward_clickhouse_table", kRestart),
    Key<ReadString, &C::forward, &F::cluster>("forward_clickhouse_cluster", kRestart),
    Key<ReadCount, &C::forward, &F::batch_spans>("forward_clickhouse_batch_spans", kRestart),
    Key<ReadUnitValue<ParseDurationNs, kDurationLike500ms>, &C::forward, &F::flush_interval_ns>(
        "forward_clickhouse_flush_interval", kRestart),
    Key<ReadString, &C::forward, &F::credentials_file>("forward_clickhouse_credentials_file",
                                                       kRestart),
    Key<ReadBool, &C::forward, &F::gzip>("forward_clickhouse_gzip", kRestart),
    Key<ReadCount, &C::max_streams_per_uid>("max_streams_per_uid", kRestart),
    Key<ReadCount, &C::max_segments_per_uid>("max_segments_per_uid", kRestart),
    Key<ReadUnitValue<ParseByteSize, kSizeLike64MiB>, &C::max_bytes_in_flight_per_uid>(
        "max_bytes_in_flight_per_uid", kRestart),
    Key<ReadCount, &C::max_threaded_streams>("max_threaded_streams", kRestart),
    Key<ReadCount, &C::max_threaded_streams_per_uid>("max_threaded_streams_per_uid", kRestart),
    Key<ReadCount, &C::max_query_groups>("max_query_groups", kRestart),
    Key<ReadUnitValue<ParseByteSize, kSizeLike64MiB>, &C::max_query_durations_bytes>(
        "max_query_durations_bytes", kRestart),
    Key<ReadCount, &C::max_open_ops_returned>("max_open_ops_returned", kRestart),
    Key<ReadString, &C::metrics_listen>("metrics_listen", kRestart),
    Key<ReadString, &C::metrics_token_file>("metrics_token_file", kRestart),
    Key<ReadBool, &C::metrics_insecure>("metrics_insecure", kRestart),
    Key<ReadCount, &C::metrics_max_names_per_session>("metrics_max_names_per_session", kRestart),
    Key<ReadCount, &C::metrics_max_series>("metrics_max_series", kRestart),
    Key<ReadStrings, &C::metrics_labels>("metrics_labels", kRestart),
    Key<ReadUnitValue<ParseDurationNs, kDurationLike500ms>, &C::metrics_series_grace_ns>(
        "metrics_series_grace", kRestart),
    Key<ReadBool, &C::listings>("listings", kRestart),
    Key<ReadUnitValue<ParseByteSize, kSizeLike64MiB>, &C::listing_max_bytes>("listing_max_bytes",
                                                                             kRestart),
    Key<ReadCount, &C::listing_max_files>("listing_max_files", kRestart),
};

// The error for a key that is no row of kConfigKeys.
Status UnknownKey(const std::string& key) {
  std::string known;
  for (const ConfigKeyRow& row : kConfigKeys) {
    if (!known.empty()) known += ", ";
    known += row.name;
  }
  return Status::InvalidArgument("unknown key '" + key + "' (known: " + known + ")");
}

}  // namespace

DaemonConfig DefaultConfig() {
  DaemonConfig c;
  // The environment is read by every optrace binary (docs/design.md);
  // an invalid namespace is reported by ValidateConfig.
  if (const char* ns = std::getenv("OPTRACE_NAMESPACE"); ns != nullptr && *ns != '\0') c.ns = ns;
  c.socket = DefaultSocketPath();
  c.db = DefaultStateFolder() + "/optrace.db";
  return c;
}

std::optional<int64_t> ParseDurationNs(const std::string& text) {
  uint64_t n = 0;
  std::string unit;
  if (!SplitNumber(text, &n, &unit)) return std::nullopt;
  if (unit == "ms") {
    if (n > static_cast<uint64_t>(INT64_MAX / 1'000'000)) return std::nullopt;
    return static_cast<int64_t>(n) * 1'000'000;
  }
  int64_t seconds;
  if (unit.empty() || unit == "s") {
    seconds = 1;
  } else if (unit == "m") {
    seconds = 60;
  } else if (unit == "h") {
    seconds = 3600;
  } else if (unit == "d") {
    seconds = 86400;
  } else {
    return std::nullopt;
  }
  int64_t ns = 0;
  if (n > static_cast<uint64_t>(INT64_MAX) ||
      __builtin_mul_overflow(static_cast<int64_t>(n), seconds * 1'000'000'000LL, &ns)) {
    return std::nullopt;
  }
  return ns;
}

Status ApplyConfigFile(const std::string& path, DaemonConfig* config) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return Status::InvalidArgument("config " + path + ":" + std::to_string(where.line) + ":" +
                                   std::to_string(where.column) + ": " +
                                   std::string(e.description()));
  }
  DaemonConfig c = *config;  // apply all or nothing
  for (const auto& [k, v] : table) {
    const std::string key(k.str());
    const auto* row = std::find_if(std::begin(kConfigKeys), std::end(kConfigKeys),
                                   [&](const ConfigKeyRow& r) { return r.name == key; });
    const Status st = row == std::end(kConfigKeys) ? UnknownKey(key) : row->apply(v, key, &c);
    if (!st.ok()) return Status::InvalidArgument("config " + path + ": " + st.message());
  }
  *config = std::move(c);
  return Status::Ok();
}

std::vector<ConfigKey> ConfigKeys() {
  std::vector<ConfigKey> keys;
  for (const ConfigKeyRow& row : kConfigKeys) keys.push_back({row.name, row.reload});
  return keys;
}

std::vector<std::string_view> ChangedConfigKeys(const DaemonConfig& running,
                                                const DaemonConfig& reloaded, ReloadRule rule) {
  std::vector<std::string_view> changed;
  for (const ConfigKeyRow& row : kConfigKeys) {
    if (row.reload == rule && !row.same(running, reloaded)) changed.push_back(row.name);
  }
  return changed;
}

Status ValidateConfig(const DaemonConfig& c) {
  if (!IsValidNamespace(c.ns)) {
    return Status::InvalidArgument("namespace " + Quote(c.ns) +
                                   " must be 1-64 characters of [A-Za-z0-9_-]");
  }
  if (c.socket.empty() || c.socket[0] != '/') {
    return Status::InvalidArgument("socket " + Quote(c.socket) + " must be an absolute path");
  }
  if (c.socket.size() >= 108) {
    return Status::InvalidArgument("socket " + Quote(c.socket) +
                                   " is longer than a Unix socket path may be (107 bytes)");
  }
  if (c.db.empty() || c.db[0] != '/') {
    return Status::InvalidArgument("db " + Quote(c.db) + " must be an absolute path");
  }
  if (c.tls_cert.empty() != c.tls_key.empty()) {
    return Status::InvalidArgument("tls_cert and tls_key must be given together");
  }
  if (!c.listen.empty() && c.listen.rfind(':') == std::string::npos) {
    return Status::InvalidArgument("listen " + Quote(c.listen) + " must be HOST:PORT");
  }
  if (Status st = ValidateTcpIdentity(c); !st.ok()) return st;
  if (c.node.size() > 255) {
    return Status::InvalidArgument("node " + Quote(c.node) + " is longer than 255 bytes");
  }
  for (char ch : c.node) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) {
      return Status::InvalidArgument("node " + Quote(c.node) + " holds a control character");
    }
  }
  if (c.max_streams_per_uid < 1 || c.max_streams_per_uid > 1'000'000) {
    return Status::InvalidArgument("max_streams_per_uid " + std::to_string(c.max_streams_per_uid) +
                                   " must be between 1 and 1000000");
  }
  if (c.max_segments_per_uid < 1 || c.max_segments_per_uid > 1'000'000) {
    return Status::InvalidArgument("max_segments_per_uid " +
                                   std::to_string(c.max_segments_per_uid) +
                                   " must be between 1 and 1000000");
  }
  if (c.max_threaded_streams < 1 || c.max_threaded_streams > 24) {
    return Status::InvalidArgument("max_threaded_streams " +
                                   std::to_string(c.max_threaded_streams) +
                                   " must be between 1 and 24");
  }
  if (c.max_threaded_streams_per_uid < 1 || c.max_threaded_streams_per_uid > 24) {
    return Status::InvalidArgument("max_threaded_streams_per_uid " +
                                   std::to_string(c.max_threaded_streams_per_uid) +
                                   " must be between 1 and 24");
  }
  if (c.max_query_groups < 1 || c.max_query_groups > 1'000'000) {
    return Status::InvalidArgument("max_query_groups " + std::to_string(c.max_query_groups) +
                                   " must be between 1 and 1000000");
  }
  if (c.max_query_durations_bytes < (uint64_t{1} << 20)) {
    return Status::InvalidArgument("max_query_durations_bytes " +
                                   std::to_string(c.max_query_durations_bytes) +
                                   " must be at least 1MiB");
  }
  if (c.max_open_ops_returned < 1 || c.max_open_ops_returned > 100'000) {
    return Status::InvalidArgument("max_open_ops_returned " +
                                   std::to_string(c.max_open_ops_returned) +
                                   " must be between 1 and 100000");
  }
  if (c.max_bytes_in_flight_per_uid < (uint64_t{64} << 10)) {
    return Status::InvalidArgument("max_bytes_in_flight_per_uid " +
                                   std::to_string(c.max_bytes_in_flight_per_uid) +
                                   " must be at least 64KiB (one message)");
  }
  if (!c.metrics_listen.empty() && c.metrics_listen.rfind(':') == std::string::npos) {
    return Status::InvalidArgument("metrics_listen " + Quote(c.metrics_listen) +
                                   " must be HOST:PORT");
  }
  if (!c.metrics_token_file.empty() && c.metrics_token_file[0] != '/') {
    return Status::InvalidArgument("metrics_token_file " + Quote(c.metrics_token_file) +
                                   " must be an absolute path");
  }
  if (c.metrics_max_names_per_session < 1 || c.metrics_max_series < 1 ||
      c.metrics_max_series > 1'000'000) {
    return Status::InvalidArgument(
        "metrics_max_names_per_session " + std::to_string(c.metrics_max_names_per_session) +
        " and metrics_max_series " + std::to_string(c.metrics_max_series) +
        " must be at least 1, and metrics_max_series at most 1000000");
  }
  if (c.listing_max_files < 1 || c.listing_max_files > kMaxListingFiles) {
    return Status::InvalidArgument("listing_max_files " + std::to_string(c.listing_max_files) +
                                   " must be between 1 and " + std::to_string(kMaxListingFiles));
  }
  return ValidateForward(c.forward);
}

std::string NodeName(const DaemonConfig& config) {
  if (!config.node.empty()) return config.node;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "localhost";
  return host;
}

}  // namespace optrace::daemon
