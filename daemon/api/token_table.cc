#include "api/token_table.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "common/bearer_token.h"
#include "common/constant_time.h"
#include "common/user_database.h"

namespace optrace::daemon {
namespace {

constexpr std::string_view kSetting = "listen_token_dir";

bool OwnedByDaemonOrRoot(const struct stat& info, uid_t daemon_uid) {
  return info.st_uid == daemon_uid || info.st_uid == 0;
}

// "uid 998 or root", or "root" for a daemon of root.
std::string DaemonOrRoot(uid_t daemon_uid) {
  return daemon_uid == 0 ? "root" : "uid " + std::to_string(daemon_uid) + " or root";
}

// The names of `folder`'s entries that do not start with ".", sorted.
Result<std::vector<std::string>> FileNames(const std::string& folder) {
  const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(folder.c_str()), ::closedir);
  if (dir == nullptr) {
    return Status::InvalidArgument(std::string(kSetting) + " " + folder +
                                   " cannot be read: " + std::strerror(errno));
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir.get())) {
    if (entry->d_name[0] != '.') names.emplace_back(entry->d_name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Status CheckFolder(const std::string& folder, uid_t daemon_uid) {
  struct stat info {};
  if (::stat(folder.c_str(), &info) != 0) {
    return Status::InvalidArgument(std::string(kSetting) + " " + folder +
                                   " cannot be read: " + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode) && OwnedByDaemonOrRoot(info, daemon_uid) &&
      (info.st_mode & (S_IWGRP | S_IWOTH)) == 0) {
    return Status::Ok();
  }
  const std::string what = S_ISDIR(info.st_mode) ? "" : " and is not a folder";
  return Status::PermissionDenied(
      std::string(kSetting) + " " + folder + " is " +
      DescribeOwnerAndMode(info.st_uid, info.st_mode) + what + ": it must be a folder owned by " +
      DaemonOrRoot(daemon_uid) +
      " and writable by its owner only, or another user could add a token for any user, "
      "root included");
}

// The uid the token file at `path` (named `name`) is for, once its owner
// and mode pass.
Result<uint32_t> CheckTokenFile(const std::string& path, const std::string& name,
                                uid_t daemon_uid) {
  const std::string named = std::string(kSetting) + " file " + path;
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    return Status::InvalidArgument(named + " cannot be read: " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    return Status::InvalidArgument(named + " is not a regular file (links are not followed)");
  }
  if (!OwnedByDaemonOrRoot(info, daemon_uid) || (info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return Status::PermissionDenied(
        named + " is " + DescribeOwnerAndMode(info.st_uid, info.st_mode) +
        ": the daemon's token files must be owned by " + DaemonOrRoot(daemon_uid) +
        " and readable by their owner only (chmod 0600), or other users (the socket's "
        "group among them) could read or replace the tokens; a user keeps a copy of their own");
  }
  const std::optional<uid_t> uid = LookUpUid(name);
  if (!uid) {
    return Status::InvalidArgument(named +
                                   " is named for no user of this machine: name each file for "
                                   "the user whose token it holds (a user name or a numeric uid)");
  }
  return static_cast<uint32_t>(*uid);
}

}  // namespace

Result<TokenTable> TokenTable::Load(const std::string& folder, uid_t daemon_uid) {
  if (Status st = CheckFolder(folder, daemon_uid); !st.ok()) return st;
  auto names = FileNames(folder);
  if (!names.ok()) return names.status();
  std::vector<Entry> entries;
  std::vector<std::string> paths;
  for (const std::string& name : names.value()) {
    const std::string path = folder + "/" + name;
    auto uid = CheckTokenFile(path, name, daemon_uid);
    if (!uid.ok()) return uid.status();
    auto token = ReadTokenFile(path, std::string(kSetting) + " file");
    if (!token.ok()) return token.status();
    if (token.value().size() < kMinTcpTokenBytes) {
      return Status::InvalidArgument(
          std::string(kSetting) + " file " + path + ": its token is " +
          std::to_string(token.value().size()) + " characters long, shorter than " +
          std::to_string(kMinTcpTokenBytes) + " (make one with `openssl rand -hex 32`)");
    }
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].token == token.value()) {
        return Status::InvalidArgument(std::string(kSetting) + " files " + paths[i] + " and " +
                                       path +
                                       " hold the same token: each user needs a token of their "
                                       "own");
      }
    }
    entries.push_back({uid.value(), std::move(token).value()});
    paths.push_back(path);
  }
  if (entries.empty()) {
    return Status::InvalidArgument(std::string(kSetting) + " " + folder +
                                   " holds no token file: add one per user, named for the user, "
                                   "holding their token (docs/security.md)");
  }
  return TokenTable(std::move(entries));
}

std::optional<uint32_t> TokenTable::Find(std::string_view presented_untrusted) const {
  std::optional<uint32_t> found;
  for (const Entry& entry : entries_) {
    // No early exit: every entry is compared whichever matches.
    if (ConstantTimeEquals(presented_untrusted, entry.token)) found = entry.uid;
  }
  return found;
}

}  // namespace optrace::daemon
