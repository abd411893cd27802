#!/usr/bin/env python3
"""Small helpers of the deploy tests (tests/deploy/*.sh).

  deploy_tool.py session SESSIONS_JSON LABEL
      From `optrace sessions --all --json`, prints "ID SPANS STATE" of the
      newest session labelled LABEL (nothing when there is none).
  deploy_tool.py op-names OPS_JSON
      From `optrace ops ID --json`, prints the sorted distinct op names,
      comma-separated.
  deploy_tool.py notify-sink SOCKET_PATH OUT_FILE
      Plays systemd's side of sd_notify: binds a datagram socket at
      SOCKET_PATH (mode 0777, so a daemon of another uid can send) and
      appends each message to OUT_FILE as one line (newlines become '|').
      Runs until killed.
  deploy_tool.py unit-value UNIT KEY
      Prints every value of KEY= in the unit file, one a line, in order.
  deploy_tool.py syscall-check UNIT STRACE_FILE EXECUTABLE [ROOT]
      Checks an `strace -f` log of EXECUTABLE against the unit's sandbox:
      every system call is allowed by its SystemCallFilter= lines (expanded
      with `systemd-analyze syscall-filter`), every socket() is of a family
      in RestrictAddressFamilies=, (MemoryDenyWriteExecute=) no mapping
      is made writable and executable at once, (ProcSubset=pid) only
      /proc/<pid> files are opened, (ProtectSystem=strict) nothing is
      written outside the runtime, state and ReadWritePaths= folders (and
      /tmp with PrivateTmp=), and (ProtectHome=) no home is touched. ROOT:
      where the test put /run and /var/lib. Only the calls made after
      EXECUTABLE was exec'd count (not those of the wrapper that set up
      the user and capabilities, which is systemd's job).
"""
import json
import os
import re
import socket
import subprocess
import sys


# Files outside /proc/PID that ProcSubset=pid hides but whose readers do
# well without them: glibc's malloc reads overcommit_memory once, when it
# first shrinks a thread's heap, and when it cannot it keeps returning
# memory with MADV_DONTNEED instead.
HIDDEN_PROC_FILES_WITH_FALLBACK = {"/proc/sys/vm/overcommit_memory"}

def walk(node):
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v)


def cmd_session(path, label):
    with open(path) as f:
        data = json.load(f)
    found = [d for d in walk(data) if d.get("label") == label and "spans" in d]
    if found:
        s = max(found, key=lambda d: int(d.get("id", 0)))
        print(f"{s['id']} {s['spans']} {s.get('state', '?')}")


def cmd_op_names(path):
    with open(path) as f:
        text = f.read()
    names = set()
    # One JSON document, or one object per line.
    try:
        docs = [json.loads(text)]
    except json.JSONDecodeError:
        docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    for doc in docs:
        for d in walk(doc):
            if "op_id" in d and "name" in d:
                names.add(d["name"])
    print(",".join(sorted(names)))


def cmd_notify_sink(path, out):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    os.chmod(path, 0o777)
    with open(out, "a") as f:
        while True:
            msg = s.recv(4096).decode(errors="replace")
            f.write(msg.replace("\n", "|") + "\n")
            f.flush()


def unit_values(unit, key):
    values = []
    with open(unit) as f:
        for line in f:
            line = line.strip()
            if line.startswith(key + "="):
                values.append(line[len(key) + 1:])
    return values


def cmd_unit_value(unit, key):
    for v in unit_values(unit, key):
        print(v)


_group_cache = {}


def expand(name):
    """The system calls a @group names, recursively (a plain name: itself)."""
    if not name.startswith("@"):
        return {name}
    if name not in _group_cache:
        out = subprocess.run(["systemd-analyze", "syscall-filter", name], check=True,
                             capture_output=True, text=True).stdout
        calls = set()
        for line in out.splitlines()[1:]:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            calls |= expand(line)
        _group_cache[name] = calls
    return _group_cache[name]


def allowed_syscalls(unit):
    """SystemCallFilter= semantics: the first line decides allow or deny
    list; later lines add to or remove from it."""
    allowed = None
    denied = set()
    for value in unit_values(unit, "SystemCallFilter"):
        negate = value.startswith("~")
        names = set()
        for word in value.lstrip("~").split():
            names |= expand(word)
        if allowed is None and not negate:
            allowed = set(names)
        elif allowed is None:
            denied |= names
        elif negate:
            allowed -= names
        else:
            allowed |= names
    return allowed, denied


LINE = re.compile(r"^(\d+)\s+(?:<\.\.\. )?([a-z_0-9]+)(\(| resumed>)")


WRITE_CALLS = {"mkdir", "mkdirat", "unlink", "unlinkat", "rmdir", "rename", "renameat",
               "renameat2", "chmod", "fchmodat", "chown", "lchown", "fchownat", "truncate",
               "symlink", "symlinkat", "link", "linkat", "mknod", "mknodat", "creat", "utimensat"}
OPEN_CALLS = {"open", "openat", "openat2"}


def writable_prefixes(unit, root):
    """Where ProtectSystem=strict lets the service write, with /run and
    /var/lib moved under `root` as the tests do."""
    def moved(path):
        for top in ("/run/", "/var/lib/"):
            if path.startswith(top):
                return root + path
        return path
    prefixes = ["/dev/shm/", "/dev/null", "/proc/", "/sys/fs/cgroup/"]
    for d in unit_values(unit, "RuntimeDirectory"):
        prefixes += [moved("/run/" + x) for x in d.split()]
    for d in unit_values(unit, "StateDirectory"):
        prefixes += [moved("/var/lib/" + x) for x in d.split()]
    for v in unit_values(unit, "ReadWritePaths"):
        prefixes += [moved(x.lstrip("-")) for x in v.split()]
    if "yes" in unit_values(unit, "PrivateTmp"):
        prefixes += ["/tmp/", "/var/tmp/"]
    return prefixes


def cmd_syscall_check(unit, trace, executable, root=""):
    allowed, denied = allowed_syscalls(unit)
    families = set()
    for value in unit_values(unit, "RestrictAddressFamilies"):
        families = set(value.split())
    mdwe = any(v in ("yes", "true") for v in unit_values(unit, "MemoryDenyWriteExecute"))
    strict = "strict" in unit_values(unit, "ProtectSystem")
    protect_home = "yes" in unit_values(unit, "ProtectHome")
    writable = writable_prefixes(unit, root)
    started = False
    used = {}
    problems = []
    proc_files = set()
    with open(trace) as f:
        for line in f:
            if not started:
                if re.search(r'execve\("' + re.escape(executable) + r'"', line) and "= 0" in line:
                    started = True
                continue
            m = LINE.match(line)
            if not m:
                continue
            call = m.group(2)
            used[call] = used.get(call, 0) + 1
            if call == "socket" and "(" in line:
                fam = re.search(r"socket\((AF_[A-Z0-9]+)", line)
                if fam and families and fam.group(1) not in families:
                    problems.append(f"socket of family {fam.group(1)} (RestrictAddressFamilies="
                                    f"{' '.join(sorted(families))}): {line.strip()}")
            if mdwe and call in ("mmap", "mprotect", "pkey_mprotect") and \
                    "PROT_WRITE" in line and "PROT_EXEC" in line:
                problems.append(f"writable+executable mapping (MemoryDenyWriteExecute): {line.strip()}")
            p = re.search(r'"(/proc/[^"]*)"', line)
            if p:
                proc_files.add(re.sub(r"/proc/\d+", "/proc/PID", p.group(1)))
            path = re.search(r'\((?:AT_FDCWD, )?"([^"]*)"', line)
            if call == "bind":
                path = re.search(r'sun_path="([^"]*)"', line)
            if path and strict and (call in WRITE_CALLS or call == "bind" or (
                    call in OPEN_CALLS and re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC", line))):
                target = path.group(1)
                # The test's stand-ins for /run and /var/lib live under
                # ROOT (itself in /tmp): there only the unit's folders count.
                write_ok = ([w for w in writable if w.startswith(root)]
                            if root and target.startswith(root + "/") else writable)
                if not target.startswith("/"):
                    problems.append(f"{call} of a relative path (cwd is / under systemd): "
                                    f"{line.strip()}")
                elif not any(target == w.rstrip("/") or target.startswith(w.rstrip("/") + "/")
                             for w in write_ok):
                    problems.append(f"{call} writes {target}, read-only under ProtectSystem=strict")
            if path and protect_home and re.match(r"^/(home|root|run/user)(/|$)",
                                                  path.group(1)):
                problems.append(f"{path.group(1)} is hidden by ProtectHome=yes: {line.strip()}")
    if not started:
        print(f"no successful execve of {executable} in {trace}")
        return 1
    for call, n in sorted(used.items()):
        if (allowed is not None and call not in allowed) or call in denied:
            problems.append(f"system call {call} ({n} times) is not allowed by SystemCallFilter=")
    print(f"{len(used)} distinct system calls, {sum(used.values())} calls: "
          + " ".join(sorted(used)))
    print("/proc files read: " + " ".join(sorted(proc_files)))
    if "pid" in unit_values(unit, "ProcSubset"):
        for path in sorted(proc_files):
            if path in HIDDEN_PROC_FILES_WITH_FALLBACK:
                continue
            if not re.match(r"^/proc/(PID|self|thread-self)(/|$)", path):
                problems.append(f"{path} is hidden by ProcSubset=pid")
    for p in problems:
        print("PROBLEM: " + p)
    return 1 if problems else 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd, args = argv[1], argv[2:]
    if cmd == "session":
        cmd_session(*args)
    elif cmd == "op-names":
        cmd_op_names(*args)
    elif cmd == "notify-sink":
        cmd_notify_sink(*args)
    elif cmd == "unit-value":
        cmd_unit_value(*args)
    elif cmd == "syscall-check":
        return cmd_syscall_check(*args)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
