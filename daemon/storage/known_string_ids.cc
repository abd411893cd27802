#include "storage/known_string_ids.h"

#include "storage/sqlite_statement.h"

namespace optrace::daemon {

Result<KnownStringIds> KnownStringIds::Load(SqliteConnection& db, std::vector<std::string> texts) {
  Result<SqliteStatement> select = db.Prepare("SELECT id FROM strings WHERE text = ?");
  if (!select.ok()) return select.status();
  std::vector<StringId> ids(texts.size(), 0);
  for (size_t i = 0; i < texts.size(); ++i) {
    select->BindText(1, texts[i]);
    ScopedStatementReset reset(select.value());
    Result<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (row.value()) ids[i] = select->ColumnUint64(0);
  }
  return KnownStringIds(std::move(texts), std::move(ids));
}

void KnownStringIds::Note(std::span<const std::pair<StringId, std::string>> strings) {
  for (const auto& [id, text] : strings) {
    for (size_t i = 0; i < texts_.size(); ++i) {
      if (ids_[i] == 0 && text == texts_[i]) ids_[i] = id;
    }
  }
}

}  // namespace optrace::daemon
