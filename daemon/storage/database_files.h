// Who may read the database's files: the daemon's uid only. They hold every
// user's sessions (command lines included), which the API shows each caller
// only in part; SQLite gives -wal and -shm the mode of the database file,
// which on its own it creates with 0644 whatever the umask.
#ifndef OPTRACE_DAEMON_STORAGE_DATABASE_FILES_H_
#define OPTRACE_DAEMON_STORAGE_DATABASE_FILES_H_

#include <string>

#include "common/status.h"

namespace optrace::daemon {

// Creates the database file `db_path` with mode 0600 when it is absent, and
// sets it and the "-wal" and "-shm" files beside it (those that exist, left
// by an earlier daemon) to 0600, whatever the process umask. Call before
// SQLite opens `db_path`. Follows no symbolic link. Errors (IoError) name
// the file and the cause.
Status MakeDatabaseFilesOwnerOnly(const std::string& db_path);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_DATABASE_FILES_H_
