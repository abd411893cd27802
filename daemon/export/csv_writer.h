// CsvWriter: the CSV export, one span per row (RFC 4180).
#ifndef OPTRACE_DAEMON_EXPORT_CSV_WRITER_H_
#define OPTRACE_DAEMON_EXPORT_CSV_WRITER_H_

#include <string>
#include <string_view>

#include "export/escaped_strings.h"
#include "export/export_buffer.h"
#include "export/export_writer.h"
#include "wire/string_cache.h"

namespace optrace::daemon {

// `text` as an RFC 4180 field: quoted, with quotes doubled, when it holds
// a comma, a quote, CR or LF; as it is otherwise. Text that starts with =,
// +, -, @, a tab or CR, which spreadsheets run as a formula, gets a leading
// single quote first (OWASP's advice on CSV injection).
std::string CsvField(std::string_view text);

// A header line, then one line per span with the columns of
// VisitSpanColumns; lines end with CRLF. Instants are not exported (the
// format is spans only). Borrows `strings` and `buffer`, which must outlive
// it. Never fails.
class CsvWriter final : public ExportWriter {
 public:
  CsvWriter(StringCache& strings, ExportBuffer& buffer)
      : fields_(strings, CsvField), buffer_(buffer) {}

  Status Begin(const SessionRecord& session) override;
  Status AddSpan(const Span& span) override;
  Status AddInstant(const Instant& instant) override;
  Status Finish() override;

 private:
  EscapedStrings fields_;
  ExportBuffer& buffer_;
  SessionId session_ = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_CSV_WRITER_H_
