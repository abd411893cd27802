#include "config/daemon_config.h"

#include <toml++/toml.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cstdlib>

#include "common/default_paths.h"
#include "common/level_names.h"
#include "common/segment_name.h"

namespace optrace::daemon {
namespace {

std::string Quote(const std::string& s) { return "'" + s + "'"; }

// Splits "512MiB" into 512 and "MiB".
bool SplitNumber(const std::string& text, uint64_t* number, std::string* unit) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + i, *number);
  if (ec != std::errc()) return false;
  size_t j = i;
  while (j < text.size() && text[j] == ' ') ++j;
  *unit = text.substr(j);
  return true;
}

Status BadValue(const std::string& key, const std::string& value, const std::string& expected) {
  return Status::InvalidArgument(key + ": " + Quote(value) + " is not " + expected);
}

// Reads a key that may be written as a number or as a string with a unit.
template <typename Parse>
Status ReadUnitValue(const toml::node& node, const std::string& key, Parse parse,
                     const std::string& expected, auto* out) {
  std::string text;
  if (auto i = node.value<int64_t>(); i && node.is_integer()) {
    if (*i < 0) return BadValue(key, std::to_string(*i), expected);
    text = std::to_string(*i);
  } else if (auto s = node.value<std::string>()) {
    text = *s;
  } else {
    return Status::InvalidArgument(key + ": expected " + expected);
  }
  const auto parsed = parse(text);
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

Status ReadLevelRules(const toml::node& node, std::vector<LevelRule>* out) {
  const toml::array* rules = node.as_array();
  if (rules == nullptr)
    return Status::InvalidArgument("level_rule: expected [[level_rule]] tables");
  out->clear();
  for (size_t i = 0; i < rules->size(); ++i) {
    const std::string where = "level_rule[" + std::to_string(i) + "]";
    const toml::table* t = (*rules)[i].as_table();
    if (t == nullptr) return Status::InvalidArgument(where + ": expected a table");
    LevelRule rule;
    for (const auto& [k, v] : *t) {
      const std::string key(k.str());
      Status st = key == "label" ? ReadString(v, where + ".label", &rule.label_pattern)
                  : key == "level"
                      ? ReadLevel(v, where + ".level", &rule.level)
                      : Status::InvalidArgument(where + "." + key + ": unknown key (label, level)");
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

Status ReadUids(const toml::node& node, std::vector<uint32_t>* out) {
  const toml::array* uids = node.as_array();
  if (uids == nullptr) return Status::InvalidArgument("allowed_uids: expected an array of uids");
  out->clear();
  for (const auto& u : *uids) {
    auto v = u.value<int64_t>();
    if (!v || !u.is_integer() || *v < 0 || *v > 0xFFFFFFFFLL) {
      return Status::InvalidArgument("allowed_uids: every entry must be a uid (0..4294967295)");
    }
    out->push_back(static_cast<uint32_t>(*v));
  }
  return Status::Ok();
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

std::optional<uint64_t> ParseByteSize(const std::string& text) {
  uint64_t n = 0;
  std::string unit;
  if (!SplitNumber(text, &n, &unit)) return std::nullopt;
  std::string u;
  for (char c : unit) u.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  uint64_t mult;
  if (u.empty() || u == "b") {
    mult = 1;
  } else if (u == "k" || u == "kb" || u == "kib") {
    mult = 1ULL << 10;
  } else if (u == "m" || u == "mb" || u == "mib") {
    mult = 1ULL << 20;
  } else if (u == "g" || u == "gb" || u == "gib") {
    mult = 1ULL << 30;
  } else if (u == "t" || u == "tb" || u == "tib") {
    mult = 1ULL << 40;
  } else {
    return std::nullopt;
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(n, mult, &bytes)) return std::nullopt;
  return bytes;
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
    Status st;
    if (key == "socket") {
      st = ReadString(v, key, &c.socket);
    } else if (key == "listen") {
      st = ReadString(v, key, &c.listen);
    } else if (key == "tls_cert") {
      st = ReadString(v, key, &c.tls_cert);
    } else if (key == "tls_key") {
      st = ReadString(v, key, &c.tls_key);
    } else if (key == "db") {
      st = ReadString(v, key, &c.db);
    } else if (key == "namespace") {
      st = ReadString(v, key, &c.ns);
    } else if (key == "level") {
      st = ReadLevel(v, key, &c.level);
    } else if (key == "level_rule") {
      st = ReadLevelRules(v, &c.level_rules);
    } else if (key == "retention_max_bytes") {
      st = ReadUnitValue(v, key, ParseByteSize, "a size like 1GiB or 536870912",
                         &c.retention_max_bytes);
    } else if (key == "retention_max_age") {
      st = ReadUnitValue(v, key, ParseDurationNs, "a duration like 7d, 12h or 3600",
                         &c.retention_max_age_ns);
    } else if (key == "allowed_uids") {
      st = ReadUids(v, &c.allowed_uids);
    } else if (key == "socket_group") {
      st = ReadString(v, key, &c.socket_group);
    } else if (key == "admin_group") {
      st = ReadString(v, key, &c.admin_group);
    } else if (key == "debug_log") {
      st = ReadBool(v, key, &c.debug_log);
    } else if (key == "node") {
      st = ReadString(v, key, &c.node);
    } else if (key == "forward_clickhouse_url") {
      st = ReadString(v, key, &c.forward.url);
    } else if (key == "forward_clickhouse_database") {
      st = ReadString(v, key, &c.forward.database);
    } else if (key == "forward_clickhouse_table") {
      st = ReadString(v, key, &c.forward.table);
    } else if (key == "forward_clickhouse_cluster") {
      st = ReadString(v, key, &c.forward.cluster);
    } else if (key == "forward_clickhouse_batch_spans") {
      st = ReadCount(v, key, &c.forward.batch_spans);
    } else if (key == "forward_clickhouse_flush_interval") {
      st = ReadUnitValue(v, key, ParseDurationNs, "a duration like 500ms, 2s or 1m",
                         &c.forward.flush_interval_ns);
    } else if (key == "forward_clickhouse_credentials_file") {
      st = ReadString(v, key, &c.forward.credentials_file);
    } else if (key == "forward_clickhouse_gzip") {
      st = ReadBool(v, key, &c.forward.gzip);
    } else if (key == "max_streams_per_uid") {
      st = ReadCount(v, key, &c.max_streams_per_uid);
    } else if (key == "max_threaded_streams") {
      st = ReadCount(v, key, &c.max_threaded_streams);
    } else if (key == "max_bytes_in_flight_per_uid") {
      st = ReadUnitValue(v, key, ParseByteSize, "a size like 64MiB or 67108864",
                         &c.max_bytes_in_flight_per_uid);
    } else {
      st = Status::InvalidArgument(
          "unknown key '" + key +
          "' (known: socket, listen, tls_cert, tls_key, db, namespace, level, level_rule, "
          "retention_max_bytes, retention_max_age, allowed_uids, socket_group, admin_group, "
          "debug_log, node, forward_clickhouse_url, forward_clickhouse_database, "
          "forward_clickhouse_table, "
          "forward_clickhouse_cluster, forward_clickhouse_batch_spans, "
          "forward_clickhouse_flush_interval, forward_clickhouse_credentials_file, "
          "forward_clickhouse_gzip, max_streams_per_uid, max_bytes_in_flight_per_uid, "
          "max_threaded_streams)");
    }
    if (!st.ok()) return Status::InvalidArgument("config " + path + ": " + st.message());
  }
  *config = std::move(c);
  return Status::Ok();
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
  if (c.max_threaded_streams < 1 || c.max_threaded_streams > 24) {
    return Status::InvalidArgument("max_threaded_streams " +
                                   std::to_string(c.max_threaded_streams) +
                                   " must be between 1 and 24");
  }
  if (c.max_bytes_in_flight_per_uid < (uint64_t{64} << 10)) {
    return Status::InvalidArgument("max_bytes_in_flight_per_uid " +
                                   std::to_string(c.max_bytes_in_flight_per_uid) +
                                   " must be at least 64KiB (one message)");
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
