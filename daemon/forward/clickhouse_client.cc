#include "forward/clickhouse_client.h"

#include <curl/curl.h>

#include <fstream>
#include <mutex>

#include "forward/gzip.h"

namespace optrace::daemon {
namespace {

// The most of ClickHouse's error text a message carries.
constexpr size_t kMaxErrorText = 400;

CURL* Handle(void* curl) { return static_cast<CURL*>(curl); }

// libcurl's global state, once per process, before the first handle.
void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Collects the answer's body, up to a limit.
struct ResponseSink {
  std::string* body;
  size_t limit;
  bool too_long = false;
};

size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<ResponseSink*>(user);
  const size_t bytes = size * count;
  if (bytes > sink->limit - std::min(sink->limit, sink->body->size())) {
    sink->too_long = true;
    return 0;  // makes libcurl end the transfer with CURLE_WRITE_ERROR
  }
  sink->body->append(data, bytes);
  return bytes;
}

int CheckCancel(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* cancel = static_cast<const std::atomic<bool>*>(user);
  // Relaxed: a flag with no data attached; a late look only delays the stop.
  return cancel != nullptr && cancel->load(std::memory_order_relaxed) ? 1 : 0;
}

// The first line of ClickHouse's error text, shortened.
std::string ErrorText(const std::string& body) {
  std::string line = body.substr(0, body.find('\n'));
  if (line.size() > kMaxErrorText) line = line.substr(0, kMaxErrorText) + "...";
  return line.empty() ? "(no message)" : line;
}

ClickHouseFailure TransportFailure(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      return ClickHouseFailure::kNotSent;
    default:
      return ClickHouseFailure::kUnknown;
  }
}

// Frees a curl_slist on every path out.
struct HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() { curl_slist_free_all(list); }
  void Add(const char* header) {
    if (curl_slist* grown = curl_slist_append(list, header)) list = grown;
  }
};

}  // namespace

std::string RedactedUrl(std::string_view url) {
  const size_t scheme = url.find("://");
  const size_t host_start = scheme == std::string_view::npos ? 0 : scheme + 3;
  const size_t path_start = url.find('/', host_start);
  const std::string_view authority = url.substr(host_start, path_start - host_start);
  const size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, host_start)) + std::string(authority.substr(at + 1)) +
         (path_start == std::string_view::npos ? "" : std::string(url.substr(path_start)));
}

Status ReadCredentialsFile(const std::string& path, std::string* user, std::string* password) {
  std::ifstream file(path);
  if (!file) {
    return Status::IoError("credentials file " + path + " cannot be read");
  }
  std::string line;
  std::getline(file, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) {
    return Status::InvalidArgument("credentials file " + path +
                                   ": the first line must be user:password");
  }
  const size_t colon = line.find(':');
  *user = line.substr(0, colon);
  *password = colon == std::string::npos ? "" : line.substr(colon + 1);
  return Status::Ok();
}

Result<std::unique_ptr<ClickHouseClient>> ClickHouseClient::Create(
    ClickHouseEndpoint endpoint, const std::atomic<bool>* cancel) {
  InitCurlOnce();
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    return Status::Unavailable("ClickHouse at " + RedactedUrl(endpoint.url) +
                               ": libcurl could not make a handle");
  }
  return std::unique_ptr<ClickHouseClient>(new ClickHouseClient(std::move(endpoint), cancel, curl));
}

ClickHouseClient::ClickHouseClient(ClickHouseEndpoint endpoint, const std::atomic<bool>* cancel,
                                   void* curl)
    : endpoint_(std::move(endpoint)),
      cancel_(cancel),
      curl_(curl),
      redacted_url_(RedactedUrl(endpoint_.url)) {}

ClickHouseClient::~ClickHouseClient() { curl_easy_cleanup(Handle(curl_)); }

Result<std::string> ClickHouseClient::Query(std::string_view sql, const Settings& settings) {
  // The whole answer is made before any of it is sent, so that an error
  // half-way is an error status, not a body cut short by an exception text.
  Settings all = settings;
  all.emplace_back("wait_end_of_query", "1");
  std::string response;
  Status posted = Post("", all, sql, false, &response);
  if (!posted.ok()) return posted;
  return response;
}

Status ClickHouseClient::Insert(std::string_view insert_statement, std::string_view data,
                                const Settings& settings) {
  std::string response;
  if (!endpoint_.gzip) return Post(insert_statement, settings, data, false, &response);
  Result<std::string> compressed = GzipCompress(data);
  if (!compressed.ok()) {
    failure_ = ClickHouseFailure::kNotSent;
    return compressed.status();
  }
  return Post(insert_statement, settings, compressed.value(), true, &response);
}

Status ClickHouseClient::Post(std::string_view query, const Settings& settings,
                              std::string_view body, bool compressed, std::string* response) {
  CURL* curl = Handle(curl_);
  curl_easy_reset(curl);  // keeps the live connection, forgets the last request's options
  std::string url = endpoint_.url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/?";
  auto add_parameter = [&](std::string_view key, std::string_view value) {
    char* escaped = curl_easy_escape(curl, value.data(), static_cast<int>(value.size()));
    if (url.back() != '?') url += '&';
    url += std::string(key) + "=" + (escaped != nullptr ? escaped : "");
    curl_free(escaped);
  };
  if (!query.empty()) add_parameter("query", query);
  for (const auto& [key, value] : settings) add_parameter(key, value);

  HeaderList headers;
  headers.Add("Expect:");  // no 100-continue round trip for large bodies
  if (compressed) headers.Add("Content-Encoding: gzip");
  char error[CURL_ERROR_SIZE] = {};
  ResponseSink sink{response, endpoint_.max_response_bytes};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(endpoint_.connect_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(endpoint_.timeout_ms));
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &CheckCancel);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, cancel_);
  if (!endpoint_.user.empty()) {
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(curl, CURLOPT_USERNAME, endpoint_.user.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, endpoint_.password.c_str());
  }
  const CURLcode code = curl_easy_perform(curl);
  const std::string where = "ClickHouse at " + redacted_url_ + ": ";
  if (code != CURLE_OK) {
    failure_ = TransportFailure(code);
    if (sink.too_long) {
      return Status::Unavailable(where + "the answer is longer than " +
                                 std::to_string(endpoint_.max_response_bytes) + " bytes");
    }
    const std::string detail = error[0] != '\0' ? error : curl_easy_strerror(code);
    return Status::Unavailable(where + detail);
  }
  long http_status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http_status);
  if (http_status != 200) {
    failure_ = ClickHouseFailure::kRefused;
    return Status::Unavailable(where + "HTTP " + std::to_string(http_status) + ": " +
                               ErrorText(*response));
  }
  failure_ = ClickHouseFailure::kNone;
  return Status::Ok();
}

}  // namespace optrace::daemon
