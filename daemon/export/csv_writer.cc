#include "export/csv_writer.h"

#include <type_traits>

#include "export/export_columns.h"
#include "export/export_text.h"

namespace optrace::daemon {
namespace {

constexpr std::string_view kLineEnd = "\r\n";  // RFC 4180

// The first characters that make a spreadsheet read a cell as a formula
// (OWASP, "CSV Injection").
constexpr std::string_view kFormulaStarts = "=+-@\t\r";

}  // namespace

std::string CsvField(std::string_view text) {
  const bool formula = !text.empty() && kFormulaStarts.find(text.front()) != std::string_view::npos;
  const std::string_view neutraliser = formula ? "'" : "";
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(neutraliser) + std::string(text);
  }
  std::string quoted;
  quoted.reserve(text.size() + 3);
  quoted += '"';
  quoted += neutraliser;
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

Status CsvWriter::Begin(const SessionRecord& session) {
  session_ = session.id;
  std::string& out = buffer_.text();
  bool first = true;
  VisitSpanColumns(session_, Span{}, [&](std::string_view column, const auto&) {
    if (!first) out += ',';
    first = false;
    out += column;
  });
  out += kLineEnd;
  return Status::Ok();
}

Status CsvWriter::AddSpan(const Span& span) {
  std::string& out = buffer_.text();
  bool first = true;
  VisitSpanColumns(session_, span, [&](std::string_view, const auto& value) {
    if (!first) out += ',';
    first = false;
    using Value = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<Value, DictText>) {
      out += fields_.Get(value.id);
    } else if constexpr (std::is_same_v<Value, std::string_view>) {
      out += value;  // fixed words ("gpu", "ok"): nothing to quote
    } else if constexpr (std::is_same_v<Value, std::optional<uint64_t>>) {
      if (value) AppendDecimal(out, *value);  // unknown: an empty field
    } else {
      AppendDecimal(out, value);
    }
  });
  out += kLineEnd;
  return Status::Ok();
}

Status CsvWriter::AddInstant(const Instant&) { return Status::Ok(); }

Status CsvWriter::Finish() { return Status::Ok(); }

}  // namespace optrace::daemon
