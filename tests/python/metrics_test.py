"""The metrics endpoint (optraced --metrics-listen) scraped by a real
Prometheus (Debian's /usr/bin/prometheus, scrape interval 1 s, its own data
folder, loopback ports picked here) while a real producer records ops:
counts exact, p99 within one bucket of `optrace stats --exact`, the
cardinality cap with its `other` series, counters that never reset, a
bearer token that a wrong or missing one does not pass, and every query of
the shipped Grafana dashboard (deploy/grafana/) answered by that Prometheus.
"""

import json
import os
import re
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
DASHBOARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                         "deploy", "grafana", "optrace-dashboard.json")
DASHBOARD_OPS = 200
DASHBOARD_DISTINCT = 10
# Grafana's own variables, as Grafana fills them in for a 5 minute range
# and Prometheus's 1 s scrape interval.
GRAFANA_BUILTINS = {"__rate_interval": "1m", "__interval": "15s", "__range": "5m"}
# Metrics the daemon serves only in some configurations: a query of them
# may answer nothing here.
METRICS_ONLY_SOMETIMES = {"optrace_forward_last_sent_timestamp_seconds"}  # when forwarding


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


def dashboard_panels(panels):
    """Every panel of `panels` but rows, with those inside collapsed rows."""
    for panel in panels:
        if panel.get("type") == "row":
            yield from dashboard_panels(panel.get("panels", []))
        else:
            yield panel


def grafana_substitute(text, values):
    """`text` with Grafana's variable forms ($var, ${var}, ${var:format},
    [[var]]) replaced by `values[var]`. Raises KeyError naming a variable
    that `values` lacks."""
    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]",
                  lambda m: values[m.group(1) or m.group(2) or m.group(3)], text)


def metric_names(promql):
    """The optrace_* and process_* metric names `promql` reads."""
    return set(re.findall(r"\b(?:optrace|process)_\w+", promql))


def tearDownModule():
    shutil.rmtree(TOKEN_FOLDER, ignore_errors=True)


class PrometheusTestCase(DaemonTestCase):
    """A daemon serving /metrics on METRICS_PORT behind TOKEN, and a real
    Prometheus that scrapes it (start_prometheus) and answers queries."""

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

    def prometheus_api(self, path, params):
        """The JSON answer of Prometheus's HTTP API at `path` (an error
        answer too: status "error" and its error); None when Prometheus
        cannot be reached or answers something else."""
        url = (f"http://127.0.0.1:{self.prometheus_port}{path}?" +
               urllib.parse.urlencode(params, doseq=True))
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:  # 400, 422: a refused query
            with error:
                try:
                    return json.load(error)
                except ValueError:
                    return None
        except (urllib.error.URLError, ConnectionError, ValueError):
            return None

    def query_or_none(self, promql):
        body = self.prometheus_api("/api/v1/query", {"query": promql})
        return body["data"]["result"] if body and body.get("status") == "success" else None

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



@unittest.skipUnless(os.access(PROMETHEUS, os.X_OK),
                     f"{PROMETHEUS} is not installed (Debian package prometheus)")
class MetricsTest(PrometheusTestCase):
    daemon_args = ("--metrics-listen", f"127.0.0.1:{METRICS_PORT}", "--metrics-token-file",
                   TOKEN_FILE)

    def exact_p99_ns(self, session_id):
        out = subprocess.run(
            [OPTRACE_CLI, "--socket", self.daemon.socket, "stats", str(session_id), "--exact",
             "--name", "metrics_op", "--json"], check=True, capture_output=True, text=True).stdout
        rows = json.loads(out)["rows"]
        self.assertEqual(len(rows), 1, out)
        self.assertEqual(rows[0]["count"], OPS, out)
        return rows[0]["p99_ns"]

    def record_ops(self, ops, distinct):
        """Starts Prometheus, then runs programs/metrics_program.py (`ops`
        ops named metrics_op, then one of each of `distinct` other names) to
        its end; returns its ended session once all its spans are stored."""
        self.start_prometheus()
        process = start_python(program("metrics_program.py"), ops, distinct,
                               env=python_env(OPTRACE_LEVEL="trace"))
        out, err = process.communicate(timeout=300)
        self.assertEqual(process.returncode, 0, err)
        session = self.ended_session(json.loads(out)["pid"])
        self.assertEqual(len(self.stored_spans(session.id, ops + distinct)), ops + distinct)
        return session

    def test_Prometheus_ScrapesExactCountsP99AndCaps(self):
        session = self.record_ops(OPS, DISTINCT)

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

        # Sessions by state: the program's session has exited, none crashed.
        self.assertEqual(self.query_value('optrace_sessions{state="exited"}', 1), 1)
        self.assertEqual(self.query_value('optrace_sessions{state="crashed"}', 0), 0)

    def dashboard_variables(self, dashboard):
        """[(name, values)] of the dashboard's template variables as Grafana
        would fill them in against this Prometheus: first one value each
        (this test's job, instance and metrics_op where it has them, else the
        first one Prometheus answers), then each variable with "All"
        selected (its allValue). Grafana's own variables are in both."""
        known = {"job": "optraced", "instance": f"127.0.0.1:{METRICS_PORT}", "name": "metrics_op"}
        one, every = dict(GRAFANA_BUILTINS), dict(GRAFANA_BUILTINS)
        for variable in dashboard["templating"]["list"]:
            name = variable["name"]
            if variable["type"] == "datasource":
                self.assertEqual(variable["query"], "prometheus", name)
                continue
            self.assertEqual(variable["type"], "query", name)
            definition = variable["definition"]
            match = re.fullmatch(r"label_values\((.+),\s*(\w+)\)", definition)
            self.assertIsNotNone(match, f"variable {name}: {definition}")
            selector, label = match.groups()
            answer = self.prometheus_api(f"/api/v1/label/{label}/values",
                                         {"match[]": grafana_substitute(selector, one)})
            self.assertEqual((answer or {}).get("status"), "success",
                             f"variable {name}: {definition}: {answer}")
            values = answer["data"]
            self.assertTrue(values, f"variable {name}: {definition} has no values")
            if name in known:
                self.assertIn(known[name], values, f"variable {name}: {definition}")
            one[name] = known.get(name, sorted(values)[0])
            every[name] = (variable.get("allValue") or "|".join(values)
                           if variable.get("includeAll") else one[name])
        return [("one value each", one), ("All", every)]

    def test_Dashboard_EveryPanelQueryAnswered(self):
        with open(DASHBOARD) as f:
            dashboard = json.load(f)
        self.assertIn({"name": "DS_PROMETHEUS", "type": "datasource", "pluginId": "prometheus"},
                      [{k: i.get(k) for k in ("name", "type", "pluginId")}
                       for i in dashboard["__inputs"]])
        panels = list(dashboard_panels(dashboard["panels"]))
        self.assertTrue(panels)
        self.assertEqual(len({p["id"] for p in panels}), len(panels), "panel ids repeat")
        for panel in panels:
            title = panel.get("title")
            self.assertTrue(title, panel)
            self.assertTrue(panel.get("description"), f"panel {title!r}: no description")
            self.assertTrue(panel["fieldConfig"]["defaults"].get("unit"),
                            f"panel {title!r}: no unit")
            self.assertEqual(panel["datasource"]["uid"], "${DS_PROMETHEUS}", title)
            self.assertTrue([t for t in panel.get("targets", []) if t.get("expr")],
                            f"panel {title!r}: no target with an expr")

        self.record_ops(DASHBOARD_OPS, DASHBOARD_DISTINCT)
        # All counted, and scraped a few times since: rate() over 1m has samples.
        self.query_value('optrace_ops_total{name="metrics_op"}', DASHBOARD_OPS)
        self.query_value('count_over_time(optrace_ops_total{name="metrics_op"}[1m]) >= 3')
        served = set(self.prometheus_api("/api/v1/label/__name__/values", {})["data"])

        failures = []
        for values_name, values in self.dashboard_variables(dashboard):
            for panel in panels:
                for target in panel["targets"]:
                    where = f"panel {panel['title']!r} ({values_name}): {target['expr']}"
                    unknown = metric_names(target["expr"]) - served - METRICS_ONLY_SOMETIMES
                    if unknown:
                        failures.append(f"{where}: not metrics optraced serves: {sorted(unknown)}")
                    try:
                        promql = grafana_substitute(target["expr"], values)
                    except KeyError as error:
                        failures.append(f"{where}: no such variable {error}")
                        continue
                    answer = self.prometheus_api("/api/v1/query", {"query": promql})
                    if (answer or {}).get("status") != "success":
                        failures.append(f"{where}: Prometheus refused {promql}: {answer}")
                    elif (not answer["data"]["result"] and
                          not metric_names(promql) & METRICS_ONLY_SOMETIMES):
                        failures.append(f"{where}: no result for {promql}")
        if failures:
            self.fail("\n".join(failures))

    def test_Token_WrongOrMissing_401(self):
        status, body = scrape(TOKEN)
        self.assertEqual(status, 200, body)
        self.assertIn("# TYPE optrace_op_duration_seconds histogram", body)
        self.assertEqual(scrape("wrong")[0], 401)
        self.assertEqual(scrape(None)[0], 401)
        self.assertEqual(scrape(TOKEN + "x")[0], 401)


# A config of per-process series under small caps, for MetricsLabelsTest.
LABELS_CONFIG = os.path.join(TOKEN_FOLDER, "labels.toml")
LABELS_GRACE_S = 20
LABELS_MAX_SERIES = 100
LABELS_PER_SESSION = 40
with open(LABELS_CONFIG, "w") as _f:
    _f.write(f"""metrics_labels = ["name", "target", "process", "pid"]
metrics_series_grace = "{LABELS_GRACE_S}s"
metrics_max_series = {LABELS_MAX_SERIES}
metrics_max_names_per_session = {LABELS_PER_SESSION}
""")


@unittest.skipUnless(os.access(PROMETHEUS, os.X_OK),
                     f"{PROMETHEUS} is not installed (Debian package prometheus)")
class MetricsLabelsTest(PrometheusTestCase):
    """metrics_labels with the process and pid: a series per process,
    counts exact per pid, the caps over many processes, and the series of
    ended processes gone after the grace."""

    daemon_args = ("--metrics-listen", f"127.0.0.1:{METRICS_PORT}", "--metrics-token-file",
                   TOKEN_FILE, "--config", LABELS_CONFIG)
    OPS = 300
    DISTINCT = 50
    PROCESSES = 3

    def test_ProcessAndPidLabels_ExactPerProcessCappedDroppedAfterGrace(self):
        self.start_prometheus()
        pids = []
        for i in range(self.PROCESSES):
            process = start_python(program("metrics_program.py"), self.OPS, self.DISTINCT,
                                   f"p{i}", env=python_env(OPTRACE_LEVEL="trace",
                                                           OPTRACE_SESSION=f"job{i}"))
            out, err = process.communicate(timeout=300)
            self.assertEqual(process.returncode, 0, err)
            pids.append(json.loads(out)["pid"])
            session = self.ended_session(pids[-1])
            self.assertEqual(len(self.stored_spans(session.id, self.OPS + self.DISTINCT)),
                             self.OPS + self.DISTINCT)

        # Counts exact per process, labelled with its OPTRACE_SESSION and pid.
        for i, pid in enumerate(pids):
            selector = f'name="metrics_op",process="job{i}",pid="{pid}"'
            self.assertEqual(self.query_value(f"optrace_ops_total{{{selector}}}", self.OPS),
                             self.OPS)
            self_s = self.query_value(f"optrace_op_self_seconds_total{{{selector}}}")
            total_s = self.query_value(f"optrace_op_duration_seconds_sum{{{selector}}}")
            self.assertGreater(self_s, 0)
            self.assertLessEqual(self_s, total_s * 1.000001)
            self.assertEqual(
                self.query_value(f'sum(optrace_ops_total{{pid="{pid}"}})',
                                 self.OPS + self.DISTINCT), self.OPS + self.DISTINCT)

        # The caps: every name of every process is counted, in at most
        # metrics_max_series named series, at most metrics_max_names_per_session
        # of them a process's, and one "other" series a process for the rest.
        everything = self.PROCESSES * (self.OPS + self.DISTINCT)
        self.assertEqual(self.query_value("sum(optrace_ops_total)", everything), everything)
        self.assertEqual(self.query_value('count(optrace_ops_total{name!="other"})',
                                          LABELS_MAX_SERIES), LABELS_MAX_SERIES)
        self.assertEqual(self.query_value('count(optrace_ops_total{name="other"})',
                                          self.PROCESSES), self.PROCESSES)
        for pid in pids:
            named = self.query_or_none(f'count(optrace_ops_total{{pid="{pid}",name!="other"}})')
            if named:
                self.assertLessEqual(float(named[0]["value"][1]), LABELS_PER_SESSION)
        self.assertEqual(self.query_value("sum(resets(optrace_ops_total[5m]))"), 0)

        # Every process has ended: after the grace its series are gone.
        def gone():
            status, body = scrape(TOKEN)
            return status == 200 and not any(f'pid="{pid}"' in body for pid in pids)
        self.assertTrue(wait_until(gone, timeout=LABELS_GRACE_S + 60, interval=1),
                        scrape(TOKEN)[1][:2000])


if __name__ == "__main__":
    unittest.main()
