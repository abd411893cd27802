"""Every method of optrace.Client against a real optraced: sessions,
session, ops (paging across pages), stats (threads too), a step's tree,
diff, tail (raising a producer's level and restoring it), levels,
status, export, and one optrace.Error subclass per gRPC code."""

import csv
import datetime
import json
import os
import signal
import sqlite3
import subprocess
import threading
import unittest

import grpc

import optrace
import optrace.errors
import optrace_testing as t


class ClientTest(t.DaemonTestCase):

    def live_level(self, pid):
        for p in self.client.get_level().producers:
            if p.pid == pid:
                return p.live
        return None

    def test_Sessions_RunningByDefault_AllWithEnded(self):
        _, ended = self.run_producer("ops_program.py", 0, 0, 3)
        _, running = self.start_idle()
        self.assertEqual([s.id for s in self.client.sessions()], [running.id])
        self.assertEqual([s.id for s in self.client.sessions(all=True)], [running.id, ended.id])
        self.assertEqual(len(self.client.sessions(all=True, limit=1)), 1)
        self.assertEqual(running.state, "running")
        self.assertEqual(ended.state, "exited")
        self.assertTrue(ended.command_line.endswith("ops_program.py 0 0 3"))

    def test_Session_RunningProducer_ShowsItsOpenOp(self):
        process, session = self.start_idle("hold", OPTRACE_LEVEL="trace")
        detail = t.wait_until(lambda: (lambda d: d if any(
            o.name == "held" for o in d.open_ops) else None)(self.client.session(session.id)))
        self.assertIsNotNone(detail)
        self.assertEqual(detail.session.pid, process.pid)
        held = [o for o in detail.open_ops if o.name == "held"]
        self.assertEqual(len(held), 1)
        self.assertEqual(held[0].tag, "held_tag")
        self.assertTrue(held[0].source_location.startswith(t.program("idle_program.py") + ":"))

    def test_Ops_SmallPages_SameSpansAsOnePage(self):
        report, session = self.run_producer("ops_program.py", 2, 30, 250)
        total = len(report["ops"])
        whole = self.stored_spans(session.id, total)
        self.assertEqual(len(whole), total)
        paged = list(self.client.ops(session.id, page_size=40))
        self.assertGreater(total, 40 * 2)
        self.assertEqual([s.op_id for s in paged], [s.op_id for s in whole])
        self.assertEqual(sorted(s.op_id for s in paged), sorted(op["id"] for op in report["ops"]))
        starts = [s.start_unix_ns for s in paged]
        self.assertEqual(starts, sorted(starts))
        self.assertEqual(len(list(self.client.ops(session.id, limit=95, page_size=40))), 95)
        self.assertEqual([s.op_id for s in self.client.ops(session.id, limit=7)],
                         [s.op_id for s in whole[:7]])
        # Self time: the duration less the children's that ended inside
        # it on its thread; a span without children has all of it.
        parents = {s.parent_op_id for s in paged}
        less = 0
        for s in paged:
            self.assertIsNotNone(s.self_ns)
            self.assertLessEqual(s.self_ns, s.duration_ns)
            if s.op_id not in parents:
                self.assertEqual(s.self_ns, s.duration_ns)
            less += s.self_ns < s.duration_ns
        self.assertGreater(less, 0, "outer ops hold inner ones")

    def test_Ops_Filters_OnlyMatchingSpans(self):
        report, session = self.run_producer("ops_program.py", 2, 10, 30)
        self.stored_spans(session.id, len(report["ops"]))

        def count(**filters):
            return len(list(self.client.ops(session.id, page_size=16, **filters)))

        def expected(predicate):
            return sum(1 for op in report["ops"] if predicate(op))

        self.assertEqual(count(name="^loop$"), expected(lambda op: op["name"] == "loop"))
        self.assertEqual(count(tag="step_1"), expected(lambda op: op["tag"] == "step_1"))
        self.assertEqual(count(target="gpu"), expected(lambda op: op["target"] == "gpu"))
        self.assertEqual(count(target="gpu", device=1),
                         expected(lambda op: op["target"] == "gpu" and op["device"] == 1))
        self.assertEqual(count(device=0), expected(lambda op: op["device"] == 0))
        self.assertEqual(count(min_duration=3600 * 10**9), 0)
        self.assertEqual(count(status="ok"), len(report["ops"]))

    def test_Stats_ByNameTagTarget_CountsOfTheSession(self):
        report, session = self.run_producer("ops_program.py", 2, 10, 30)
        self.stored_spans(session.id, len(report["ops"]))
        ops = report["ops"]
        for by, key in (("name", lambda op: op["name"]), ("tag", lambda op: op["tag"]),
                        ("target", lambda op: f"{op['target']}:{op['device']}")):
            with self.subTest(by=by):
                stats = self.client.stats(session.id, by=by)
                want = {}
                for op in ops:
                    want[key(op)] = want.get(key(op), 0) + 1
                self.assertEqual({r.name: r.count for r in stats.rows}, want)
                self.assertEqual(stats.spans, len(ops))
                self.assertEqual(stats.total_ns, sum(r.total_ns for r in stats.rows))
                self.assertAlmostEqual(sum(r.share for r in stats.rows), 1.0, places=6)
                self.assertAlmostEqual(sum(r.self_share for r in stats.rows), 1.0, places=6)
                self.assertLessEqual(stats.self_ns, stats.total_ns)
                for r in stats.rows:
                    self.assertLessEqual(r.self_ns, r.total_ns)
                    self.assertLessEqual(r.min_ns, r.p50_ns)
                    self.assertLessEqual(r.p50_ns, r.p95_ns)
                    self.assertLessEqual(r.p95_ns, r.p99_ns)
                    self.assertLessEqual(r.p99_ns, r.max_ns)
        top = self.client.stats(session.id, top=1)
        self.assertEqual(len(top.rows), 1)
        self.assertEqual(top.rows[0].total_ns, max(r.total_ns for r in
                                                    self.client.stats(session.id).rows))
        by_self = [r.self_ns for r in self.client.stats(session.id, sort="self").rows]
        self.assertEqual(by_self, sorted(by_self, reverse=True))
        with self.assertRaisesRegex(ValueError, "sort must be one of 'total', 'self'"):
            self.client.stats(session.id, sort="longest")
        only_loop = self.client.stats(session.id, name="^loop$")
        self.assertEqual([(r.name, r.count) for r in only_loop.rows], [("loop", 30)])

    def test_TreeOfAStepAndThreadsBusyShare_FromTheStoredSpans(self):
        report, session = self.run_producer("steps_program.py", 4)
        spans = self.stored_spans(session.id, len(report["steps"]) + len(report["ops"]))
        steps = self.client.steps(session.id)
        self.assertEqual(steps.steps_total, 8)
        self.assertEqual(steps.steps_folded, 0)
        self.assertEqual([s.trimmed for s in steps.steps], [False] * 8, "nothing trimmed")
        for step in steps.steps:
            with self.subTest(step=step.number):
                tree = self.client.tree(session.id, step=step.number)
                self.assertEqual(tree.spans, step.ops + 1, "its ops and its own span")
                self.assertEqual((tree.nodes[0].name, tree.nodes[0].depth), ("optrace.step", 0))
                self.assertEqual(tree.nodes[0].total_ns, step.duration_ns)
        with self.assertRaisesRegex(optrace.errors.NotFoundError, "has no step 99"):
            self.client.tree(session.id, step=99)

        stats = self.client.stats(session.id, threads=True)
        self.assertEqual(list(self.client.stats(session.id).threads), [], "not asked for")
        by_thread = {}
        for span in spans:
            self.assertEqual((span.status, span.launch_thread), ("ok", span.complete_thread))
            by_thread.setdefault(span.launch_thread, []).append(span)
        self.assertEqual({t.tid: t.ops for t in stats.threads},
                         {tid: len(s) for tid, s in by_thread.items()})
        self.assertEqual(stats.threads_left_out, 0)
        for thread in stats.threads:
            own = by_thread[thread.tid]
            self.assertEqual(thread.first_start_unix_ns, min(s.start_unix_ns for s in own))
            self.assertEqual(thread.last_end_unix_ns,
                             max(s.start_unix_ns + s.duration_ns for s in own))
            self.assertEqual(thread.wall_ns, thread.last_end_unix_ns - thread.first_start_unix_ns)
            self.assertLessEqual(thread.busy_ns, sum(s.duration_ns for s in own))
            self.assertAlmostEqual(thread.busy_share, thread.busy_ns / thread.wall_ns)

    def test_Keep_LastRangeAndAll_StoredMergedAndListed(self):
        report, session = self.run_producer("ops_program.py", 2, 10, 30)
        self.stored_spans(session.id, len(report["ops"]))
        spans = list(self.client.ops(session.id))
        newest = max(s.start_unix_ns for s in spans)
        oldest = min(s.start_unix_ns for s in spans)
        last = self.client.keep(session.id, datetime.timedelta(microseconds=1), reason="tail")
        self.assertEqual((last.first_unix_ns, last.last_unix_ns), (newest - 1000, newest))
        self.assertEqual(last.reason, "tail")
        self.assertGreater(last.bytes, 0)
        ranged = self.client.keep(session.id, first_unix_ns=oldest, last_unix_ns=oldest,
                                  reason="head")
        self.assertEqual(ranged.first_unix_ns, oldest)
        if newest - oldest > 1001:
            self.assertEqual([k.reason for k in self.client.keeps(session.id)], ["head", "tail"])
        whole = self.client.keep(session.id)
        self.assertEqual((whole.first_unix_ns <= oldest, whole.last_unix_ns), (True, newest))
        self.assertEqual(whole.reason, "keep; head; tail")
        self.assertEqual([(k.first_unix_ns, k.reason) for k in self.client.keeps(session.id)],
                         [(whole.first_unix_ns, "keep; head; tail")])
        self.assertEqual(self.client.status().counters["keeps_recorded"], 3)
        with self.assertRaises(optrace.errors.NotFoundError):
            self.client.keep(999999, 1000)
        with self.assertRaises(ValueError):
            self.client.keep(session.id, first_unix_ns=1)

    def test_Diff_TwoSessions_RowsPerName(self):
        report_a, a = self.run_producer("ops_program.py", 0, 0, 10)
        report_b, b = self.run_producer("ops_program.py", 1, 5, 20)
        self.stored_spans(a.id, len(report_a["ops"]))
        self.stored_spans(b.id, len(report_b["ops"]))
        diff = self.client.diff(a.id, b.id)
        rows = {r.key: r for r in diff.rows}
        self.assertEqual((rows["loop"].count_a, rows["loop"].count_b), (10, 20))
        self.assertTrue(rows["thread_op"].only_in_b)
        self.assertFalse(rows["thread_op"].only_in_a)
        self.assertEqual(diff.total_a_ns, sum(r.total_a_ns for r in diff.rows))
        by_tag = {r.key for r in self.client.diff(a.id, b.id, by="tag").rows}
        self.assertIn("step_1", by_tag)

    def test_Tail_RaisesProducerLevel_RestoredWhenClosed(self):
        process, _ = self.start_idle()
        self.assertEqual(self.live_level(process.pid), "off")
        tail = self.client.tail(level="trace", pid=process.pid)
        # close() from another thread ends the iteration: a bound on the wait.
        guard = threading.Timer(60, tail.close)
        guard.start()
        self.addCleanup(guard.cancel)
        ticks = []
        for item in tail:
            if type(item).__name__ == "LiveEvent" and item.name == "tick":
                ticks.append(item)
            if len(ticks) == 4:
                break
        self.assertEqual(len(ticks), 4)
        self.assertEqual({e.pid for e in ticks}, {process.pid})
        self.assertEqual({e.kind for e in ticks}, {"launch", "complete"})
        self.assertEqual(self.live_level(process.pid), "trace")
        tail.close()
        list(tail)  # what was received already, then the end (no hang, no error)
        self.assertTrue(tail.closed)
        self.assertEqual(t.wait_until(lambda: self.live_level(process.pid) == "off"), True,
                         self.client.get_level())
        self.assertEqual(t.wait_until(lambda: self.client.status().tails == 0), True)

    def test_Tail_Spans_OnlyCompletedSpans(self):
        process, _ = self.start_idle()
        with self.client.tail(level="trace", pid=process.pid, events=False, spans=True) as tail:
            guard = threading.Timer(60, tail.close)
            guard.start()
            self.addCleanup(guard.cancel)
            first = next(tail, None)
        self.assertIsNotNone(first, "no span within 60 s")
        self.assertEqual(type(first).__name__, "Span")
        self.assertIn(first.name, ("tick", "held"))
        self.assertEqual(first.status, "ok")
        self.assertIsNotNone(first.self_ns)
        self.assertLessEqual(first.self_ns, first.duration_ns)
        self.assertTrue(tail.closed)

    def test_Tail_CtrlC_IterationEndsCleanlyAndLevelRestored(self):
        process, _ = self.start_idle()
        tailer = t.start_python(t.program("tail_interrupt_program.py"), self.daemon.socket,
                                "^no-such-op$")
        line = tailer.stdout.readline().strip()
        if line != "waiting":
            self.fail(f"the tail is not waiting: {line!r} {tailer.stderr.read()}")
        self.assertEqual(t.wait_until(lambda: self.live_level(process.pid) == "trace"), True)
        tailer.send_signal(signal.SIGINT)
        out, err = tailer.communicate(timeout=30)
        self.assertEqual((tailer.returncode, out.strip()), (0, "ended cleanly"), err)
        self.assertEqual(t.wait_until(lambda: self.live_level(process.pid) == "off"), True)
        self.assertEqual(t.wait_until(lambda: self.client.status().tails == 0), True)

    def test_Levels_SetForSessionAndClear(self):
        process, session = self.start_idle()
        reply = self.client.set_level("debug", session_id=session.id)
        self.assertEqual((reply.producers_reached, reply.level), (1, "debug"))
        producer = [p for p in self.client.get_level().producers if p.pid == process.pid][0]
        self.assertEqual((producer.live, producer.override), ("debug", "debug"))
        self.client.clear_level(session_id=session.id)
        producer = [p for p in self.client.get_level().producers if p.pid == process.pid][0]
        self.assertEqual((producer.live, producer.override), ("off", None))
        reply = self.client.set_level("info")
        self.assertEqual(self.client.get_level().default_level, "info")
        self.assertEqual(t.wait_until(lambda: self.live_level(process.pid) == "info"), True)

    def test_Status_ThisDaemon(self):
        _, session = self.run_producer("ops_program.py", 0, 0, 5)
        status = self.client.status()
        self.assertEqual(status.namespace, t.NAMESPACE)
        self.assertEqual(status.db_path, self.daemon.db)
        self.assertTrue(status.version)
        self.assertGreaterEqual(status.events_ingested, 2 * 5)
        self.assertEqual(status.drops.total, 0)
        self.assertIsInstance(status.counters, dict)
        self.assertIsNone(status.forward)  # this daemon does not forward

    def test_Export_EachFormat_WholeSession(self):
        report, session = self.run_producer("ops_program.py", 1, 4, 6)
        total = len(report["ops"])
        self.stored_spans(session.id, total)
        names = {op["name"] for op in report["ops"]}
        for fmt in ("chrome", "perfetto", "csv", "sqlite"):
            with self.subTest(format=fmt):
                path = os.path.join(self.folder, f"trace.{fmt}")
                self.assertEqual(self.client.export(session.id, fmt, path), total)
                if fmt == "chrome":
                    with open(path) as f:
                        events = json.load(f)["traceEvents"]
                    self.assertTrue(names <= {e.get("name") for e in events})
                elif fmt == "perfetto":
                    # Perfetto's own trace, not JSON: a Trace message, whose
                    # first field is a packet (field 1, length-delimited).
                    with open(path, "rb") as f:
                        first = f.read(1)
                    self.assertEqual(first, b"\x0a")
                elif fmt == "csv":
                    with open(path, newline="") as f:
                        self.assertEqual(len(list(csv.DictReader(f))), total)
                else:
                    with sqlite3.connect(path) as db:
                        self.assertEqual(db.execute("SELECT count(*) FROM spans").fetchone()[0],
                                         total)
        self.assertEqual([n for n in os.listdir(self.folder) if ".part" in n], [])

    def test_Export_Range_OnlyTheSpansThatOverlapIt_BadRangeRefused(self):
        report, session = self.run_producer("ops_program.py", 1, 4, 6)
        spans = sorted(self.stored_spans(session.id, len(report["ops"])),
                       key=lambda s: s.start_unix_ns)
        start = spans[len(spans) // 3].start_unix_ns + 1
        end = spans[2 * len(spans) // 3].start_unix_ns

        def overlaps(s):
            if s.start_unix_ns >= end:
                return False
            return s.start_unix_ns >= start or (
                s.status == "ok" and s.start_unix_ns + s.duration_ns > start)
        expected = {s.op_id for s in spans if overlaps(s)}
        self.assertTrue(0 < len(expected) < len(spans))
        path = os.path.join(self.folder, "range.csv")
        self.assertEqual(
            self.client.export(session.id, "csv", path, start_ns=start, end_ns=end), len(expected))
        with open(path, newline="") as f:
            self.assertEqual({int(row["op_id"]) for row in csv.DictReader(f)}, expected)
        with self.assertRaises(optrace.InvalidArgumentError) as refused:
            self.client.export(session.id, "csv", path, start_ns=end, end_ns=start)
        self.assertIn(f"end_unix_ns {start} is not after start_unix_ns {end}",
                      str(refused.exception))
        with self.assertRaises(optrace.InvalidArgumentError) as refused:
            self.client.export(session.id, "csv", path, start_ns=start)
        self.assertIn("end_unix_ns is not set", str(refused.exception))

    def test_Timeline_WholeThenFirstHalf_EverySpanListedOrSummed(self):
        report, session = self.run_producer("ops_program.py", 2, 30, 250)
        total = len(self.stored_spans(session.id, len(report["ops"])))
        whole = self.client.timeline(session.id, width=2000)
        self.assertEqual(whole.spans, total)
        self.assertEqual(whole.strings[0], "")
        counted = sum(len(lane.spans) + sum(b.count for b in lane.buckets)
                      for lane in whole.lanes)
        self.assertEqual(counted, total)
        threads = {op["launch_thread"] for op in report["ops"] if op["target"] == "cpu"}
        self.assertTrue(threads)
        self.assertLessEqual(threads, {lane.thread for lane in whole.lanes})
        middle = (whole.start_unix_ns + whole.end_unix_ns) // 2
        half = self.client.timeline(session.id, start_ns=whole.start_unix_ns, end_ns=middle,
                                    width=100)
        self.assertEqual((half.start_unix_ns, half.end_unix_ns), (whole.start_unix_ns, middle))
        self.assertLess(half.spans, total)
        with self.assertRaises(optrace.InvalidArgumentError) as caught:
            self.client.timeline(session.id, width=0)
        self.assertIn("width 0", str(caught.exception))

    def test_Errors_BadRequests_OneClassPerCode(self):
        _, session = self.run_producer("ops_program.py", 0, 0, 3)
        cases = [
            (optrace.InvalidArgumentError, lambda: list(self.client.ops(session.id, name="("))),
            (optrace.InvalidArgumentError,
             lambda: list(self.client.ops(session.id, page_size=1000000))),
            (optrace.InvalidArgumentError, lambda: self.client.session(0)),
            (optrace.InvalidArgumentError,
             lambda: self.client.set_level("info", session_id=session.id, pid=1)),
            (optrace.NotFoundError, lambda: self.client.session(999999)),
            (optrace.NotFoundError, lambda: self.client.stats(999999)),
            (optrace.NotFoundError, lambda: self.client.export(999999, "csv",
                                                               os.path.join(self.folder, "x"))),
            (optrace.UnavailableError,
             lambda: optrace.Client(socket=os.path.join(self.folder, "none.sock")).status()),
        ]
        for error_class, call in cases:
            with self.subTest(error=error_class.__name__):
                with self.assertRaises(error_class) as caught:
                    call()
                self.assertIsInstance(caught.exception, optrace.Error)
                self.assertTrue(str(caught.exception))
        with self.assertRaises(optrace.NotFoundError) as caught:
            self.client.session(999999)
        self.assertEqual(str(caught.exception), "no session 999999")  # the daemon's message
        self.assertEqual(caught.exception.code, "NOT_FOUND")
        self.assertEqual(caught.exception.address, self.daemon.socket)
        self.assertFalse(os.path.exists(os.path.join(self.folder, "x")))

    def test_GetSource_Missing_ErrorsNameWhatIsMissing(self):
        _, session = self.run_producer("ops_program.py", 0, 0, 3)
        with self.assertRaises(optrace.NotFoundError) as caught:
            self.client.get_source(session.id, location="nowhere.py:3")
        self.assertIn(f"session {session.id} has no listing of nowhere.py around line 3",
                      str(caught.exception))
        with self.assertRaises(optrace.NotFoundError) as caught:
            self.client.get_source(session.id, op_id=2**62)
        self.assertEqual(str(caught.exception), f"session {session.id} has no op {2**62}")
        with self.assertRaises(optrace.NotFoundError):
            self.client.get_source(999999, location="model.py:3")
        with self.assertRaises(optrace.InvalidArgumentError) as caught:
            self.client.get_source(session.id, location="model.py")
        self.assertIn("not a file:line location", str(caught.exception))
        for bad in [dict(), dict(op_id=1, location="a.py:1"), dict(op_id=0), dict(op_id="1"),
                    dict(op_id=1, context=-1)]:
            with self.subTest(arguments=bad), self.assertRaises(ValueError):
                self.client.get_source(session.id, **bad)

    @unittest.skipUnless(os.geteuid() == 0, "needs root to call as another uid")
    def test_Errors_OtherUser_PermissionDenied(self):
        _, session = self.run_producer("ops_program.py", 0, 0, 3)
        python_path, library_path, programs = t.stage_for_other_users(self.folder)
        os.chmod(os.path.dirname(self.daemon.socket), 0o755)
        os.chmod(self.daemon.socket, 0o666)
        probe = subprocess.run(
            ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             "/usr/bin/python3", os.path.join(programs, "other_user_program.py"),
             self.daemon.socket, str(session.id)],
            env=t.python_env(PYTHONPATH=python_path, LD_LIBRARY_PATH=library_path),
            cwd=programs, capture_output=True, text=True, timeout=60)
        self.assertEqual(probe.stdout.split("\n"), [
            "PermissionDeniedError PERMISSION_DENIED", "PermissionDeniedError PERMISSION_DENIED",
            ""], probe.stderr)

    def test_Errors_EveryGrpcCode_ItsOwnSubclass(self):
        classes = {}
        for code in grpc.StatusCode:
            if code == grpc.StatusCode.OK:
                continue
            error = optrace.errors.error_for(code.name, "message", "addr")
            self.assertIsInstance(error, optrace.Error)
            self.assertEqual((error.code, str(error), error.address), (code.name, "message", "addr"))
            classes[code.name] = type(error)
        self.assertEqual(len(set(classes.values())), len(classes))
        self.assertIs(classes["NOT_FOUND"], optrace.NotFoundError)

    def test_Client_BadAddresses_ValueError(self):
        for kwargs in ({"server": "localhost"}, {"server": "host:port"},
                       {"server": "192.0.2.7:7070"}, {"socket": "/x", "tls_ca": "ca.pem"}):
            with self.subTest(**kwargs):
                with self.assertRaises(ValueError):
                    optrace.Client(**kwargs)
        for call in (lambda: self.client.stats(1, by="size"),
                     lambda: self.client.set_level("loud"),
                     lambda: self.client.export(1, "pdf", os.path.join(self.folder, "x")),
                     lambda: list(self.client.ops(1, min_duration=-1)),
                     lambda: self.client.tail(events=False)):
            with self.assertRaises(ValueError):
                call()

    def test_Rows_ToPandas_OneRowPerItem(self):
        report, session = self.run_producer("ops_program.py", 0, 0, 4)
        rows = self.client.stats(session.id).rows
        try:
            import pandas  # noqa: F401  (optional)
        except ImportError:
            with self.assertRaises(ImportError):
                rows.to_pandas()
            return
        frame = rows.to_pandas()
        self.assertEqual(len(frame), len(rows))
        self.assertEqual(list(frame["name"]), [r.name for r in rows])


if __name__ == "__main__":
    unittest.main()
