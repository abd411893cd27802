// One GET held open on a loopback socket, read a little at a time: what
// the live endpoint's tests need where Exchange (http_exchange.h) would
// wait for a close that an event stream never sends. It can also read
// nothing at all, as a page that stopped reading.
#ifndef OPTRACE_TESTS_CLI_UI_EVENT_STREAM_CLIENT_H_
#define OPTRACE_TESTS_CLI_UI_EVENT_STREAM_CLIENT_H_

#include <chrono>
#include <string>

namespace optrace::cli::testing {

class EventStreamClient {
 public:
  // Connects to 127.0.0.1:`port` and sends GET `target` with the Host
  // `host` and `extra_headers` (lines "Name: value\r\n"). With
  // `receive_buffer` > 0 the socket's receive buffer is set that small
  // first. connected() says whether the request went out.
  EventStreamClient(int port, const std::string& target, const std::string& host,
                    const std::string& extra_headers, int receive_buffer = 0);
  // Closes the socket: the page going away.
  ~EventStreamClient();
  EventStreamClient(const EventStreamClient&) = delete;
  EventStreamClient& operator=(const EventStreamClient&) = delete;

  bool connected() const { return fd_ >= 0; }

  // Reads until what came contains `needle` `times` times (true), the
  // server closes or `timeout` passes (false).
  bool ReadUntil(const std::string& needle, std::chrono::milliseconds timeout, size_t times = 1);

  // Everything read so far, headers included.
  const std::string& text() const { return text_; }

 private:
  int fd_ = -1;
  std::string text_;
};

}  // namespace optrace::cli::testing

#endif  // OPTRACE_TESTS_CLI_UI_EVENT_STREAM_CLIENT_H_
