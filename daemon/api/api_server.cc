#include "api/api_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/security/server_credentials.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string_view>

#include "common/loopback_host.h"

namespace optrace::daemon {
namespace {

Result<std::string> ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument(std::string(what) + " " + path + " cannot be read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The credentials of the TCP listener: TLS (asking for client
// certificates with tls_client_ca), else local credentials on loopback,
// with the gate of `options.tcp_authenticator`; or, with
// insecure_tcp_admin, no gate at all.
Result<std::shared_ptr<grpc::ServerCredentials>> TcpCredentials(const ApiServerOptions& options) {
  if (options.tcp_authenticator == nullptr && !options.insecure_tcp_admin) {
    return Status::InvalidArgument("--listen " + options.listen +
                                   ": no way to identify TCP callers was configured");
  }
  std::shared_ptr<grpc::ServerCredentials> creds;
  if (!options.tls_cert.empty()) {
    auto cert = ReadFile(options.tls_cert, "tls_cert");
    auto key = ReadFile(options.tls_key, "tls_key");
    if (!cert.ok()) return cert.status();
    if (!key.ok()) return key.status();
    grpc::SslServerCredentialsOptions ssl(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
    ssl.pem_key_cert_pairs.push_back({key.value(), cert.value()});
    if (!options.tls_client_ca.empty()) {
      auto ca = ReadFile(options.tls_client_ca, "tls_client_ca");
      if (!ca.ok()) return ca.status();
      ssl.pem_root_certs = ca.value();
      // Asked for, and verified when given; a call without one may still
      // carry a token, and is otherwise refused with a message that says
      // what is missing, which a failed handshake could not.
      ssl.client_certificate_request = GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
    }
    creds = grpc::SslServerCredentials(ssl);
  } else if (!IsLoopbackAddress(options.listen)) {
    return Status::InvalidArgument("--listen " + options.listen +
                                   " is not a loopback address: it needs --tls-cert and --tls-key");
  } else if (options.insecure_tcp_admin) {
    creds = grpc::InsecureServerCredentials();
  } else {
    creds = grpc::experimental::LocalServerCredentials(LOCAL_TCP);
  }
  if (options.tcp_authenticator != nullptr) {
    creds->SetAuthMetadataProcessor(std::make_shared<TcpAuthProcessor>(options.tcp_authenticator));
  }
  return creds;
}

}  // namespace

bool IsLoopbackAddress(const std::string& host_port) {
  const size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) return false;
  const std::string_view host = std::string_view(host_port).substr(0, colon);
  // An IPv6 host needs its brackets, else its last ':' reads as the port's.
  if (host.find(':') != std::string_view::npos && host.front() != '[') return false;
  return IsLoopbackHost(host);
}

v1::Listener DescribeTcpListener(const ApiServerOptions& options) {
  v1::Listener listener;
  listener.set_kind(v1::LISTENER_KIND_GRPC);
  listener.set_address(options.listen);
  listener.set_tls(!options.tls_cert.empty());
  if (options.tcp_authenticator != nullptr) {
    listener.set_token_users(static_cast<uint32_t>(options.tcp_authenticator->token_users()));
    listener.set_client_certificates(options.tcp_authenticator->client_certificates());
  }
  if (options.insecure_tcp_admin) {
    listener.set_unauthenticated(true);
    listener.set_warning("insecure_tcp_admin = true: every caller of " + options.listen +
                         " is an admin, without credentials: it sees and controls every "
                         "user's sessions");
  }
  return listener;
}

Result<std::unique_ptr<ApiServer>> ApiServer::Start(const ApiServerOptions& options,
                                                    grpc::Service* service, PeerRegistry* peers,
                                                    AcceptCounters* accepts) {
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.RegisterService(service);
  // A killed client or a cut network ends its streams (and restores the
  // levels its tail raised) within seconds.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 10'000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5'000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  builder.SetMaxReceiveMessageSize(1 << 20);  // requests are small
  grpc::ResourceQuota quota("optraced");
  quota.SetMaxThreads(64);
  builder.SetResourceQuota(quota);
  int tcp_port = 0;
  if (!options.listen.empty()) {
    auto creds = TcpCredentials(options);
    if (!creds.ok()) return creds.status();
    builder.AddListeningPort(options.listen, creds.value(), &tcp_port);
  }
  std::unique_ptr<ApiServer> api(new ApiServer());
  api->server_ = builder.BuildAndStart();
  if (api->server_ == nullptr) return Status::IoError("the gRPC server did not start");
  if (!options.listen.empty() && tcp_port == 0) {
    return Status::IoError("cannot listen on " + options.listen);
  }
  auto listener = UnixListener::Create(options.socket, options.socket_group);
  if (!listener.ok()) return listener.status();
  api->listener_ = std::move(listener).value();
  api->listener_->Start(api->server_.get(), peers, accepts);
  return api;
}

ApiServer::~ApiServer() { Shutdown(); }

void ApiServer::Shutdown() {
  listener_.reset();  // no new connections, socket file removed
  if (server_) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
    server_.reset();
  }
}

}  // namespace optrace::daemon
