#include "api/tcp_authenticator.h"

#include <grpc/grpc_security_constants.h>

#include <string>

#include "common/bearer_token.h"
#include "common/user_database.h"

namespace optrace::daemon {
namespace {

constexpr std::string_view kAuthorization = "authorization";
// Common names longer than this are cut in messages.
constexpr size_t kMaxQuotedNameBytes = 64;

std::string_view View(const grpc::string_ref& ref) { return {ref.data(), ref.size()}; }

}  // namespace

TcpAuthenticator::TcpAuthenticator(std::optional<TokenTable> tokens, bool client_certificates)
    : tokens_(std::move(tokens)), client_certificates_(client_certificates) {}

Result<uint32_t> TcpAuthenticator::Authenticate(
    std::optional<std::string_view> authorization_untrusted,
    std::optional<std::string_view> certificate_common_name) const {
  if (authorization_untrusted) {
    if (!tokens_) {
      return Status::Unauthenticated(
          "this daemon takes no bearer tokens over TCP (it has no listen_token_dir): identify "
          "with a TLS client certificate signed by its tls_client_ca instead");
    }
    const std::optional<std::string_view> presented = BearerCredential(*authorization_untrusted);
    if (!presented) {
      return Status::Unauthenticated("the authorization metadata is not \"Bearer TOKEN\"");
    }
    if (const std::optional<uint32_t> uid = tokens_->Find(*presented)) return *uid;
    return Status::Unauthenticated(
        "the bearer token of this call is no user's token on this daemon (listen_token_dir): "
        "check the token file the client reads (--token-file, OPTRACE_TOKEN_FILE)");
  }
  if (certificate_common_name) {
    if (const std::optional<uid_t> uid = LookUpUid(*certificate_common_name)) {
      return static_cast<uint32_t>(*uid);
    }
    return Status::Unauthenticated(
        "the client certificate's common name '" +
        std::string(certificate_common_name->substr(0, kMaxQuotedNameBytes)) +
        "' names no user of this machine (it must be a user name or a numeric uid)");
  }
  std::string accepted;
  if (tokens_) {
    accepted =
        "a bearer token (optrace --token-file FILE or OPTRACE_TOKEN_FILE; "
        "optrace.Client(token_file=...); the metadata \"authorization: Bearer TOKEN\")";
  }
  if (client_certificates_) {
    if (!accepted.empty()) accepted += " or ";
    accepted +=
        "a TLS client certificate signed by its tls_client_ca (optrace --tls-cert and "
        "--tls-key)";
  }
  return Status::Unauthenticated("optraced identifies callers over TCP by " + accepted +
                                 "; this call carries none");
}

Result<uint32_t> TcpAuthenticator::AuthenticateCall(const CallMetadata& metadata,
                                                    const grpc::AuthContext& auth) const {
  std::optional<std::string_view> authorization;
  const auto [first, end] =
      metadata.equal_range(grpc::string_ref(kAuthorization.data(), kAuthorization.size()));
  if (first != end) {
    if (std::next(first) != end) {
      return Status::Unauthenticated("the call carries more than one authorization metadata");
    }
    authorization = View(first->second);
  }
  std::optional<std::string_view> common_name;
  if (auth.IsPeerAuthenticated()) {
    const std::vector<grpc::string_ref> names = auth.FindPropertyValues(GRPC_X509_CN_PROPERTY_NAME);
    if (!names.empty()) common_name = View(names.front());
  }
  return Authenticate(authorization, common_name);
}

grpc::Status TcpAuthProcessor::Process(const InputMetadata& auth_metadata,
                                       grpc::AuthContext* context, OutputMetadata*,
                                       OutputMetadata*) {
  const Result<uint32_t> uid = authenticator_->AuthenticateCall(auth_metadata, *context);
  if (uid.ok()) return grpc::Status::OK;
  return {grpc::StatusCode::UNAUTHENTICATED, uid.status().message()};
}

}  // namespace optrace::daemon
