"""Real parts for the Python tests: an optraced of the test's own (socket
and database in a temporary folder, the test process's own shm namespace)
and real /usr/bin/python3 producer processes.

ctest gives the paths: OPTRACED (the daemon), OPTRACE_CLI (the CLI),
PYTHONPATH (build/python, then this folder).
"""

import atexit
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import optrace

OPTRACED = os.environ["OPTRACED"]
OPTRACE_CLI = os.environ.get("OPTRACE_CLI", "")
PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")

# Every daemon and producer of this test process sees only this namespace:
# tests of others, and a daemon of the machine, are invisible to it.
NAMESPACE = f"pytest{os.getpid()}"
os.environ["OPTRACE_NAMESPACE"] = NAMESPACE
for _variable in ("OPTRACE_LEVEL", "OPTRACE_SINK", "OPTRACE_SESSION", "OPTRACE_SOCKET"):
    os.environ.pop(_variable, None)


@atexit.register
def _remove_segments():
    # Segments of producers a test killed, control segments of daemons.
    for path in glob.glob(f"/dev/shm/{NAMESPACE}.*"):
        os.unlink(path)


def wait_until(condition, timeout=20.0, interval=0.02):
    """Polls `condition` until it returns something true (returned) or
    `timeout` seconds pass (then returns the last value)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


class Daemon:
    """optraced in `folder`: socket folder/run/optraced.sock, database
    folder/optrace.db."""

    def __init__(self, folder, extra_args=()):
        self.folder = folder
        self.socket = os.path.join(folder, "run", "optraced.sock")
        self.db = os.path.join(folder, "optrace.db")
        self.log_path = os.path.join(folder, "optraced.log")
        self._extra_args = list(extra_args)
        self._process = None

    def start(self):
        with open(self.log_path, "ab") as log:
            self._process = subprocess.Popen(
                [OPTRACED, "--db", self.db, "--socket", self.socket, *self._extra_args],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        if not wait_until(lambda: " ready:" in self.log() or self._process.poll() is not None):
            raise AssertionError(f"optraced did not come up:\n{self.log()}")
        if self._process.poll() is not None:
            raise AssertionError(f"optraced exited with {self._process.returncode}:\n{self.log()}")

    def stop(self):
        """SIGTERM, then waits for its exit; returns the exit code."""
        self._process.send_signal(signal.SIGTERM)
        try:
            return self._process.wait(60)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
            return -1

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()


def program(name):
    return os.path.join(PROGRAMS, name)


def python_env(**extra):
    """The environment of a producer: this one (PYTHONPATH, namespace) plus
    large rings, so that nothing is dropped in tests, plus `extra`."""
    env = dict(os.environ, OPTRACE_RING_CAPACITY="65536")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def stage_for_other_users(folder):
    """Copies what a producer program needs (the optrace package this test
    imports, the liboptrace it loaded, the programs) under `folder`, mode
    0755, so that another uid can run them whatever the checkout's mode;
    returns (PYTHONPATH, LD_LIBRARY_PATH, programs folder) for that uid."""
    package = os.path.dirname(os.path.abspath(optrace.__file__))
    library = next(line.split()[-1] for line in open("/proc/self/maps")
                   if os.path.basename(line.split()[-1]).startswith("liboptrace.so"))
    staged = os.path.join(folder, "staged")
    shutil.copytree(package, os.path.join(staged, "python", "optrace"))
    shutil.copytree(PROGRAMS, os.path.join(staged, "programs"))
    os.makedirs(os.path.join(staged, "lib"))
    shutil.copy(library, os.path.join(staged, "lib", "liboptrace.so.0"))
    for root, folders, files in os.walk(staged):
        for name in folders + files:
            path = os.path.join(root, name)
            os.chmod(path, 0o755 if os.path.isdir(path) else 0o644)
    os.chmod(staged, 0o755)
    os.chmod(folder, 0o755)
    return (os.path.join(staged, "python"), os.path.join(staged, "lib"),
            os.path.join(staged, "programs"))


def start_python(script, *args, env=None, **popen):
    """Starts /usr/bin/python3 `script` `args`."""
    return subprocess.Popen([sys.executable, script, *map(str, args)],
                            env=env if env is not None else python_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


class DaemonTestCase(unittest.TestCase):
    """A test with its own optraced, started before and stopped cleanly
    (exit 0) after each test, and a Client of it. `daemon_args`: more
    optraced flags for the test class."""

    daemon_args = ()

    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="optrace-pytest-")
        self.daemon = Daemon(self.folder, self.daemon_args)
        self.daemon.start()
        self.client = optrace.Client(socket=self.daemon.socket)

    def tearDown(self):
        self.client.close()
        code = self.daemon.stop()
        log = self.daemon.log()
        shutil.rmtree(self.folder, ignore_errors=True)
        self.assertEqual(code, 0, log)

    def run_producer(self, name, *args, **env):
        """Runs programs/`name` to its end (OPTRACE_LEVEL=trace unless `env`
        says otherwise); returns (its JSON report, its ended Session)."""
        env.setdefault("OPTRACE_LEVEL", "trace")
        process = start_python(program(name), *args, env=python_env(**env))
        out, err = process.communicate(timeout=120)
        self.assertEqual(process.returncode, 0, err)
        report = json.loads(out)
        return report, self.ended_session(report["pid"])

    def ended_session(self, pid):
        """The session of process `pid` once the daemon saw it end."""
        def ended():
            for s in self.client.sessions(all=True):
                if s.pid == pid and s.state != "running":
                    return s
            return None
        session = wait_until(ended)
        self.assertIsNotNone(session, f"no ended session of pid {pid}:\n{self.daemon.log()}")
        return session

    def start_idle(self, *args, **env):
        """A running producer (programs/idle_program.py) and its session."""
        process = start_python(program("idle_program.py"), *args, env=python_env(**env),
                                 stdin=subprocess.PIPE)
        self.addCleanup(self.stop_idle, process)
        line = process.stdout.readline()
        if not line.startswith("ready"):
            self.fail(f"the producer did not start: {line!r} {process.stderr.read()}")
        session = wait_until(lambda: next(
            (s for s in self.client.sessions() if s.pid == process.pid), None))
        self.assertIsNotNone(session, self.daemon.log())
        return process, session

    def stop_idle(self, process):
        if process.poll() is None:
            process.stdin.close()
            process.wait(30)
        process.stdout.close()
        process.stderr.close()

    def stored_spans(self, session_id, count):
        """The session's spans once `count` of them are stored (or what is
        stored after 20 s)."""
        spans = wait_until(lambda: (lambda s: s if len(s) >= count else None)(
            list(self.client.ops(session_id))))
        return spans if spans is not None else list(self.client.ops(session_id))


def source_lines(path):
    """{site: line} of the `# site:NAME` comments of the file at `path`."""
    sites = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if "# site:" in line:
                sites[line.split("# site:")[1].split()[0]] = number
    return sites
