// A TCP proxy on loopback in front of one ClickHouse server's HTTP port,
// for the fleet tests: it passes every byte through, but can swallow the
// answers of INSERTs. ClickHouse has applied such an INSERT; its client
// sees the connection closed without an answer, an outcome it cannot know.
#ifndef OPTRACE_TESTS_FLEET_ANSWER_DROPPING_PROXY_H_
#define OPTRACE_TESTS_FLEET_ANSWER_DROPPING_PROXY_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace optrace::testing {

// Thread rules: the public methods are thread-safe.
class AnswerDroppingProxy {
 public:
  // Listens on a free loopback port and relays each connection to
  // 127.0.0.1:`upstream_port`. ok() says whether it listens.
  explicit AnswerDroppingProxy(int upstream_port);
  // Closes every connection and joins the threads.
  ~AnswerDroppingProxy();
  AnswerDroppingProxy(const AnswerDroppingProxy&) = delete;
  AnswerDroppingProxy& operator=(const AnswerDroppingProxy&) = delete;

  bool ok() const { return listen_fd_ >= 0; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // The answers of the next `count` INSERT requests are not passed on:
  // their connections are closed once ClickHouse starts to answer.
  void DropInsertAnswers(int count) { to_drop_.store(count); }
  // How many answers were dropped so far.
  int dropped() const { return dropped_.load(); }

 private:
  struct Connection;
  void Accept();
  // Client to server; notes whether the request in flight is an INSERT.
  void RelayRequests(Connection* connection);
  // Server to client, but for the answers to drop.
  void RelayAnswers(Connection* connection);

  const int upstream_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<int> to_drop_{0};
  std::atomic<int> dropped_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> connections_;  // GUARDED_BY(mu_)
  std::vector<std::thread> threads_;                      // GUARDED_BY(mu_)
  std::thread acceptor_;
};

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_FLEET_ANSWER_DROPPING_PROXY_H_
