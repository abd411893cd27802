"""Where optraced listens by default: the same rule as the CLI's and the
daemon's (client-lib/common/default_paths.cc)."""

import os


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
    return f"/tmp/optrace-{os.getuid()}/optraced.sock"
