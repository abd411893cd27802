#include "ui/devtools_browser.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <vector>

namespace optrace::cli::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kCallTimeout{30};

}  // namespace

DevtoolsBrowser::DevtoolsBrowser(const std::string& chromium, const std::string& profile_folder) {
  int to[2];
  int from[2];
  if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0) {
    error_ = "pipe2 failed";
    return;
  }
  const std::vector<std::string> args = {chromium,
                                         "--headless=new",
                                         "--no-sandbox",
                                         "--disable-gpu",
                                         "--no-first-run",
                                         "--window-size=1200,800",
                                         "--user-data-dir=" + profile_folder,
                                         "--remote-debugging-pipe",
                                         "about:blank"};
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ == 0) {
    // Above 4 first, so that placing them at 3 and 4 cannot close one.
    const int in = ::fcntl(to[0], F_DUPFD, 10);
    const int out = ::fcntl(from[1], F_DUPFD, 10);
    const int null = ::open("/dev/null", O_RDWR);
    if (in < 0 || out < 0 || null < 0 || ::dup2(in, 3) != 3 || ::dup2(out, 4) != 4 ||
        ::dup2(null, 1) != 1 || ::dup2(null, 2) != 2) {
      ::_exit(126);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(to[0]);
  ::close(from[1]);
  to_browser_ = to[1];
  from_browser_ = from[0];
  if (pid_ < 0) {
    error_ = "fork failed";
    return;
  }
  // The page it opened with, and a session attached to it.
  const std::optional<json> targets = Call("Target.getTargets", json::object(), true);
  if (!targets) return;
  std::string target;
  for (const json& info : targets->at("targetInfos")) {
    if (info.at("type") == "page") target = info.at("targetId");
  }
  if (target.empty()) {
    error_ = "no page among the browser's targets: " + targets->dump();
    return;
  }
  const std::optional<json> attached =
      Call("Target.attachToTarget", {{"targetId", target}, {"flatten", true}}, true);
  if (!attached) return;
  session_ = attached->at("sessionId");
  if (!Call("Page.enable") || !Call("Runtime.enable")) session_.clear();
}

DevtoolsBrowser::~DevtoolsBrowser() {
  if (to_browser_ >= 0) ::close(to_browser_);
  if (from_browser_ >= 0) ::close(from_browser_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

std::optional<json> DevtoolsBrowser::Read(Clock::time_point deadline) {
  while (true) {
    const size_t end = pending_.find('\0');
    if (end != std::string::npos) {
      const std::string message = pending_.substr(0, end);
      pending_.erase(0, end + 1);
      json parsed = json::parse(message, nullptr, false);
      if (parsed.is_discarded()) {
        error_ = "unparsable message: " + message;
        return std::nullopt;
      }
      return parsed;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      error_ = "no answer in time";
      return std::nullopt;
    }
    pollfd fd{.fd = from_browser_, .events = POLLIN, .revents = 0};
    if (::poll(&fd, 1, static_cast<int>(left)) <= 0) continue;
    char buffer[65536];
    const ssize_t got = ::read(from_browser_, buffer, sizeof buffer);
    if (got <= 0) {
      error_ = "the browser closed its pipe";
      return std::nullopt;
    }
    pending_.append(buffer, static_cast<size_t>(got));
  }
}

std::optional<json> DevtoolsBrowser::Call(const std::string& method, json params, bool to_browser) {
  const int id = ++next_id_;
  json command = {{"id", id}, {"method", method}, {"params", std::move(params)}};
  if (!to_browser) command["sessionId"] = session_;
  const std::string bytes = command.dump() + '\0';
  if (::write(to_browser_, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    error_ = "writing " + method + " failed";
    return std::nullopt;
  }
  const Clock::time_point deadline = Clock::now() + kCallTimeout;
  while (std::optional<json> message = Read(deadline)) {
    if (!message->contains("id") || message->at("id") != id) continue;  // an event
    if (message->contains("error")) {
      error_ = method + ": " + message->at("error").dump();
      return std::nullopt;
    }
    return message->value("result", json::object());
  }
  error_ = method + ": " + error_;
  return std::nullopt;
}

bool DevtoolsBrowser::Navigate(const std::string& url) {
  return Call("Page.navigate", {{"url", url}}).has_value();
}

std::optional<json> DevtoolsBrowser::Evaluate(const std::string& expression) {
  const std::optional<json> result =
      Call("Runtime.evaluate",
           {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}});
  if (!result) return std::nullopt;
  if (result->contains("exceptionDetails")) {
    error_ = expression + " threw: " + result->at("exceptionDetails").dump();
    return std::nullopt;
  }
  return result->at("result").value("value", json());
}

bool DevtoolsBrowser::WaitFor(const std::string& expression, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    const std::optional<json> value = Evaluate(expression);
    if (value && value->is_boolean() && value->get<bool>()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  error_ = "not true in time: " + expression;
  return false;
}

}  // namespace optrace::cli::testing
