"""The metrics endpoint (optraced --metrics-listen) scraped by a real
Prometheus (Debian's /usr/bin/prometheus, scrape interval 1 s, its own data
folder, loopback ports picked here) while a real producer records ops:
counts exact, p99 within one bucket of `optrace stats --exact`, the
cardinality cap with its `other` series, counters that never reset, and a
bearer token that a wrong or missing one does not pass.
"""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

from optrace_testing import (OPTRACE_CLI, DaemonTestCase, program, python_env, start_python,
                             wait_until)

PROMETHEUS = "/usr/bin/prometheus"
TOKEN = "metrics-test-token-0123456789"
OPS = 4000
DISTINCT = 300  # past the default cap of 200 names per session
NAMES_PER_SESSION = 200


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


METRICS_PORT = free_port()
TOKEN_FOLDER = tempfile.mkdtemp(prefix="optrace-metrics-token-")
TOKEN_FILE = os.path.join(TOKEN_FOLDER, "token")
with open(os.open(TOKEN_FILE, os.O_WRONLY | os.O_CREAT, 0o600), "w") as _f:
    _f.write(TOKEN + "\n")


def scrape(token):
    """(HTTP status, body) of GET /metrics with `token` (None: no header)."""
    request = urllib.request.Request(f"http://127.0.0.1:{METRICS_PORT}/metrics")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@unittest.skipUnless(os.access(PROMETHEUS, os.X_OK),
                     f"{PROMETHEUS} is not installed (Debian package prometheus)")
class MetricsTest(DaemonTestCase):
    daemon_args = ("--metrics-listen", f"127.0.0.1:{METRICS_PORT}", "--metrics-token-file",
                   TOKEN_FILE)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(TOKEN_FOLDER, ignore_errors=True)

    def start_prometheus(self):
        folder = os.path.join(self.folder, "prometheus")
        os.makedirs(folder)
        self.prometheus_port = free_port()
        config = os.path.join(folder, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: optraced
    authorization:
      type: Bearer
      credentials_file: {TOKEN_FILE}
    static_configs:
      - targets: ["127.0.0.1:{METRICS_PORT}"]
""")
        log = open(os.path.join(folder, "prometheus.log"), "wb")
        process = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={folder}/data",
             f"--web.listen-address=127.0.0.1:{self.prometheus_port}"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.addCleanup(log.close)
        self.addCleanup(process.wait, 30)
        self.addCleanup(process.terminate)
        up = wait_until(lambda: self.query_or_none("up") is not None, timeout=60, interval=0.2)
        self.assertTrue(up, open(os.path.join(folder, "prometheus.log")).read())

    def query_or_none(self, promql):
        url = (f"http://127.0.0.1:{self.prometheus_port}/api/v1/query?" +
               urllib.parse.urlencode({"query": promql}))
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                body = json.load(response)
        except (urllib.error.URLError, ConnectionError):
            return None
        return body["data"]["result"] if body.get("status") == "success" else None

    def query_value(self, promql, expected=None, timeout=30):
        """The one value of `promql`, once there is one (and equal to
        `expected`, when given) or after `timeout` s."""
        def value():
            result = self.query_or_none(promql)
            if not result or len(result) != 1:
                return None
            v = float(result[0]["value"][1])
            return v if expected is None or v == expected else None
        found = wait_until(value, timeout=timeout, interval=0.5)
        if found is None and expected is None:
            self.fail(f"no value for {promql}: {self.query_or_none(promql)}")
        return found if found is not None else value() or self.query_or_none(promql)

    def exact_p99_ns(self, session_id):
        out = subprocess.run(
            [OPTRACE_CLI, "--socket", self.daemon.socket, "stats", str(session_id), "--exact",
             "--name", "metrics_op", "--json"], check=True, capture_output=True, text=True).stdout
        rows = json.loads(out)["rows"]
        self.assertEqual(len(rows), 1, out)
        self.assertEqual(rows[0]["count"], OPS, out)
        return rows[0]["p99_ns"]

    def test_Prometheus_ScrapesExactCountsP99AndCaps(self):
        self.start_prometheus()
        process = start_python(program("metrics_program.py"), OPS, DISTINCT,
                               env=python_env(OPTRACE_LEVEL="trace"))
        out, err = process.communicate(timeout=300)
        self.assertEqual(process.returncode, 0, err)
        session = self.ended_session(json.loads(out)["pid"])
        self.assertEqual(self.stored_spans(session.id, OPS + DISTINCT).__len__(), OPS + DISTINCT)

        # Counts exact.
        self.assertEqual(self.query_value('optrace_ops_total{name="metrics_op"}', OPS), OPS)
        self.assertEqual(
            self.query_value('optrace_op_duration_seconds_count{name="metrics_op"}', OPS), OPS)
        self.assertEqual(self.query_value("sum(optrace_ops_total)", OPS + DISTINCT),
                         OPS + DISTINCT)

        # p99 within one bucket (the buckets are powers of two) of the exact one.
        exact_s = self.exact_p99_ns(session.id) / 1e9
        p99_s = self.query_value(
            'histogram_quantile(0.99, sum by (le) '
            '(optrace_op_duration_seconds_bucket{name="metrics_op"}))')
        self.assertGreaterEqual(p99_s, exact_s / 2, (p99_s, exact_s))
        self.assertLessEqual(p99_s, exact_s * 2, (p99_s, exact_s))

        # The cap: metrics_op and 199 of the names, then `other` for the rest.
        self.assertEqual(self.query_value("count(optrace_ops_total)", NAMES_PER_SESSION + 1),
                         NAMES_PER_SESSION + 1)
        self.assertEqual(
            self.query_value('optrace_ops_total{name="other"}', DISTINCT - NAMES_PER_SESSION + 1),
            DISTINCT - NAMES_PER_SESSION + 1)

        # Daemon counters and drops are there; no counter ever went down.
        self.assertEqual(self.query_value('optrace_events_dropped_total{cause="ring_full"}'), 0)
        self.assertGreaterEqual(self.query_value("optrace_events_ingested_total"),
                                2 * (OPS + DISTINCT))
        self.assertEqual(self.query_value("sum(resets(optrace_ops_total[5m]))"), 0)
        self.assertGreater(self.query_value("process_resident_memory_bytes"), 0)

    def test_Token_WrongOrMissing_401(self):
        status, body = scrape(TOKEN)
        self.assertEqual(status, 200, body)
        self.assertIn("# TYPE optrace_op_duration_seconds histogram", body)
        self.assertEqual(scrape("wrong")[0], 401)
        self.assertEqual(scrape(None)[0], 401)
        self.assertEqual(scrape(TOKEN + "x")[0], 401)


if __name__ == "__main__":
    unittest.main()
