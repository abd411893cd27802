#include "storage/sqlite_blob_reader.h"

#include "storage/sqlite_error.h"

namespace optrace::daemon {

Status SqliteBlobReader::Read(int64_t rowid, std::string* out) {
  const auto where = [&] {
    return "read " + table_ + "." + column_ + " of row " + std::to_string(rowid);
  };
  // The first read opens the handle; later ones move it to their row,
  // which costs far less than opening it again.
  const int rc = blob_ == nullptr ? sqlite3_blob_open(db_.db_, "main", table_.c_str(),
                                                      column_.c_str(), rowid, 0, &blob_)
                                  : sqlite3_blob_reopen(blob_, rowid);
  if (rc != SQLITE_OK) {
    Status error = SqliteError(db_.db_, rc, where());
    Close();  // a failed reopen leaves the handle aborted
    return error;
  }
  const int bytes = sqlite3_blob_bytes(blob_);
  out->resize(static_cast<size_t>(bytes));
  if (bytes > 0) {
    if (const int read = sqlite3_blob_read(blob_, out->data(), bytes, 0); read != SQLITE_OK) {
      Status error = SqliteError(db_.db_, read, where());
      Close();
      return error;
    }
  }
  return Status::Ok();
}

void SqliteBlobReader::Close() {
  if (blob_ != nullptr) sqlite3_blob_close(blob_);
  blob_ = nullptr;
}

}  // namespace optrace::daemon
