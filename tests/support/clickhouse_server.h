// A real clickhouse-server for the tests that forward to ClickHouse
// (tests/fleet/ and the forwarder's own test): run by hand (no systemd)
// with a config of its own, loopback only, on free ports, its data, tmp and
// log folders under a folder of the test.
#ifndef OPTRACE_TESTS_SUPPORT_CLICKHOUSE_SERVER_H_
#define OPTRACE_TESTS_SUPPORT_CLICKHOUSE_SERVER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "free_port.h"
#include "subprocess.h"

namespace optrace::testing {

// The clickhouse-server binary, or nullopt with the reason in `why` when
// it is not installed.
std::optional<std::string> FindClickHouseServer(std::string* why);

// The ports of one server.
struct ClickHousePorts {
  int http = 0;
  int tcp = 0;
  int interserver = 0;

  static ClickHousePorts Free();  // three free ports
};

// `cluster` as remote_servers XML: one shard per server, each with one
// replica at 127.0.0.1 and its native (tcp) port.
std::string ClusterConfig(const std::string& cluster, const std::vector<ClickHousePorts>& shards);

// One clickhouse-server process and its config files. Move-free and
// copy-free: it owns the process, which it kills when destroyed.
// Thread rules: one thread.
class ClickHouseServer {
 public:
  // Writes its config files into `folder` (which must exist); does not
  // start it. `remote_servers` is what ClusterConfig makes ("" for none).
  ClickHouseServer(std::string binary, std::string folder, ClickHousePorts ports,
                   const std::string& remote_servers);
  ~ClickHouseServer();  // kills a server still running
  ClickHouseServer(const ClickHouseServer&) = delete;
  ClickHouseServer& operator=(const ClickHouseServer&) = delete;

  // Starts it and waits until it answers queries (20 s at most); false
  // with its logs in `why` otherwise.
  bool Start(std::string* why);
  // SIGTERM, then waits for it to exit (SIGKILL after 20 s).
  void Stop();
  // SIGKILL, as a crash would.
  void Kill();

  std::string url() const { return "http://127.0.0.1:" + std::to_string(ports_.http); }
  const ClickHousePorts& ports() const { return ports_; }
  // Its error log so far, for failure messages.
  std::string ErrorLog() const;

 private:
  std::string binary_;
  std::string folder_;
  ClickHousePorts ports_;
  std::unique_ptr<Subprocess> process_;
};

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_CLICKHOUSE_SERVER_H_
