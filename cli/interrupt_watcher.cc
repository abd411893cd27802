#include "interrupt_watcher.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

namespace optrace::cli {
namespace {

constexpr char kSignalByte = 's';
constexpr char kStopByte = 'q';

// The write end of the current watcher's pipe, for the handler. write(2)
// is async-signal-safe; the handler does nothing else.
volatile sig_atomic_t g_pipe_write = -1;
struct sigaction g_previous_int;
struct sigaction g_previous_term;

void OnSignal(int) {
  const int saved_errno = errno;
  const char byte = kSignalByte;
  // Nothing to do if the pipe is full: a byte is already waiting.
  if (g_pipe_write >= 0 && ::write(g_pipe_write, &byte, 1) < 0) errno = saved_errno;
  errno = saved_errno;
}

}  // namespace

InterruptWatcher::InterruptWatcher(std::function<void()> on_interrupt)
    : on_interrupt_(std::move(on_interrupt)) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;  // no watcher: signals keep their defaults
  pipe_read_ = fds[0];
  pipe_write_ = fds[1];
  g_pipe_write = pipe_write_;
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, &g_previous_int);
  ::sigaction(SIGTERM, &action, &g_previous_term);
  thread_ = std::thread([this] { Watch(); });
}

InterruptWatcher::~InterruptWatcher() {
  if (pipe_write_ < 0) return;
  ::sigaction(SIGINT, &g_previous_int, nullptr);
  ::sigaction(SIGTERM, &g_previous_term, nullptr);
  g_pipe_write = -1;
  const char byte = kStopByte;
  while (::write(pipe_write_, &byte, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  ::close(pipe_read_);
  ::close(pipe_write_);
}

void InterruptWatcher::Watch() {
  while (true) {
    char byte = 0;
    const ssize_t n = ::read(pipe_read_, &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || byte == kStopByte) return;
    if (!interrupted_.exchange(true, std::memory_order_acq_rel)) on_interrupt_();
  }
}

}  // namespace optrace::cli
