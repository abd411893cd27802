// Holds SQLite's write lock on a database from a connection of its own, so
// that a SpanStore's writer cannot commit until Release: its queue then
// fills, and Submit refuses.
#ifndef OPTRACE_TESTS_UNIT_DAEMON_WRITE_LOCK_HOLDER_H_
#define OPTRACE_TESTS_UNIT_DAEMON_WRITE_LOCK_HOLDER_H_

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

namespace optrace::daemon {

class WriteLockHolder {
 public:
  explicit WriteLockHolder(const std::string& path) {
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  ~WriteLockHolder() { Release(); }
  WriteLockHolder(const WriteLockHolder&) = delete;
  WriteLockHolder& operator=(const WriteLockHolder&) = delete;
  void Release() {
    if (db_ == nullptr) return;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_TESTS_UNIT_DAEMON_WRITE_LOCK_HOLDER_H_
