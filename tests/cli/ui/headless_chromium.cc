#include "ui/headless_chromium.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

extern char** environ;

namespace optrace::cli::testing {
namespace {

using Clock = std::chrono::steady_clock;

// The bytes of the base64 text `text` (RFC 4648, padded).
std::string DecodeBase64(const std::string& text) {
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    int value = -1;
    if (c >= 'A' && c <= 'Z') value = c - 'A';
    if (c >= 'a' && c <= 'z') value = c - 'a' + 26;
    if (c >= '0' && c <= '9') value = c - '0' + 52;
    if (c == '+') value = 62;
    if (c == '/') value = 63;
    if (value < 0) continue;  // padding
    bits = (bits << 6) | static_cast<uint32_t>(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

}  // namespace

HeadlessChromium::HeadlessChromium(const std::string& chromium, const std::string& profile_folder) {
  int commands[2];  // [0]: the browser's fd 3
  int answers[2];   // [1]: the browser's fd 4
  if (::pipe2(commands, O_CLOEXEC) != 0) return;
  if (::pipe2(answers, O_CLOEXEC) != 0) {
    ::close(commands[0]);
    ::close(commands[1]);
    return;
  }
  std::vector<std::string> args = {chromium,
                                   "--headless=new",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--no-first-run",
                                   "--remote-debugging-pipe",
                                   "--user-data-dir=" + profile_folder,
                                   "about:blank"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, commands[0], 3);
  posix_spawn_file_actions_adddup2(&actions, answers[1], 4);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const int spawned =
      ::posix_spawn(&pid_, chromium.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(commands[0]);
  ::close(answers[1]);
  to_browser_ = commands[1];
  from_browser_ = answers[0];
  if (spawned != 0) {
    pid_ = -1;
    return;
  }
  ok_ = Call("Browser.getVersion", nlohmann::json::object(), false, std::chrono::seconds(60))
            .has_value();
}

HeadlessChromium::~HeadlessChromium() {
  if (pid_ > 0) {
    Call("Browser.close", nlohmann::json::object(), false, std::chrono::seconds(5));
    int status = 0;
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(10);
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      ::usleep(20'000);
    }
  }
  if (to_browser_ >= 0) ::close(to_browser_);
  if (from_browser_ >= 0) ::close(from_browser_);
}

std::optional<nlohmann::json> HeadlessChromium::Call(const std::string& method,
                                                     const nlohmann::json& params, bool to_tab,
                                                     std::chrono::milliseconds timeout) {
  const int id = ++next_id_;
  nlohmann::json message = {{"id", id}, {"method", method}, {"params", params}};
  if (to_tab) message["sessionId"] = tab_session_;
  const std::string bytes = message.dump() + '\0';
  for (size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::write(to_browser_, bytes.data() + sent, bytes.size() - sent);
    if (n <= 0) return std::nullopt;
    sent += static_cast<size_t>(n);
  }
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    // Answers and events in order: skip to the answer of `id`.
    for (size_t end; (end = pending_.find('\0')) != std::string::npos;) {
      nlohmann::json answer = nlohmann::json::parse(pending_.substr(0, end), nullptr, false);
      pending_.erase(0, end + 1);
      if (!answer.is_object() || !answer.contains("id") || answer["id"] != id) continue;
      if (answer.contains("error")) return std::nullopt;
      return answer["result"];
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd readable{from_browser_, POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[65536];
    const ssize_t n = ::read(from_browser_, buffer, sizeof buffer);
    if (n <= 0) return std::nullopt;
    pending_.append(buffer, static_cast<size_t>(n));
  }
}

bool HeadlessChromium::Open(const std::string& url) {
  const auto target = Call("Target.createTarget", {{"url", url}}, false, std::chrono::seconds(30));
  if (!target) return false;
  const auto attached =
      Call("Target.attachToTarget", {{"targetId", (*target)["targetId"]}, {"flatten", true}}, false,
           std::chrono::seconds(30));
  if (!attached) return false;
  tab_session_ = (*attached)["sessionId"].get<std::string>();
  return true;
}

std::optional<nlohmann::json> HeadlessChromium::Evaluate(const std::string& expression,
                                                         std::chrono::milliseconds timeout) {
  const auto result = Call(
      "Runtime.evaluate",
      {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}}, true, timeout);
  if (!result || result->contains("exceptionDetails")) return std::nullopt;
  const nlohmann::json& value = (*result)["result"];
  return value.contains("value") ? value["value"] : nlohmann::json();
}

std::optional<std::string> HeadlessChromium::Screenshot() {
  const nlohmann::json window = {
      {"width", 1200}, {"height", 800}, {"deviceScaleFactor", 1}, {"mobile", false}};
  if (!Call("Emulation.setDeviceMetricsOverride", window, true, std::chrono::seconds(30))) {
    return std::nullopt;
  }
  const auto shot =
      Call("Page.captureScreenshot", {{"format", "png"}}, true, std::chrono::seconds(60));
  if (!shot || !shot->contains("data")) return std::nullopt;
  return DecodeBase64((*shot)["data"].get<std::string>());
}

bool HeadlessChromium::WaitUntil(const std::string& expression, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    const auto value = Evaluate(expression);
    if (value && value->is_boolean() && value->get<bool>()) return true;
    ::usleep(100'000);
  }
  return false;
}

}  // namespace optrace::cli::testing
