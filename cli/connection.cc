#include "connection.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/default_paths.h"
#include "common/loopback_host.h"
#include "common/socket_folder.h"
#include "exit_codes.h"

namespace optrace::cli {
namespace {

// Splits "host:port" or "[v6]:port" (IPv6 needs the brackets). Returns
// false when either part is missing or the port is not a number.
bool SplitHostPort(const std::string& server, std::string* host, std::string* port) {
  const size_t colon = server.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == server.size()) return false;
  *host = server.substr(0, colon);
  *port = server.substr(colon + 1);
  if (port->find_first_not_of("0123456789") != std::string::npos) return false;
  const bool bracketed = host->size() > 2 && host->front() == '[' && host->back() == ']';
  return bracketed || host->find(':') == std::string::npos;
}

}  // namespace

Connection::Connection(std::string address, std::shared_ptr<grpc::Channel> channel)
    : address_(std::move(address)),
      channel_(std::move(channel)),
      stub_(v1::OpTrace::NewStub(channel_)) {}

std::unique_ptr<Connection> Connection::Open(const ConnectionOptions& options, CliError* error) {
  if (options.server.empty()) {
    if (!options.tls_ca.empty()) {
      *error = {kExitUsage, "--tls-ca needs --server HOST:PORT: the Unix socket is not encrypted"};
      return nullptr;
    }
    const std::string path = options.socket.empty() ? DefaultSocketPath() : options.socket;
    const std::string folder = std::filesystem::path(path).parent_path();
    if (folder == FallbackSocketFolder()) {
      if (std::string problem = SocketFolderProblem(folder, ::getuid()); !problem.empty()) {
        *error = {kExitFailure, problem};
        return nullptr;
      }
    }
    return std::unique_ptr<Connection>(new Connection(
        path, grpc::CreateChannel("unix:" + path, grpc::InsecureChannelCredentials())));
  }
  std::string host, port;
  if (!SplitHostPort(options.server, &host, &port)) {
    *error = {kExitUsage, "--server " + options.server + " is not HOST:PORT (e.g. localhost:7070)"};
    return nullptr;
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (!options.tls_ca.empty()) {
    std::ifstream file(options.tls_ca);
    std::stringstream pem;
    pem << file.rdbuf();
    if (!file || pem.str().empty()) {
      *error = {kExitUsage, "--tls-ca " + options.tls_ca + " cannot be read"};
      return nullptr;
    }
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = pem.str();
    credentials = grpc::SslCredentials(ssl);
  } else if (IsLoopbackHost(host)) {
    credentials = grpc::InsecureChannelCredentials();
  } else {
    *error = {kExitUsage, "--server " + options.server +
                              " is not a loopback address: give --tls-ca FILE to talk to it over "
                              "TLS (plaintext is only for localhost)"};
    return nullptr;
  }
  return std::unique_ptr<Connection>(
      new Connection(options.server, grpc::CreateChannel(options.server, credentials)));
}

std::unique_ptr<grpc::ClientContext> Connection::NewContext(
    std::optional<std::chrono::milliseconds> deadline) {
  auto context = std::make_unique<grpc::ClientContext>();
  if (deadline) context->set_deadline(std::chrono::system_clock::now() + *deadline);
  return context;
}

}  // namespace optrace::cli
