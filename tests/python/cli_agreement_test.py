"""The optrace CLI and the Python client give the same statistics (and
the same spans and sessions) for the same session of a real daemon."""

import json
import subprocess
import unittest

import optrace_testing as t


class CliAgreementTest(t.DaemonTestCase):

    def cli(self, *args):
        run = subprocess.run([t.OPTRACE_CLI, "--socket", self.daemon.socket, *map(str, args)],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        return json.loads(run.stdout)

    def test_Stats_CliAndClient_SameRows(self):
        report, session = self.run_producer("ops_program.py", 2, 20, 60)
        self.stored_spans(session.id, len(report["ops"]))
        for by in ("name", "tag", "target"):
            for top in (0, 2):
                with self.subTest(by=by, top=top):
                    cli = self.cli("stats", session.id, "--by", by, "--top", top, "--json")
                    py = self.client.stats(session.id, by=by, top=top)
                    self.assertEqual((cli["spans"], cli["total_ns"]), (py.spans, py.total_ns))
                    self.assertEqual(len(cli["rows"]), len(py.rows))
                    self.assertGreater(len(py.rows), 0)
                    for cli_row, row in zip(cli["rows"], py.rows):
                        self.assertEqual(cli_row["key"], row.name)
                        for field in ("count", "ok_count", "total_ns", "min_ns", "p50_ns",
                                      "p95_ns", "p99_ns", "max_ns"):
                            self.assertEqual(cli_row[field], getattr(row, field), field)
                        self.assertAlmostEqual(cli_row["mean_ns"], row.mean_ns)
                        self.assertAlmostEqual(cli_row["share"], row.share)

    def test_OpsAndSessions_CliAndClient_SameSpans(self):
        report, session = self.run_producer("ops_program.py", 1, 5, 12)
        spans = self.stored_spans(session.id, len(report["ops"]))
        cli_spans = self.cli("ops", session.id, "--limit", 0, "--json")["spans"]
        self.assertEqual([(s["op_id"], s["name"], s["tag"], s["source_location"],
                           s["duration_ns"], s["parent_op_id"]) for s in cli_spans],
                         [(s.op_id, s.name, s.tag, s.source_location, s.duration_ns,
                           s.parent_op_id) for s in spans])
        cli_sessions = self.cli("sessions", "--all", "--json")["sessions"]
        self.assertEqual([(s["id"], s["pid"], s["spans"], s["state"]) for s in cli_sessions],
                         [(s.id, s.pid, s.spans, s.state) for s in self.client.sessions(all=True)])


if __name__ == "__main__":
    unittest.main()
