#include "subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace optrace::testing {
namespace {

void MakePipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
}

}  // namespace

Subprocess::Subprocess(std::vector<std::string> argv, std::map<std::string, std::string> env) {
  int in[2], out[2], err[2];
  MakePipe(in);
  MakePipe(out);
  MakePipe(err);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    for (const auto& [key, value] : env) {
      if (value.empty()) {
        ::unsetenv(key.c_str());
      } else {
        ::setenv(key.c_str(), value.c_str(), 1);
      }
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
  stderr_fd_ = err[0];
}

Subprocess::~Subprocess() {
  if (!status_) {
    ::kill(pid_, SIGKILL);
    Wait(std::chrono::seconds(10));
  }
  for (int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) {
    if (fd >= 0) ::close(fd);
  }
}

void Subprocess::Pump(int timeout_ms) {
  pollfd fds[2] = {{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};
  const nfds_t n = 2;
  if (stdout_fd_ < 0 && stderr_fd_ < 0) return;
  if (::poll(fds, n, timeout_ms) <= 0) return;
  char buf[65536];
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    const ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
    if (r > 0) {
      (i == 0 ? out_ : err_).append(buf, static_cast<size_t>(r));
    } else if (r == 0) {
      ::close(fds[i].fd);
      (i == 0 ? stdout_fd_ : stderr_fd_) = -1;
    }
  }
}

std::optional<std::string> Subprocess::WaitForLine(const std::string& prefix,
                                                   std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    size_t nl;
    while ((nl = out_.find('\n', out_scanned_)) != std::string::npos) {
      const std::string line = out_.substr(out_scanned_, nl - out_scanned_);
      out_scanned_ = nl + 1;
      if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
    }
    if (stdout_fd_ < 0 || std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    Pump(20);
  }
}

bool Subprocess::WaitForStderr(const std::string& needle, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (err_.find(needle) == std::string::npos) {
    if (stderr_fd_ < 0 || std::chrono::steady_clock::now() >= deadline) return false;
    Pump(20);
  }
  return true;
}

void Subprocess::WriteStdin(const std::string& text) {
  if (stdin_fd_ >= 0) {
    [[maybe_unused]] ssize_t n = ::write(stdin_fd_, text.data(), text.size());
  }
}

void Subprocess::CloseStdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

void Subprocess::Kill(int sig) { ::kill(pid_, sig); }

std::optional<ExitStatus> Subprocess::Wait(std::chrono::milliseconds timeout) {
  if (status_) return status_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    Pump(10);
    int raw = 0;
    const pid_t r = ::waitpid(pid_, &raw, WNOHANG);
    if (r == pid_) {
      // Collect what is still in the pipes.
      while (stdout_fd_ >= 0 || stderr_fd_ >= 0) Pump(100);
      ExitStatus s;
      s.exited = WIFEXITED(raw);
      s.code = s.exited ? WEXITSTATUS(raw) : -1;
      s.signal = WIFSIGNALED(raw) ? WTERMSIG(raw) : 0;
      status_ = s;
      return status_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
  }
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

}  // namespace optrace::testing
