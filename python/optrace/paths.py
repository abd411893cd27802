"""Where optraced listens by default: the same rule as the CLI's and the
daemon's (client-lib/common/default_paths.cc)."""

import os
import pwd
import stat


def default_socket():
    """OPTRACE_SOCKET if set; else /run/optrace/optraced.sock for root, else
    $XDG_RUNTIME_DIR/optrace/optraced.sock, else /tmp/optrace-$UID/optraced.sock."""
    socket = os.environ.get("OPTRACE_SOCKET", "")
    if socket:
        return socket
    if os.getuid() == 0:
        return "/run/optrace/optraced.sock"
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime:
        return os.path.join(runtime, "optrace", "optraced.sock")
    return os.path.join(fallback_socket_folder(), "optraced.sock")


def fallback_socket_folder():
    """/tmp/optrace-$UID: in a folder everyone can write, so it is checked
    (socket_folder_problem) before it is trusted."""
    return f"/tmp/optrace-{os.getuid()}"


def socket_folder_problem(folder, uid):
    """Why `folder` may not hold the socket of uid `uid`'s daemon, or "" when
    it may: owned by `uid` or root and writable by its owner only (else
    another user could replace the socket). The same rule and words as
    client-lib/common/socket_folder.cc. A missing folder is ""."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return ""
    except OSError as e:
        return f"socket folder {folder}: {e.strerror}"
    is_dir = stat.S_ISDIR(st.st_mode)
    if is_dir and st.st_uid in (uid, 0) and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return ""
    try:
        owner = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        owner = "no such user"
    what = "" if is_dir else " and is not a folder"
    return (f"socket folder {folder} is owned by uid {st.st_uid} ({owner}) with mode "
            f"{stat.S_IMODE(st.st_mode):04o}{what}: it must be a folder owned by uid {uid} or "
            "root and writable by its owner only, or another user could replace the socket; "
            "refusing to use it (remove it, or choose another socket)")
