#!/usr/bin/env python3
"""Fails when a source file includes a folder its own folder may not use.

The daemon's folders follow the data (docs/daemon.md, "Pipeline"): the
drain side knows nothing of the serving side, the serving stages nothing of
one another or of the API. This script holds the allowed arrows, one line a
folder, and checks every quoted include under daemon/, torch/, nvtx/, http/
and cli/.
  tools/check-includes.py [ROOT]
Exit 0 when every include is allowed; 1, naming each file and include that
is not.
"""
import pathlib
import re
import sys

# Folders every daemon folder may include: client-lib's common/ and public
# optrace/ headers, and the model.
DAEMON_BASE = {"common", "optrace", "model"}
DRAIN_SIDE = {"config", "control", "correlate", "discovery", "drain", "levels", "log",
              "service", "storage", "strings"}

# daemon/<folder>: the daemon folders it may include besides DAEMON_BASE.
DAEMON_ALLOWED = {
    "model": set(),
    "strings": set(),
    "log": set(),
    "service": set(),
    "discovery": set(),
    "config": set(),
    "control": set(),
    "storage": set(),
    "correlate": set(),
    "levels": {"config"},
    "drain": DRAIN_SIDE,
    "wire": {"storage"},
    "live": {"drain", "storage", "strings", "wire"},
    "query": {"storage", "wire"},
    "export": {"storage", "wire"},
    "forward": {"log", "storage", "wire"},
    "fleet": {"forward", "query", "storage", "wire"},
    "api": DRAIN_SIDE | {"wire", "live", "query", "export", "forward", "fleet", "api"},
    # "http/..." is the top-level http/ (optrace_http), shared with the CLI.
    "metrics": {"drain", "storage", "http"},
}

# Top-level folders that may not include one another's files.
# http/ serves both the daemon and the CLI: it knows neither.
FORBIDDEN_TOP = {("torch", "nvtx"), ("nvtx", "torch"), ("http", "daemon"), ("http", "cli"),
                 ("cli", "daemon")}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def daemon_problems(root):
    daemon = root / "daemon"
    for path in sorted(daemon.rglob("*")):
        if path.suffix not in (".h", ".cc", ".in") or path.parent == daemon:
            continue
        folder = path.relative_to(daemon).parts[0]
        allowed = DAEMON_ALLOWED.get(folder)
        if allowed is None:
            yield f"{path.relative_to(root)}: folder daemon/{folder}/ has no line in {__file__}"
            continue
        for include in INCLUDE.findall(path.read_text(errors="replace")):
            first = include.split("/")[0]
            if "/" not in include or first == folder or first in DAEMON_BASE:
                continue
            if first not in allowed:
                yield (f"{path.relative_to(root)}: includes \"{include}\", but daemon/{folder}/ "
                       f"may use only {sorted(allowed | DAEMON_BASE)}")


def top_level_problems(root):
    for source, target in sorted(FORBIDDEN_TOP):
        for path in sorted((root / source).rglob("*")):
            if path.suffix not in (".h", ".cc", ".cu", ".cpp"):
                continue
            for include in INCLUDE.findall(path.read_text(errors="replace")):
                if include.startswith(target + "/"):
                    yield f"{path.relative_to(root)}: includes \"{include}\" from {target}/"


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems = list(daemon_problems(root)) + list(top_level_problems(root))
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} include(s) against the layering (docs/daemon.md, Pipeline)")
        return 1
    print("includes follow the layering")
    return 0


if __name__ == "__main__":
    sys.exit(main())
