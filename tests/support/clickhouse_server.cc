#include "clickhouse_server.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "forward/clickhouse_client.h"

namespace optrace::testing {
namespace {

using namespace std::chrono_literals;

void WriteFile(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

std::optional<std::string> FindClickHouseServer(std::string* why) {
  for (const char* path : {"/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server"}) {
    if (::access(path, X_OK) == 0) return std::string(path);
  }
  *why = "clickhouse-server is not installed (deploy/install-deps.sh installs Debian's)";
  return std::nullopt;
}

ClickHousePorts ClickHousePorts::Free() {
  return {FreeLoopbackPort(), FreeLoopbackPort(), FreeLoopbackPort()};
}

std::string ClusterConfig(const std::string& cluster, const std::vector<ClickHousePorts>& shards) {
  std::string xml = "<" + cluster + ">\n";
  for (const ClickHousePorts& shard : shards) {
    xml += "  <shard><replica><host>127.0.0.1</host><port>" + std::to_string(shard.tcp) +
           "</port></replica></shard>\n";
  }
  return xml + "</" + cluster + ">\n";
}

ClickHouseServer::ClickHouseServer(std::string binary, std::string folder, ClickHousePorts ports,
                                   const std::string& remote_servers)
    : binary_(std::move(binary)), folder_(std::move(folder)), ports_(ports) {
  for (const char* sub : {"data", "tmp", "log", "user_files"}) {
    std::filesystem::create_directories(folder_ + "/" + sub);
  }
  // Only the default user, without password, from loopback only.
  WriteFile(folder_ + "/users.xml", R"(<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
  </interval></default></quotas>
</yandex>
)");
  WriteFile(folder_ + "/cluster.xml",
            "<?xml version=\"1.0\"?>\n<yandex>\n"
            "<clickhouse_remote_servers>\n" +
                remote_servers + "</clickhouse_remote_servers>\n</yandex>\n");
  const std::string f = folder_;
  WriteFile(folder_ + "/config.xml", R"(<?xml version="1.0"?>
<yandex>
  <logger>
    <level>information</level>
    <log>)" + f + R"(/log/server.log</log>
    <errorlog>)" + f + R"(/log/error.log</errorlog>
    <size>10M</size><count>1</count>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>)" + std::to_string(ports_.http) +
                                         R"(</http_port>
  <tcp_port>)" + std::to_string(ports_.tcp) +
                                         R"(</tcp_port>
  <interserver_http_port>)" + std::to_string(ports_.interserver) +
                                         R"(</interserver_http_port>
  <path>)" + f + R"(/data/</path>
  <tmp_path>)" + f + R"(/tmp/</tmp_path>
  <user_files_path>)" + f + R"(/user_files/</user_files_path>
  <users_config>)" + f + R"(/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <include_from>)" + f + R"(/cluster.xml</include_from>
  <remote_servers incl="clickhouse_remote_servers"/>
</yandex>
)");
}

ClickHouseServer::~ClickHouseServer() { Kill(); }

bool ClickHouseServer::Start(std::string* why) {
  process_ = std::make_unique<Subprocess>(
      std::vector<std::string>{binary_, "--config-file=" + folder_ + "/config.xml"});
  daemon::ClickHouseEndpoint endpoint;
  endpoint.url = url();
  endpoint.connect_timeout_ms = 500;
  endpoint.timeout_ms = 2000;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto client = daemon::ClickHouseClient::Create(endpoint);
    if (client.ok()) {
      auto answer = client.value()->Query("SELECT 1");
      if (answer.ok() && answer.value() == "1\n") return true;
    }
    if (process_->Wait(50ms).has_value()) break;  // it exited
  }
  *why = "clickhouse-server on port " + std::to_string(ports_.http) +
         " did not come up; stderr: " + process_->stderr_text() + "; error log: " + ErrorLog();
  Kill();
  return false;
}

void ClickHouseServer::Stop() {
  if (!process_) return;
  process_->Kill(SIGTERM);
  if (!process_->Wait(20s)) {
    process_->Kill(SIGKILL);
    process_->Wait(10s);
  }
  process_.reset();
}

void ClickHouseServer::Kill() {
  if (!process_) return;
  process_->Kill(SIGKILL);
  process_->Wait(10s);
  process_.reset();
}

std::string ClickHouseServer::ErrorLog() const { return ReadFile(folder_ + "/log/error.log"); }

}  // namespace optrace::testing
