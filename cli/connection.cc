#include "connection.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/bearer_token.h"
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

// The whole of PEM file `path`, given as `flag`; false (with `error` set)
// when it cannot be read or is empty.
bool ReadPem(const std::string& path, std::string_view flag, std::string* pem, CliError* error) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  if (!file || text.str().empty()) {
    *error = {kExitUsage, std::string(flag) + " " + path + " cannot be read"};
    return false;
  }
  *pem = text.str();
  return true;
}

}  // namespace

Connection::Connection(std::string address, std::shared_ptr<grpc::Channel> channel,
                       std::string authorization)
    : address_(std::move(address)),
      authorization_(std::move(authorization)),
      channel_(std::move(channel)),
      stub_(v1::OpTrace::NewStub(channel_)) {}

std::unique_ptr<Connection> Connection::Open(const ConnectionOptions& options, CliError* error) {
  if (options.server.empty()) {
    if (!options.tls_ca.empty()) {
      *error = {kExitUsage, "--tls-ca needs --server HOST:PORT: the Unix socket is not encrypted"};
      return nullptr;
    }
    if (!options.token_file.empty() || !options.tls_cert.empty()) {
      *error = {kExitUsage,
                std::string(options.token_file.empty() ? "--tls-cert" : "--token-file") +
                    " needs --server HOST:PORT: on the Unix socket the daemon knows you by your "
                    "uid"};
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
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    *error = {kExitUsage, "--tls-cert and --tls-key go together: a client certificate and its key"};
    return nullptr;
  }
  if (!options.tls_cert.empty() && options.tls_ca.empty()) {
    *error = {kExitUsage,
              "--tls-cert needs --tls-ca FILE: a client certificate is part of TLS, which needs "
              "the CA of the daemon's certificate"};
    return nullptr;
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (!options.tls_ca.empty()) {
    grpc::SslCredentialsOptions ssl;
    if (!ReadPem(options.tls_ca, "--tls-ca", &ssl.pem_root_certs, error)) return nullptr;
    if (!options.tls_cert.empty() &&
        (!ReadPem(options.tls_cert, "--tls-cert", &ssl.pem_cert_chain, error) ||
         !ReadPem(options.tls_key, "--tls-key", &ssl.pem_private_key, error))) {
      return nullptr;
    }
    credentials = grpc::SslCredentials(ssl);
  } else if (IsLoopbackHost(host)) {
    credentials = grpc::InsecureChannelCredentials();
  } else {
    *error = {kExitUsage, "--server " + options.server +
                              " is not a loopback address: give --tls-ca FILE to talk to it over "
                              "TLS (plaintext is only for localhost)"};
    return nullptr;
  }
  std::string authorization;
  const char* token_env = std::getenv("OPTRACE_TOKEN_FILE");
  const std::string token_file = !options.token_file.empty() ? options.token_file
                                 : token_env != nullptr      ? token_env
                                                             : "";
  if (!token_file.empty()) {
    auto token = ReadTokenFile(token_file,
                               options.token_file.empty() ? "OPTRACE_TOKEN_FILE" : "--token-file");
    if (!token.ok()) {
      *error = {kExitFailure, token.status().message()};
      return nullptr;
    }
    authorization = "Bearer " + token.value();
  }
  return std::unique_ptr<Connection>(new Connection(
      options.server, grpc::CreateChannel(options.server, credentials), std::move(authorization)));
}

std::unique_ptr<grpc::ClientContext> Connection::NewContext(
    std::optional<std::chrono::milliseconds> deadline) const {
  auto context = std::make_unique<grpc::ClientContext>();
  if (deadline) context->set_deadline(std::chrono::system_clock::now() + *deadline);
  if (!authorization_.empty()) context->AddMetadata("authorization", authorization_);
  return context;
}

}  // namespace optrace::cli
