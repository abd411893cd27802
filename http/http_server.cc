#include "http/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace optrace::http {
namespace {

// cpp-httplib's task queue with a bound: its own ThreadPool queues every
// accepted connection, so thousands of clients would hold thousands of
// fds and queue entries. Here the accept thread waits while `max_waiting`
// connections wait for a worker; the kernel's listen backlog refuses the
// rest. A queued job owns its socket, so jobs are never discarded.
class BoundedTaskQueue : public httplib::TaskQueue {
 public:
  BoundedTaskQueue(size_t threads, size_t max_waiting) : max_waiting_(max_waiting) {
    for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
  }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mu_);
    room_cv_.wait(lock, [&] { return jobs_.size() < max_waiting_; });
    jobs_.push_back(std::move(fn));
    work_cv_.notify_one();
  }

  // Runs what is queued, then joins the workers.
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

 private:
  void Work() {
    while (true) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // stopping, nothing left
        job = std::move(jobs_.front());
        jobs_.pop_front();
        room_cv_.notify_one();
      }
      job();
    }
  }

  const size_t max_waiting_;
  std::mutex mu_;
  std::condition_variable work_cv_;         // a job or stopping_
  std::condition_variable room_cv_;         // jobs_ below max_waiting_
  std::deque<std::function<void()>> jobs_;  // GUARDED_BY(mu_)
  bool stopping_ = false;                   // GUARDED_BY(mu_)
  std::vector<std::thread> workers_;
};

}  // namespace

struct HttpServer::Impl {
  httplib::Server server;
  std::thread listener;
  std::atomic<bool> listener_done{false};  // listen_after_bind returned
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl, int port)
    : impl_(std::move(impl)), port_(port) {}

HttpServer::~HttpServer() {
  impl_->server.stop();
  if (impl_->listener.joinable()) impl_->listener.join();
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                      HttpHandler handler) {
  if (options.threads == 0 || options.max_waiting == 0 ||
      options.keep_alive_timeout < std::chrono::seconds(1)) {
    return Status::InvalidArgument(
        "the HTTP server needs a thread, a waiting slot and a keep-alive timeout of 1 s or more");
  }
  if (options.port < 0 || options.port > 65535) {
    return Status::InvalidArgument("port " + std::to_string(options.port) + " is not 0..65535");
  }
  auto impl = std::make_unique<Impl>();
  httplib::Server& server = impl->server;
  const size_t threads = options.threads;
  const size_t max_waiting = options.max_waiting;
  server.new_task_queue = [threads, max_waiting] {
    return new BoundedTaskQueue(threads, max_waiting);
  };
  server.set_read_timeout(options.io_timeout);
  server.set_write_timeout(options.io_timeout);
  server.set_keep_alive_timeout(options.keep_alive_timeout.count());
  server.set_payload_max_length(options.max_body_bytes);
  // The library's default adds SO_REUSEPORT, with which a second daemon
  // (or any process of the same user) would share the port silently.
  server.set_socket_options([](int sock) {
    const int on = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  });
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        res.status = 500;
        res.set_content("internal error\n", "text/plain; charset=utf-8");
      });
  const auto serve = [handler = std::move(handler)](const httplib::Request& req,
                                                    httplib::Response& res) {
    HttpRequest request{
        req.method,
        req.path,
        {},
        req.get_header_value("Authorization"),
        req.get_header_value("Cookie"),
        // Two Host headers name no one host: as if none.
        req.get_header_value_count("Host") == 1 ? req.get_header_value("Host") : std::string(),
        req.body};
    // A multimap in name order: emplace keeps the first value of a name.
    for (const auto& [name, value] : req.params) request.query.emplace(name, value);
    HttpResponse answer = handler(request);
    res.status = answer.status;
    // set_header drops a header with CR or LF in it (no response splitting).
    for (const auto& [name, value] : answer.headers) res.set_header(name, value);
    if (answer.stream) {
      res.set_chunked_content_provider(answer.content_type, [stream = std::move(answer.stream)](
                                                                size_t, httplib::DataSink& sink) {
        const auto write = [&sink](std::string_view bytes) {
          return sink.write(bytes.data(), bytes.size());
        };
        // The library calls again while the sink is open and writable;
        // a failed write ends the answer on its own.
        if (!stream(write)) sink.done();
        return true;
      });
      return;
    }
    if (answer.shared_body) {
      // Written from the handler's buffer, which the provider holds until sent.
      const size_t size = answer.shared_body->size();
      res.set_content_provider(
          size, answer.content_type,
          [body = answer.shared_body](size_t offset, size_t length, httplib::DataSink& sink) {
            if (offset > body->size()) return false;
            return sink.write(body->data() + offset, std::min(length, body->size() - offset));
          });
      return;
    }
    // Moved, not set_content: that copies the body (megabytes for a scrape).
    res.body = std::move(answer.body);
    res.set_header("Content-Type", answer.content_type);
  };
  server.Get(".*", serve);
  server.Post(".*", serve);
  const int port = options.port == 0
                       ? server.bind_to_any_port(options.host)
                       : (server.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port <= 0) {
    return Status::IoError("cannot listen for HTTP on " + options.host + " port " +
                           std::to_string(options.port));
  }
  impl->listener = std::thread([&server, &done = impl->listener_done] {
    server.listen_after_bind();
    done.store(true, std::memory_order_release);  // pairs with the acquire load below
  });
  // Server::stop does nothing before the listening loop has started (it
  // checks is_running), so a server destroyed at once would never stop:
  // return only once it runs, or once the loop has given up.
  while (!server.is_running()) {
    if (impl->listener_done.load(std::memory_order_acquire)) {
      impl->listener.join();
      return Status::IoError("the HTTP server on " + options.host + " port " +
                             std::to_string(port) + " stopped as it started");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl), port));
}

}  // namespace optrace::http
