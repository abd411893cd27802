#include "config/daemon_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>

#include "levels/level_policy.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

std::string WriteFile(const testing::TempFolder& folder, const std::string& text) {
  const std::string path = folder.path() + "/optraced.toml";
  std::ofstream(path) << text;
  return path;
}

TEST(DaemonConfigTest, FullFile_EveryKeyApplied) {
  testing::TempFolder folder;
  DaemonConfig c = DefaultConfig();
  const Status st = ApplyConfigFile(WriteFile(folder, R"(
socket = "/tmp/x/optraced.sock"
db = "/tmp/x/ops.db"
namespace = "prod"
level = "debug"
retention_max_bytes = "512MiB"
retention_max_age = "12h"
uid_max_bytes = "100MiB"
keep_last = "30s"
keep_last_bytes = "64MiB"
keep_session_max_bytes = "8MiB"
keep_uid_max_bytes = "32MiB"
keep_before = "1m"
keep_after = "5s"
allowed_uids = [1000, 1001]
socket_group = "trace-users"
admin_group = "tracers"
listen = "127.0.0.1:7070"
listen_token_dir = "/etc/optrace/tokens"
[[level_rule]]
label = "bench-.*"
level = "trace"
[[keep_rule]]
name = "train_step"
slower_than = "50ms"
[[keep_rule]]
name = "matmul"
tag = "big"
slower_than = "1ms"
)"),
                                    &c);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(c.socket, "/tmp/x/optraced.sock");
  EXPECT_EQ(c.ns, "prod");
  EXPECT_EQ(c.level, abi::LevelValue::kDebug);
  EXPECT_EQ(c.retention_max_bytes, 512ULL << 20);
  EXPECT_EQ(c.retention_max_age_ns, 12LL * 3600 * 1'000'000'000);
  EXPECT_EQ(c.uid_max_bytes, 100ULL << 20);
  EXPECT_EQ(c.keep_last_ns, 30LL * 1'000'000'000);
  EXPECT_EQ(c.keep_last_bytes, 64ULL << 20);
  EXPECT_EQ(c.keep_session_max_bytes, 8ULL << 20);
  EXPECT_EQ(c.keep_uid_max_bytes, 32ULL << 20);
  EXPECT_EQ(c.keep_before_ns, 60LL * 1'000'000'000);
  EXPECT_EQ(c.keep_after_ns, 5LL * 1'000'000'000);
  EXPECT_EQ(c.allowed_uids, (std::vector<uint32_t>{1000, 1001}));
  EXPECT_EQ(c.socket_group, "trace-users");
  EXPECT_EQ(c.admin_group, "tracers");
  ASSERT_EQ(c.level_rules.size(), 1u);
  EXPECT_EQ(c.level_rules[0].label_pattern, "bench-.*");
  EXPECT_EQ(c.keep_rules,
            (std::vector<KeepRule>{{.name = "train_step", .tag = "", .slower_than_ns = 50'000'000},
                                   {.name = "matmul", .tag = "big", .slower_than_ns = 1'000'000}}));
  EXPECT_TRUE(ValidateConfig(c).ok());
}

// Issue 25: the rolling window is on by default, and "0" keeps everything.
TEST(DaemonConfigTest, KeepLast_DefaultOnAndZeroKeepsEverything) {
  DaemonConfig c = DefaultConfig();
  EXPECT_EQ(c.keep_last_ns, 600LL * 1'000'000'000);
  EXPECT_EQ(c.keep_last_bytes, 256ULL << 20);
  EXPECT_EQ(c.uid_max_bytes, 0u);
  testing::TempFolder folder;
  const Status st =
      ApplyConfigFile(WriteFile(folder, "keep_last = \"0\"\nkeep_last_bytes = 0\n"), &c);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(c.keep_last_ns, 0);
  EXPECT_EQ(c.keep_last_bytes, 0u);
  EXPECT_TRUE(ValidateConfig(c).ok());
}

// Issue 16 item 9: who may connect is not who may see everyone. Members of
// the socket's group see only their own uid's sessions by default.
TEST(DaemonConfigTest, Defaults_SocketGroupIsNotTheAdminGroup) {
  const DaemonConfig c = DefaultConfig();
  EXPECT_EQ(c.socket_group, "optrace");
  EXPECT_EQ(c.admin_group, "optrace-admin");
  EXPECT_NE(c.socket_group, c.admin_group);
}

TEST(DaemonConfigTest, Malicious_BadValues_ErrorNamesKeyAndValueAndNothingApplied) {
  testing::TempFolder folder;
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {"level = \"loud\"", "level: 'loud' is not a level"},
      {"retention_max_bytes = \"12XB\"", "retention_max_bytes: '12XB' is not a size"},
      {"retention_max_age = -5", "retention_max_age: '-5' is not a duration"},
      {"keep_last = \"10 minutes\"", "keep_last: '10 minutes' is not a duration like 10m"},
      {"keep_last = -1", "keep_last: '-1' is not a duration"},
      {"keep_last_bytes = \"lots\"", "keep_last_bytes: 'lots' is not a size like 256MiB"},
      {"uid_max_bytes = 1.5", "uid_max_bytes: expected a size"},
      {"socket = 5", "socket: expected a string"},
      {"allowed_uids = [-1]", "allowed_uids: every entry must be a uid"},
      {"colour = \"blue\"", "unknown key 'colour'"},
      {"level = ", "optraced.toml:1"},
      {"[[level_rule]]\nlevel = \"trace\"", "level_rule[0]: label is required"},
      {"[[keep_rule]]\nslower_than = \"5ms\"", "keep_rule[0]: name is required"},
      {"[[keep_rule]]\nname = \"x\"", "keep_rule[0]: slower_than is required (above 0)"},
      {"[[keep_rule]]\nname = \"x\"\nslow = 1", "keep_rule[0].slow: unknown key"},
  };
  for (const Case& c : cases) {
    DaemonConfig config = DefaultConfig();
    const std::string before = config.socket;
    const Status st = ApplyConfigFile(WriteFile(folder, c.text), &config);
    EXPECT_FALSE(st.ok()) << c.text;
    EXPECT_NE(st.message().find(c.expect), std::string::npos) << st.message();
    EXPECT_EQ(config.socket, before);
  }
}

TEST(DaemonConfigTest, Validate_CrossFieldRules) {
  DaemonConfig c = DefaultConfig();
  c.ns = "bad.ns";
  EXPECT_NE(ValidateConfig(c).message().find("namespace"), std::string::npos);
  c = DefaultConfig();
  c.tls_cert = "/etc/cert.pem";
  EXPECT_NE(ValidateConfig(c).message().find("tls_cert and tls_key"), std::string::npos);
  c = DefaultConfig();
  c.socket = "relative.sock";
  EXPECT_NE(ValidateConfig(c).message().find("absolute"), std::string::npos);
}

TEST(DaemonConfigTest, SizesAndDurations_Parsed) {
  EXPECT_EQ(ParseByteSize("1GiB"), 1ULL << 30);
  EXPECT_EQ(ParseByteSize("64k"), 64ULL << 10);
  EXPECT_EQ(ParseByteSize("100"), 100u);
  EXPECT_FALSE(ParseByteSize("GiB").has_value());
  EXPECT_FALSE(ParseByteSize("99999999999999999999").has_value());
  EXPECT_FALSE(ParseByteSize("20000000T").has_value());
  EXPECT_EQ(ParseDurationNs("7d"), 7LL * 86400 * 1'000'000'000);
  EXPECT_EQ(ParseDurationNs("30"), 30LL * 1'000'000'000);
  EXPECT_FALSE(ParseDurationNs("5 weeks").has_value());
}

TEST(LevelPolicyTest, RulesRaiseByLabelAndBadPatternRefused) {
  auto policy = LevelPolicy::Create(abi::LevelValue::kInfo, {{"bench-.*", abi::LevelValue::kTrace},
                                                             {"quiet", abi::LevelValue::kOff}});
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ(policy.value()->LevelForLabel("bench-7"), abi::LevelValue::kTrace);
  EXPECT_EQ(policy.value()->LevelForLabel("xbench-7"), abi::LevelValue::kInfo) << "full match only";
  EXPECT_EQ(policy.value()->LevelForLabel("quiet"), abi::LevelValue::kInfo) << "rules only raise";
  auto bad = LevelPolicy::Create(abi::LevelValue::kOff, {{"(unclosed", abi::LevelValue::kTrace}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("level_rule[0].label '(unclosed'"), std::string::npos);
}

TEST(LevelPolicyTest, LiveLevel_MostVerboseUnlessOverridden) {
  using L = abi::LevelValue;
  EXPECT_EQ(ComputeLiveLevel(L::kDebug, L::kInfo, std::nullopt, L::kOff), L::kDebug)
      << "attaching never makes a producer quieter than it asked";
  EXPECT_EQ(ComputeLiveLevel(L::kOff, L::kInfo, std::nullopt, L::kOff), L::kInfo);
  EXPECT_EQ(ComputeLiveLevel(L::kDebug, L::kInfo, L::kOff, L::kOff), L::kOff)
      << "an explicit SetLevel replaces both";
  EXPECT_EQ(ComputeLiveLevel(L::kOff, L::kOff, L::kOff, L::kTrace), L::kTrace)
      << "a live tail raises even an override";
}

TEST(DaemonConfigTest, ForwardKeys_EveryKeyApplied) {
  testing::TempFolder folder;
  DaemonConfig c = DefaultConfig();
  EXPECT_TRUE(c.forward.url.empty()) << "forwarding is off by default";
  const Status st = ApplyConfigFile(WriteFile(folder, R"(
node = "gpu-17"
forward_clickhouse_url = "http://ch1:8123"
forward_clickhouse_database = "traces"
forward_clickhouse_table = "ops"
forward_clickhouse_cluster = "fleet"
forward_clickhouse_batch_spans = 50000
forward_clickhouse_flush_interval = "500ms"
forward_clickhouse_credentials_file = "/etc/optrace/clickhouse.credentials"
forward_clickhouse_gzip = true
)"),
                                    &c);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(c.node, "gpu-17");
  EXPECT_EQ(NodeName(c), "gpu-17");
  EXPECT_EQ(c.forward.url, "http://ch1:8123");
  EXPECT_EQ(c.forward.database, "traces");
  EXPECT_EQ(c.forward.table, "ops");
  EXPECT_EQ(c.forward.cluster, "fleet");
  EXPECT_EQ(c.forward.batch_spans, 50000u);
  EXPECT_EQ(c.forward.flush_interval_ns, 500'000'000);
  EXPECT_EQ(c.forward.credentials_file, "/etc/optrace/clickhouse.credentials");
  EXPECT_TRUE(c.forward.gzip);
  EXPECT_TRUE(ValidateConfig(c).ok());
}

TEST(DaemonConfigTest, Malicious_BadForwardValues_ValidationNamesKey) {
  struct Case {
    void (*set)(DaemonConfig*);
    const char* expect;
  };
  const Case cases[] = {
      {[](DaemonConfig* c) { c->forward.url = "ch1:8123"; }, "forward_clickhouse_url must be"},
      {[](DaemonConfig* c) { c->forward.table = "spans; DROP TABLE x"; },
       "forward_clickhouse_table 'spans; DROP TABLE x' must be"},
      {[](DaemonConfig* c) { c->forward.database = "1db"; }, "forward_clickhouse_database '1db'"},
      {[](DaemonConfig* c) { c->forward.cluster = "a-b"; }, "forward_clickhouse_cluster 'a-b'"},
      {[](DaemonConfig* c) { c->forward.batch_spans = 0; }, "forward_clickhouse_batch_spans 0"},
      {[](DaemonConfig* c) { c->forward.batch_spans = 2'000'000; },
       "forward_clickhouse_batch_spans 2000000 must be between 1 and 1000000"},
      {[](DaemonConfig* c) { c->forward.flush_interval_ns = 0; },
       "forward_clickhouse_flush_interval must be above 0"},
      {[](DaemonConfig* c) { c->node = "a\nb"; }, "node 'a\nb' holds a control character"},
  };
  for (const Case& test : cases) {
    DaemonConfig c = DefaultConfig();
    c.forward.url = "http://ch1:8123";
    test.set(&c);
    const Status st = ValidateConfig(c);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << test.expect;
    EXPECT_NE(st.message().find(test.expect), std::string::npos) << st.message();
  }
}

TEST(DaemonConfigTest, ForwardOff_BadForwardNames_NotChecked) {
  DaemonConfig c = DefaultConfig();
  c.forward.table = "not checked while url is empty";
  EXPECT_TRUE(ValidateConfig(c).ok());
}

TEST(DaemonConfigTest, ParseDurationNs_Milliseconds_Accepted) {
  EXPECT_EQ(ParseDurationNs("250ms"), 250'000'000);
  EXPECT_FALSE(ParseDurationNs("99999999999999999ms").has_value());
}

TEST(DaemonConfigTest, NodeName_Unset_HostName) {
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(NodeName(DefaultConfig()), host);
}

TEST(DaemonConfigTest, StreamAndQueryCaps_AppliedAndOutOfRangeRefusedNamingTheKey) {
  testing::TempFolder folder;
  DaemonConfig c = DefaultConfig();
  const Status st = ApplyConfigFile(WriteFile(folder, R"(
max_streams_per_uid = 8
max_segments_per_uid = 16
max_bytes_in_flight_per_uid = "1MiB"
max_threaded_streams = 4
max_threaded_streams_per_uid = 2
max_query_groups = 50000
max_query_durations_bytes = "64MiB"
max_open_ops_returned = 200
)"),
                                    &c);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(c.max_streams_per_uid, 8u);
  EXPECT_EQ(c.max_segments_per_uid, 16u);
  EXPECT_EQ(c.max_bytes_in_flight_per_uid, 1u << 20);
  EXPECT_EQ(c.max_threaded_streams, 4u);
  EXPECT_EQ(c.max_threaded_streams_per_uid, 2u);
  EXPECT_EQ(c.max_query_groups, 50'000u);
  EXPECT_EQ(c.max_query_durations_bytes, 64u << 20);
  EXPECT_EQ(c.max_open_ops_returned, 200u);
  EXPECT_TRUE(ValidateConfig(c).ok());
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, uint64_t>>{{"max_streams_per_uid", 0},
                                                     {"max_segments_per_uid", 0},
                                                     {"max_threaded_streams", 25},
                                                     {"max_bytes_in_flight_per_uid", 1000},
                                                     {"max_threaded_streams_per_uid", 0},
                                                     {"max_query_groups", 1'000'001},
                                                     {"max_query_durations_bytes", 1000},
                                                     {"max_open_ops_returned", 0}}) {
    DaemonConfig bad = c;
    if (key == "max_streams_per_uid") bad.max_streams_per_uid = value;
    if (key == "max_segments_per_uid") bad.max_segments_per_uid = value;
    if (key == "max_threaded_streams") bad.max_threaded_streams = value;
    if (key == "max_bytes_in_flight_per_uid") bad.max_bytes_in_flight_per_uid = value;
    if (key == "max_threaded_streams_per_uid") bad.max_threaded_streams_per_uid = value;
    if (key == "max_query_groups") bad.max_query_groups = value;
    if (key == "max_query_durations_bytes") bad.max_query_durations_bytes = value;
    if (key == "max_open_ops_returned") bad.max_open_ops_returned = value;
    const Status refused = ValidateConfig(bad);
    EXPECT_FALSE(refused.ok()) << key;
    EXPECT_NE(refused.message().find(key), std::string::npos) << refused.message();
  }
}

// A valid value of every config key, unlike DefaultConfig()'s: a key added
// to the key table needs one here.
const std::map<std::string_view, std::string> kExampleValues = {
    {"socket", R"("/tmp/other/optraced.sock")"},
    {"listen", R"("127.0.0.1:7070")"},
    {"metrics_listen", R"("127.0.0.1:9464")"},
    {"metrics_token_file", R"("/etc/optrace/metrics-token")"},
    {"metrics_insecure", "true"},
    {"metrics_max_names_per_session", "50"},
    {"metrics_max_series", "500"},
    {"metrics_labels", R"(["name", "tag", "pid"])"},
    {"metrics_series_grace", R"("1m")"},
    {"listings", "false"},
    {"listing_max_bytes", R"("1MiB")"},
    {"listing_max_files", "64"},
    {"tls_cert", R"("/etc/optrace/cert.pem")"},
    {"tls_key", R"("/etc/optrace/key.pem")"},
    {"listen_token_dir", R"("/etc/optrace/tokens")"},
    {"tls_client_ca", R"("/etc/optrace/clients-ca.pem")"},
    {"insecure_tcp_admin", "true"},
    {"db", R"("/tmp/other/ops.db")"},
    {"namespace", R"("prod")"},
    {"level", R"("debug")"},
    {"level_rule", R"([{ label = "bench-.*", level = "trace" }])"},
    {"retention_max_bytes", R"("512MiB")"},
    {"retention_max_age", R"("12h")"},
    {"uid_max_bytes", R"("100MiB")"},
    {"keep_last", R"("30s")"},
    {"keep_last_bytes", R"("64MiB")"},
    {"keep_session_max_bytes", R"("8MiB")"},
    {"keep_uid_max_bytes", R"("32MiB")"},
    {"keep_before", R"("1m")"},
    {"keep_after", R"("5s")"},
    {"keep_rule", R"([{ name = "train_step", slower_than = "50ms" }])"},
    {"allowed_uids", "[1000, 1001]"},
    {"socket_group", R"("trace-users")"},
    {"admin_group", R"("tracers")"},
    {"debug_log", "true"},
    {"node", R"("gpu-17")"},
    {"forward_clickhouse_url", R"("http://ch1:8123")"},
    {"forward_clickhouse_database", R"("traces")"},
    {"forward_clickhouse_table", R"("ops")"},
    {"forward_clickhouse_cluster", R"("fleet")"},
    {"forward_clickhouse_batch_spans", "50000"},
    {"forward_clickhouse_flush_interval", R"("500ms")"},
    {"forward_clickhouse_credentials_file", R"("/etc/optrace/clickhouse.credentials")"},
    {"forward_clickhouse_gzip", "true"},
    {"max_streams_per_uid", "8"},
    {"max_segments_per_uid", "16"},
    {"max_bytes_in_flight_per_uid", R"("1MiB")"},
    {"max_threaded_streams", "4"},
    {"max_threaded_streams_per_uid", "2"},
    {"max_query_groups", "50000"},
    {"max_query_durations_bytes", R"("64MiB")"},
    {"max_open_ops_returned", "200"},
};

TEST(DaemonConfigTest, KeyTable_UnknownKeyErrorListsEveryKeyOnceInTableOrder) {
  testing::TempFolder folder;
  DaemonConfig c = DefaultConfig();
  const Status st = ApplyConfigFile(WriteFile(folder, "no_such_key = 1"), &c);
  ASSERT_FALSE(st.ok());
  const std::string& message = st.message();
  const std::string opening = "unknown key 'no_such_key' (known: ";
  const size_t begin = message.find(opening);
  ASSERT_NE(begin, std::string::npos) << message;
  ASSERT_EQ(message.back(), ')') << message;
  std::string known;
  std::set<std::string_view> names;
  for (const ConfigKey& key : ConfigKeys()) {
    EXPECT_TRUE(names.insert(key.name).second) << key.name << " is in the table twice";
    known += (known.empty() ? "" : ", ") + std::string(key.name);
  }
  EXPECT_EQ(message.substr(begin + opening.size(), message.size() - 1 - begin - opening.size()),
            known);
}

TEST(DaemonConfigTest, KeyTable_EveryKeyAppliedAndReportedChangedUnderItsReloadRule) {
  testing::TempFolder folder;
  const DaemonConfig defaults = DefaultConfig();
  EXPECT_TRUE(ChangedConfigKeys(defaults, defaults, ReloadRule::kAtRestart).empty());
  EXPECT_TRUE(ChangedConfigKeys(defaults, defaults, ReloadRule::kLiveOnSighup).empty());
  for (const ConfigKey& key : ConfigKeys()) {
    const auto example = kExampleValues.find(key.name);
    ASSERT_NE(example, kExampleValues.end()) << key.name << " has no example value in this test";
    DaemonConfig c = defaults;
    const Status st =
        ApplyConfigFile(WriteFile(folder, std::string(key.name) + " = " + example->second), &c);
    ASSERT_TRUE(st.ok()) << st.message();
    const ReloadRule other =
        key.reload == ReloadRule::kAtRestart ? ReloadRule::kLiveOnSighup : ReloadRule::kAtRestart;
    EXPECT_EQ(ChangedConfigKeys(defaults, c, key.reload), std::vector<std::string_view>{key.name})
        << "the row of " << key.name << " reads into a field of its own";
    EXPECT_TRUE(ChangedConfigKeys(defaults, c, other).empty()) << key.name;
  }
  EXPECT_EQ(kExampleValues.size(), ConfigKeys().size()) << "an example of a key that is gone";
}

TEST(DaemonConfigTest, MetricsKeys_BadValues_ErrorsNameKey) {
  DaemonConfig c = DefaultConfig();
  c.metrics_listen = "9464";
  EXPECT_NE(ValidateConfig(c).message().find("metrics_listen"), std::string::npos);
  c = DefaultConfig();
  c.metrics_token_file = "relative/token";
  EXPECT_NE(ValidateConfig(c).message().find("metrics_token_file"), std::string::npos);
  c = DefaultConfig();
  c.metrics_max_series = 0;
  EXPECT_NE(ValidateConfig(c).message().find("metrics_max_series"), std::string::npos);
  c = DefaultConfig();
  c.listing_max_files = 0;
  EXPECT_NE(ValidateConfig(c).message().find("listing_max_files"), std::string::npos);
  c = DefaultConfig();
  EXPECT_TRUE(ValidateConfig(c).ok()) << "the metrics are off by default and valid";
  EXPECT_TRUE(c.metrics_listen.empty());
}

// The rule of every TCP listener: `listen` needs a way to identify its
// callers, or the explicit insecure_tcp_admin, and never both.
TEST(DaemonConfigTest, Listen_WithoutWayToIdentifyCallers_RefusedNamingTheChoices) {
  DaemonConfig c = DefaultConfig();
  c.listen = "127.0.0.1:7070";
  const Status refused = ValidateConfig(c);
  ASSERT_FALSE(refused.ok());
  for (const char* named :
       {"127.0.0.1:7070", "listen_token_dir", "tls_client_ca", "insecure_tcp_admin = true"}) {
    EXPECT_NE(refused.message().find(named), std::string::npos) << refused.message();
  }
  DaemonConfig tokens = c;
  tokens.listen_token_dir = "/etc/optrace/tokens";
  EXPECT_TRUE(ValidateConfig(tokens).ok());
  DaemonConfig certificates = c;
  certificates.tls_client_ca = "/etc/optrace/clients-ca.pem";
  EXPECT_NE(ValidateConfig(certificates).message().find("tls_client_ca needs tls_cert"),
            std::string::npos);
  certificates.tls_cert = "/etc/optrace/cert.pem";
  certificates.tls_key = "/etc/optrace/key.pem";
  EXPECT_TRUE(ValidateConfig(certificates).ok());
  DaemonConfig insecure = c;
  insecure.insecure_tcp_admin = true;
  EXPECT_TRUE(ValidateConfig(insecure).ok());
  insecure.listen_token_dir = "/etc/optrace/tokens";
  EXPECT_NE(ValidateConfig(insecure).message().find("cannot be combined"), std::string::npos);
  tokens.listen_token_dir = "tokens";
  EXPECT_NE(ValidateConfig(tokens).message().find("listen_token_dir 'tokens' must be an absolute"),
            std::string::npos);
}

// SIGHUP re-applies the level policy only (main.cc): every other key is
// reported as taking effect at restart.
TEST(DaemonConfigTest, KeyTable_OnlyLevelAndLevelRuleLiveOnSighup) {
  std::vector<std::string_view> live;
  for (const ConfigKey& key : ConfigKeys()) {
    if (key.reload == ReloadRule::kLiveOnSighup) live.push_back(key.name);
  }
  EXPECT_EQ(live, (std::vector<std::string_view>{"level", "level_rule"}));
}

}  // namespace
}  // namespace optrace::daemon
