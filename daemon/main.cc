// optraced: the op tracing daemon. Wires the parts together: config, the
// instance lock, storage, the control segment, the drain loop, signals.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>

#include "api/api_server.h"
#include "api/caller_identity.h"
#include "api/op_trace_service.h"
#include "api/tcp_authenticator.h"
#include "api/token_table.h"
#include "common/level_names.h"
#include "common/socket_folder.h"
#include "config/daemon_config.h"
#include "control/control_segment.h"
#include "control/instance_lock.h"
#include "drain/drain_loop.h"
#include "forward/clickhouse_forwarder.h"
#include "levels/level_policy.h"
#include "live/tail_hub.h"
#include "log/log.h"
#include "metrics/metrics_access.h"
#include "metrics/metrics_endpoint.h"
#include "metrics/op_metrics.h"
#include "service/fd_limit.h"
#include "service/memory_trimmer.h"
#include "service/systemd_notifier.h"
#include "storage/span_reader.h"
#include "storage/span_store.h"

namespace optrace::daemon {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;

// Flags override the config file, which overrides the defaults; a flag not
// given leaves the value alone.
struct Flags {
  std::string config;
  std::optional<std::string> socket, listen, tls_cert, tls_key, listen_token_dir, tls_client_ca, db,
      ns, level, retention_max_bytes, retention_max_age, uid_max_bytes, keep_last, keep_last_bytes,
      keep_session_max_bytes, keep_uid_max_bytes, forward_clickhouse, node, metrics_listen,
      metrics_token_file, listing_max_bytes;
  std::optional<uint64_t> max_segments_per_uid;
  bool debug = false;
  bool no_listings = false;
  bool metrics_insecure = false;
  bool insecure_tcp_admin = false;
};

// A flag whose text, when given, is parsed into a config field.
template <typename T>
struct UnitFlag {
  const char* name;
  const std::optional<std::string>* text;
  T* out;
};
using SizeFlag = UnitFlag<uint64_t>;
using DurationFlag = UnitFlag<int64_t>;

Status ApplyFlags(const Flags& f, DaemonConfig* c) {
  if (f.socket) c->socket = *f.socket;
  if (f.listen) c->listen = *f.listen;
  if (f.tls_cert) c->tls_cert = *f.tls_cert;
  if (f.tls_key) c->tls_key = *f.tls_key;
  if (f.listen_token_dir) c->listen_token_dir = *f.listen_token_dir;
  if (f.tls_client_ca) c->tls_client_ca = *f.tls_client_ca;
  if (f.insecure_tcp_admin) c->insecure_tcp_admin = true;
  if (f.db) c->db = *f.db;
  if (f.ns) c->ns = *f.ns;
  if (f.level) {
    const auto level = ParseLevel(*f.level);
    if (!level) {
      return Status::InvalidArgument("--level " + *f.level + " is not one of " +
                                     std::string(LevelNameList()));
    }
    c->level = *level;
  }
  const SizeFlag sizes[] = {
      {"--retention-max-bytes", &f.retention_max_bytes, &c->retention_max_bytes},
      {"--uid-max-bytes", &f.uid_max_bytes, &c->uid_max_bytes},
      {"--keep-last-bytes", &f.keep_last_bytes, &c->keep_last_bytes},
      {"--keep-session-max-bytes", &f.keep_session_max_bytes, &c->keep_session_max_bytes},
      {"--keep-uid-max-bytes", &f.keep_uid_max_bytes, &c->keep_uid_max_bytes},
      {"--listing-max-bytes", &f.listing_max_bytes, &c->listing_max_bytes},
  };
  for (const SizeFlag& flag : sizes) {
    if (!*flag.text) continue;
    const auto bytes = ParseByteSize(**flag.text);
    if (!bytes) {
      return Status::InvalidArgument(std::string(flag.name) + " " + **flag.text +
                                     " is not a size like 1GiB or 536870912");
    }
    *flag.out = *bytes;
  }
  const DurationFlag durations[] = {
      {"--retention-max-age", &f.retention_max_age, &c->retention_max_age_ns},
      {"--keep-last", &f.keep_last, &c->keep_last_ns},
  };
  for (const DurationFlag& flag : durations) {
    if (!*flag.text) continue;
    const auto ns = ParseDurationNs(**flag.text);
    if (!ns) {
      return Status::InvalidArgument(std::string(flag.name) + " " + **flag.text +
                                     " is not a duration like 7d, 12h, 10m or 3600");
    }
    *flag.out = *ns;
  }
  if (f.max_segments_per_uid) c->max_segments_per_uid = *f.max_segments_per_uid;
  if (f.forward_clickhouse) c->forward.url = *f.forward_clickhouse;
  if (f.node) c->node = *f.node;
  if (f.debug) c->debug_log = true;
  if (f.metrics_listen) c->metrics_listen = *f.metrics_listen;
  if (f.metrics_token_file) c->metrics_token_file = *f.metrics_token_file;
  if (f.metrics_insecure) c->metrics_insecure = true;
  if (f.no_listings) c->listings = false;
  return Status::Ok();
}

// Where the fleet's spans go and are read from, with the credentials read
// from their file. Errors name the file (never its content).
Result<FleetSource> FleetSourceOf(const ForwardConfig& forward) {
  FleetSource source;
  source.endpoint.url = forward.url;
  source.endpoint.gzip = forward.gzip;
  source.tables = {forward.database, forward.table, forward.cluster};
  if (!forward.credentials_file.empty()) {
    Status read = ReadCredentialsFile(forward.credentials_file, &source.endpoint.user,
                                      &source.endpoint.password);
    if (!read.ok()) return read;
  }
  return source;
}

Result<DaemonConfig> LoadConfig(const Flags& flags) {
  DaemonConfig config = DefaultConfig();
  if (!flags.config.empty()) {
    if (Status st = ApplyConfigFile(flags.config, &config); !st.ok()) return st;
  }
  if (Status st = ApplyFlags(flags, &config); !st.ok()) return st;
  if (Status st = ValidateConfig(config); !st.ok()) return st;
  return config;
}

// Creates `path` (and its parents) with `mode` when it does not exist; an
// existing folder is left exactly as it is (the socket listener refuses a
// world-writable one rather than changing someone's folder).
Status MakeFolder(const std::string& path, mode_t mode) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return Status::Ok();
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::IoError("cannot create folder " + path + ": " + ec.message());
  ::chmod(path.c_str(), mode);
  return Status::Ok();
}

int Run(const Flags& flags) {
  auto loaded = LoadConfig(flags);
  if (!loaded.ok()) {
    LogError("{}", loaded.status().message());
    return kExitUsage;
  }
  DaemonConfig config = std::move(loaded).value();
  if (config.debug_log) SetLogThreshold(LogLevel::kDebug);
  // The limit it runs with, for whoever reads why producers or clients
  // were refused descriptors (docs/daemon.md: bounds).
  LogInfo("{}", RaiseFdLimit());

  // Who TCP callers are: their tokens are read once, here, before anything
  // is made.
  std::optional<TcpAuthenticator> tcp_authenticator;
  if (!config.listen.empty() && !config.insecure_tcp_admin) {
    std::optional<TokenTable> tokens;
    if (!config.listen_token_dir.empty()) {
      auto read = TokenTable::Load(config.listen_token_dir, ::geteuid());
      if (!read.ok()) {
        LogError("{}", read.status().message());
        return kExitUsage;
      }
      tokens = std::move(read).value();
    }
    tcp_authenticator.emplace(std::move(tokens), !config.tls_client_ca.empty());
  }

  const std::string run_folder = std::filesystem::path(config.socket).parent_path();
  const std::string db_folder = std::filesystem::path(config.db).parent_path();
  for (const auto& [folder, mode] : {std::pair{run_folder, 0755}, std::pair{db_folder, 0750}}) {
    if (Status st = MakeFolder(folder, static_cast<mode_t>(mode)); !st.ok()) {
      LogError("{}", st.message());
      return kExitFailure;
    }
  }
  // Before anything is made in it (the instance lock): a folder another
  // user owns is refused by name, not by the lock's failure.
  if (std::string problem = SocketFolderProblem(run_folder, ::geteuid()); !problem.empty()) {
    LogError("{}", problem);
    return kExitFailure;
  }
  auto lock = InstanceLock::Acquire(run_folder, config.ns);
  if (!lock.ok()) {
    LogError("{}", lock.status().message());
    return kExitFailure;
  }
  auto policy = LevelPolicy::Create(config.level, config.level_rules);
  if (!policy.ok()) {
    LogError("{}", policy.status().message());
    return kExitUsage;
  }
  auto metric_labels = OpLabelSet::Parse(config.metrics_labels);
  if (!metric_labels.ok()) {
    LogError("{}", metric_labels.status().message());
    return kExitUsage;
  }
  StoreOptions store_options;
  store_options.db_path = config.db;
  store_options.retention_max_bytes = config.retention_max_bytes;
  store_options.retention_max_age_ns = config.retention_max_age_ns;
  store_options.uid_max_bytes = config.uid_max_bytes;
  store_options.keep_last_ns = config.keep_last_ns;
  store_options.keep_last_bytes = config.keep_last_bytes;
  store_options.keep_session_max_bytes = config.keep_session_max_bytes;
  store_options.keep_uid_max_bytes = config.keep_uid_max_bytes;
  store_options.keep_after_ns = config.keep_after_ns;
  store_options.keep_before_ns = config.keep_before_ns;
  store_options.keep_rules = config.keep_rules;
  // Counted as the writer commits (a lookup and a few increments per
  // span), only when the endpoint is on: otherwise it stays empty.
  OpMetrics op_metrics({.limits = {config.metrics_max_names_per_session, config.metrics_max_series},
                        .labels = std::move(metric_labels).value(),
                        .ended_grace_ns = config.metrics_series_grace_ns,
                        .now_ns = {}});
  if (!config.metrics_listen.empty()) store_options.committed_observer = &op_metrics;
  auto store = SpanStore::Open(store_options);
  if (!store.ok()) {
    LogError("{}", store.status().message());
    return kExitFailure;
  }
  auto resume = store.value()->LoadResumeState();
  if (!resume.ok()) {
    LogError("cannot read {}: {}", config.db, resume.status().message());
    return kExitFailure;
  }
  if (!config.metrics_listen.empty()) op_metrics.OnResumedStrings(resume.value().strings);
  auto reader = SpanReader::Open(config.db);
  if (!reader.ok()) {
    LogError("cannot read {}: {}", config.db, reader.status().message());
    return kExitFailure;
  }
  // Forwarding to ClickHouse: its own thread and connections; the fleet
  // queries use the same server and tables.
  std::optional<FleetQueries> fleet;
  std::unique_ptr<ClickHouseForwarder> forwarder;
  if (!config.forward.url.empty()) {
    auto source = FleetSourceOf(config.forward);
    if (!source.ok()) {
      LogError("{}", source.status().message());
      return kExitUsage;
    }
    ForwarderOptions forward_options;
    forward_options.db_path = config.db;
    forward_options.endpoint = source.value().endpoint;
    forward_options.tables = source.value().tables;
    forward_options.node = NodeName(config);
    forward_options.batch_spans = config.forward.batch_spans;
    forward_options.flush_interval = std::chrono::nanoseconds(config.forward.flush_interval_ns);
    auto started = ClickHouseForwarder::Start(std::move(forward_options));
    if (!started.ok()) {
      LogError("forwarding to ClickHouse: {}", started.status().message());
      return kExitFailure;
    }
    forwarder = std::move(started).value();
    fleet.emplace(std::move(source).value());
    LogInfo("forwarding spans to ClickHouse at {} ({}) as node '{}'",
            RedactedUrl(config.forward.url), fleet->source().tables.InsertTable(),
            NodeName(config));
  }
  auto control = ControlSegment::Create("/dev/shm", config.ns);
  if (!control.ok()) {
    LogError("{}", control.status().message());
    return kExitFailure;
  }
  control.value()->SetDefaultLevel(config.level);

  DrainOptions drain_options;
  drain_options.attach.ns = config.ns;
  drain_options.attach.any_uid = ::geteuid() == 0;
  drain_options.attach.allowed_uids = config.allowed_uids;
  drain_options.max_segments_per_uid = static_cast<uint32_t>(config.max_segments_per_uid);
  drain_options.limits.listings = {
      config.listings, config.listing_max_bytes,
      static_cast<uint32_t>(std::min<uint64_t>(config.listing_max_files, UINT32_MAX))};
  const SystemdNotifier systemd;
  drain_options.alive = [&systemd] { systemd.Watchdog(); };
  drain_options.alive_interval_ns = systemd.watchdog_interval_ns();
  TailHub tails;
  DrainLoop loop(drain_options, store.value().get(), std::move(reader).value(),
                 control.value().get(), policy.value(), &tails.publisher(), &tails);
  // Before any tail can subscribe: the loop re-evaluates levels when tails come and go.
  tails.OnChange([&loop] { loop.RefreshLevels(); });
  if (Status st = loop.Start(std::move(resume).value()); !st.ok()) {
    LogError("{}", st.message());
    return kExitFailure;
  }
  // RSS follows what the daemon holds, not its last burst (RELIABILITY.md).
  const MemoryTrimmer trimmer(std::chrono::seconds(2));
  const ApiServerOptions api_options{config.socket,
                                     config.socket_group,
                                     config.listen,
                                     config.tls_cert,
                                     config.tls_key,
                                     config.tls_client_ca,
                                     tcp_authenticator ? &*tcp_authenticator : nullptr,
                                     config.insecure_tcp_admin};
  // What optrace status lists: every TCP and HTTP listener and whom it serves.
  std::vector<v1::Listener> listeners;
  if (!config.listen.empty()) listeners.push_back(DescribeTcpListener(api_options));
  if (!config.metrics_listen.empty()) {
    listeners.push_back(DescribeMetricsListener(
        config.metrics_listen, !config.metrics_token_file.empty(), config.metrics_insecure));
  }
  PeerRegistry peers;
  AcceptCounters accepts;
  CallerIdentifier callers(&peers, config.admin_group,
                           TcpIdentity{api_options.tcp_authenticator, config.insecure_tcp_admin});
  StreamQuota streams(StreamLimits{
      static_cast<uint32_t>(config.max_streams_per_uid), config.max_bytes_in_flight_per_uid,
      static_cast<uint32_t>(config.max_threaded_streams),
      static_cast<uint32_t>(
          std::min(config.max_threaded_streams_per_uid, config.max_threaded_streams))});
  OpTraceService service(ServiceContext{
      &loop, &tails, &streams, store.value().get(), &callers, config.db, config.ns, OPTRACE_VERSION,
      config.level_rules, std::chrono::steady_clock::now(), fleet ? &*fleet : nullptr,
      forwarder.get(), &accepts, WindowLimits{config.keep_last_ns, config.keep_last_bytes},
      listeners,
      QueryLimits{.max_groups = config.max_query_groups,
                  .max_exact_durations = config.max_query_durations_bytes / sizeof(uint64_t),
                  .second_thread = {}},
      config.max_open_ops_returned});
  auto server = ApiServer::Start(api_options, &service, &peers, &accepts);
  if (!server.ok()) {
    LogError("{}", server.status().message());
    loop.RequestStop();
    loop.Join();
    return kExitFailure;
  }
  std::unique_ptr<MetricsEndpoint> metrics;
  if (!config.metrics_listen.empty()) {
    auto started = MetricsEndpoint::Start(
        {config.metrics_listen, config.metrics_token_file, config.metrics_insecure},
        [&service](v1::GetStatusResponse* status) { return service.FullStatus(status); },
        &op_metrics);
    if (!started.ok()) {
      LogError("{}", started.status().message());
      server.value()->Shutdown();
      loop.RequestStop();
      loop.Join();
      return kExitFailure;
    }
    metrics = std::move(started).value();
    LogInfo("serving metrics on {} (http://{}/metrics){}", config.metrics_listen,
            config.metrics_listen,
            metrics->requires_token() ? ", bearer token required" : ", no token");
  }
  if (tcp_authenticator) {
    std::string by;
    if (tcp_authenticator->token_users() > 0) {
      by = fmt::format("bearer tokens ({} users)", tcp_authenticator->token_users());
    }
    if (tcp_authenticator->client_certificates()) {
      by += (by.empty() ? "" : " or ") + std::string("client certificates");
    }
    LogInfo("serving gRPC on TCP {} ({}): callers identified by {}", config.listen,
            config.tls_cert.empty() ? "plaintext" : "TLS", by);
  }
  for (const v1::Listener& listener : listeners) {
    if (listener.unauthenticated()) LogWarning("{}", listener.warning());
  }
  LogInfo("optraced {} ready: namespace '{}', socket {}, db {}, default level {}", OPTRACE_VERSION,
          config.ns, config.socket, config.db, LevelName(config.level));
  systemd.Ready("serving namespace '" + config.ns + "' on " + config.socket);

  // Signals arrive here only (blocked in every other thread, see main).
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, s);
  while (true) {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0) continue;
    if (sig != SIGHUP) {
      LogInfo("{}: draining and flushing before exit", strsignal(sig));
      break;
    }
    auto reloaded = LoadConfig(flags);
    if (!reloaded.ok()) {
      LogError("reload refused, keeping the running config: {}", reloaded.status().message());
      continue;
    }
    auto new_policy = LevelPolicy::Create(reloaded.value().level, reloaded.value().level_rules);
    if (!new_policy.ok()) {
      LogError("reload refused, keeping the running config: {}", new_policy.status().message());
      continue;
    }
    loop.SetPolicy(new_policy.value());
    if (const auto at_restart = ChangedConfigKeys(config, reloaded.value(), ReloadRule::kAtRestart);
        !at_restart.empty()) {
      LogWarning("reload: changes to {} take effect at restart", fmt::join(at_restart, ", "));
    }
    LogInfo("reloaded config: default level {}, {} level rules", LevelName(reloaded.value().level),
            reloaded.value().level_rules.size());
  }
  // Streams first (tails end, their levels are restored by the loop's last
  // pass), then drain, store and detach.
  systemd.Stopping();
  metrics.reset();
  server.value()->Shutdown();
  loop.RequestStop();
  loop.Join();
  // What is not sent yet stays in the database; the next start sends it.
  forwarder.reset();
  return 0;
}

}  // namespace
}  // namespace optrace::daemon

int main(int argc, char** argv) {
  using optrace::daemon::Flags;
  Flags flags;
  CLI::App app{
      "optraced: drains optrace producers' shared-memory rings into SQLite and serves "
      "live levels and queries over gRPC.\n\nExample:\n  optraced --level trace --db "
      "/tmp/ops.db"};
  app.set_version_flag("--version", std::string("optraced ") + OPTRACE_VERSION);
  app.add_option("--config", flags.config, "TOML config file (every key optional)")
      ->check(CLI::ExistingFile);
  app.add_option("--socket", flags.socket, "Unix socket of the gRPC API");
  app.add_option("--listen", flags.listen,
                 "also serve gRPC on TCP HOST:PORT (opt-in; TLS needed beyond loopback; callers "
                 "identified by --listen-token-dir or --tls-client-ca)");
  app.add_option("--tls-cert", flags.tls_cert, "PEM certificate for --listen");
  app.add_option("--tls-key", flags.tls_key, "PEM private key for --listen");
  app.add_option("--listen-token-dir", flags.listen_token_dir,
                 "folder of bearer token files, one per user and named for the user, that "
                 "identify --listen's callers (owner-only: 0600)");
  app.add_option("--tls-client-ca", flags.tls_client_ca,
                 "PEM CA whose client certificates identify --listen's callers (the common name "
                 "names the user); needs --tls-cert");
  app.add_flag("--insecure-tcp-admin", flags.insecure_tcp_admin,
               "serve --listen without identifying callers: every TCP caller is an admin");
  app.add_option("--db", flags.db, "SQLite database file");
  app.add_option("--namespace", flags.ns, "shared-memory namespace of the producers to serve");
  app.add_option("--level", flags.level,
                 "default live level: off, error, warning, info, debug, trace");
  app.add_option("--retention-max-bytes", flags.retention_max_bytes,
                 "keep the database within this size: the biggest consumer's oldest data goes "
                 "first (e.g. 1GiB; 0 = unbounded)");
  app.add_option("--retention-max-age", flags.retention_max_age,
                 "delete ended sessions older than this (e.g. 7d; 0 = unbounded)");
  app.add_option("--uid-max-bytes", flags.uid_max_bytes,
                 "span pages one uid's sessions may hold (e.g. 256MiB; 0 = unbounded)");
  app.add_option("--keep-last", flags.keep_last,
                 "rolling window of a running session: keep its last D of spans (default 10m; "
                 "0 keeps everything)");
  app.add_option("--keep-last-bytes", flags.keep_last_bytes,
                 "rolling window of a running session: at most this many bytes of span pages "
                 "(default 256MiB; 0 = unbounded)");
  app.add_option("--keep-session-max-bytes", flags.keep_session_max_bytes,
                 "keeps: span page bytes one session's kept ranges may hold (default 64MiB; "
                 "0 = unbounded; all keeps stay within half of --retention-max-bytes)");
  app.add_option("--keep-uid-max-bytes", flags.keep_uid_max_bytes,
                 "keeps: span page bytes one uid's kept ranges may hold (default 256MiB; "
                 "0 = unbounded)");
  app.add_option("--max-segments-per-uid", flags.max_segments_per_uid,
                 "producer segments of one uid attached at once; more wait until one ends "
                 "(default 256)");
  bool foreground = true;
  app.add_flag("--foreground", foreground,
               "run in the foreground (the default: for service managers)");
  app.add_option("--forward-clickhouse", flags.forward_clickhouse,
                 "forward every stored span to the ClickHouse HTTP interface at this URL "
                 "(e.g. http://ch1:8123), and answer fleet queries from it");
  app.add_option("--node", flags.node, "this machine's name in the fleet (default: the host name)");
  app.add_option("--metrics-listen", flags.metrics_listen,
                 "serve Prometheus metrics at http://HOST:PORT/metrics (opt-in; it needs "
                 "--metrics-token-file or --metrics-insecure)");
  app.add_option("--metrics-token-file", flags.metrics_token_file,
                 "file holding the bearer token /metrics requires (not readable by others)");
  app.add_flag("--metrics-insecure", flags.metrics_insecure,
               "serve --metrics-listen without a token, to anyone who can reach it");
  app.add_flag("--no-listings", flags.no_listings,
               "store no source listings (producers still read their own; "
               "OPTRACE_LISTINGS=0 stops that)");
  app.add_option("--listing-max-bytes", flags.listing_max_bytes,
                 "source listing text one session may store (default 4MiB)");
  app.add_flag("--debug", flags.debug, "log debug messages");
  CLI11_PARSE(app, argc, argv);

  // Signals are taken by the main thread with sigwait: block them before
  // any thread starts so that every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // A file-size limit turns into write errors (reported, retried) instead
  // of killing the daemon.
  signal(SIGXFSZ, SIG_IGN);
  return optrace::daemon::Run(flags);
}
