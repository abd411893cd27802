#include "ui_command.h"

#include <fmt/core.h>

#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>

#include "common/default_paths.h"
#include "exit_codes.h"
#include "interrupt_watcher.h"
#include "ui/browser_opener.h"
#include "ui/ui_runtime_files.h"
#include "ui/ui_server.h"
#include "ui/ui_token.h"

namespace optrace::cli {

std::string UiUrl(int port, const std::string& token) {
  return fmt::format("http://127.0.0.1:{}/?token={}", port, token);
}

int RunUi(Connection& connection, const UiOptions& options) {
  if (options.port > 65535) {
    return Fail({kExitUsage, fmt::format("--port {} is not 0..65535", options.port)});
  }
  const std::optional<std::string> token = NewUiToken();
  if (!token) return Fail({kExitFailure, "no random bytes for the token (getrandom failed)"});
  auto server = UiServer::Start(static_cast<int>(options.port), *token, connection);
  if (!server.ok()) return Fail({kExitFailure, server.status().message()});
  const int port = server.value()->port();
  const std::string url = UiUrl(port, *token);
  CliError error;
  const std::unique_ptr<UiRuntimeFiles> files =
      UiRuntimeFiles::Write(DefaultRuntimeFolder(), port, *token, url, &error);
  if (!files) return Fail(error);

  // Ctrl-C is caught before the URL is out: whoever reads the URL may stop
  // the server at once, and its files must still be removed.
  std::mutex mu;
  std::condition_variable stopped_cv;
  bool stopped = false;  // GUARDED_BY(mu)
  const InterruptWatcher watcher([&] {
    std::lock_guard<std::mutex> lock(mu);
    stopped = true;
    stopped_cv.notify_all();
  });
  fmt::print("optrace ui: the sessions of the daemon at {}, for this user only, at\n{}\n",
             connection.address(), url);
  fmt::print("(token in {}; Ctrl-C stops)\n", files->token_path());
  std::fflush(stdout);
  if (!options.no_open && !OpenInBrowser(files->open_page_path())) {
    fmt::print("no browser to open here (xdg-open and a display); open the URL above\n");
    std::fflush(stdout);
  }

  std::unique_lock<std::mutex> lock(mu);
  stopped_cv.wait(lock, [&] { return stopped; });
  return kExitOk;
}

CommandSpec DescribeUiCommand() {
  auto options = std::make_shared<UiOptions>();
  CommandSpec ui("ui", "a web view of the sessions, on 127.0.0.1, for this user");
  ui.footer =
      "Examples:\n  optrace ui\n  optrace ui --port 8090 --no-open\n"
      "Prints http://127.0.0.1:PORT/?token=...: the token is this run's secret (also in\n"
      "the runtime folder, 0600); the first page exchanges it for a cookie. Serves\n"
      "loopback only; over ssh: ssh -L 8090:127.0.0.1:8090 HOST, then open the URL.";
  ui.Add("--port", &options->port, "the port on 127.0.0.1 (0 = a free one)").ShowDefault();
  ui.AddFlag("--no-open", &options->no_open, "do not open a browser");
  ui.run = [options](Connection& connection) { return RunUi(connection, *options); };
  return ui;
}

}  // namespace optrace::cli
