#include "forward/clickhouse_schema.h"

#include <utility>

#include "forward/clickhouse_ddl.h"
#include "forward/sql_text.h"

namespace optrace::daemon {
namespace {

constexpr std::string_view kLocalSuffix = "_local";

// Replaces every "{key}" of `text` by its value.
std::string Fill(std::string_view text,
                 const std::vector<std::pair<std::string_view, std::string>>& values) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    bool replaced = false;
    if (text[i] == '{') {
      for (const auto& [key, value] : values) {
        if (text.compare(i + 1, key.size(), key) == 0 && i + 1 + key.size() < text.size() &&
            text[i + 1 + key.size()] == '}') {
          out += value;
          i += key.size() + 2;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out.push_back(text[i++]);
  }
  return out;
}

// Whether `line` holds only a comment or blanks.
bool IsCommentOrBlank(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t\r");
  return first == std::string_view::npos || line.compare(first, 2, "--") == 0;
}

}  // namespace

std::string SpanTableNames::InsertTable() const {
  return database + "." + table + (cluster.empty() ? "" : std::string(kLocalSuffix));
}

std::string SpanTableNames::QueryTable() const { return database + "." + table; }

std::vector<std::string> RenderStatements(std::string_view template_sql,
                                          const SpanTableNames& names) {
  const std::string local_table =
      names.table + (names.cluster.empty() ? "" : std::string(kLocalSuffix));
  const std::string text = Fill(template_sql, {{"database", names.database},
                                               {"table", names.table},
                                               {"local_table", local_table},
                                               {"cluster", names.cluster}});
  std::vector<std::string> statements;
  std::string current;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (IsCommentOrBlank(line)) continue;
    const size_t last = line.find_last_not_of(" \t\r");
    const bool ends_statement = line[last] == ';';
    if (ends_statement) line = line.substr(0, last);
    if (!current.empty()) current += '\n';
    current += line;
    if (ends_statement) statements.push_back(std::exchange(current, std::string()));
  }
  if (current.find_first_not_of(" \t\r\n") != std::string::npos) statements.push_back(current);
  return statements;
}

std::vector<std::string> SchemaStatements(const SpanTableNames& names) {
  std::vector<std::string> statements = RenderStatements(clickhouse_ddl::kSpansTable, names);
  if (!names.cluster.empty()) {
    for (std::string& statement : RenderStatements(clickhouse_ddl::kSpansDistributed, names)) {
      statements.push_back(std::move(statement));
    }
  }
  return statements;
}

std::span<const AddedSpanColumn> AddedSpanColumns() {
  static constexpr AddedSpanColumn kAdded[] = {{"self_ns", "UInt64 DEFAULT duration_ns"}};
  return kAdded;
}

std::vector<std::string> TablesToUpgrade(const SpanTableNames& names) {
  std::vector<std::string> tables = {names.InsertTable()};
  if (!names.cluster.empty()) tables.push_back(names.QueryTable());
  return tables;
}

std::string HasColumnQuery(const std::string& table, std::string_view column) {
  const size_t dot = table.find('.');
  return "SELECT count() FROM system.columns WHERE database = " +
         SqlString(std::string_view(table).substr(0, dot)) +
         " AND table = " + SqlString(std::string_view(table).substr(dot + 1)) +
         " AND name = " + SqlString(column);
}

std::string AddColumnStatement(const std::string& table, const AddedSpanColumn& column) {
  return "ALTER TABLE " + table + " ADD COLUMN " + std::string(column.name) + " " +
         std::string(column.definition);
}

ClickHouseClient::Settings SchemaSettings() {
  return {{"allow_experimental_low_cardinality_type", "1"}};
}

}  // namespace optrace::daemon
