"""liboptrace_torch against a real optraced, with real /usr/bin/python3 and
Debian's torch: unmodified programs under `optrace run --torch`, counts per
name against torch.autograd.profiler's, tags and source lines, level off,
the level raised live by a tail, and the tag cap."""

import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

import optrace_testing as t

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")


def torch_program(name):
    return os.path.join(PROGRAMS, name)


class TorchTest(t.DaemonTestCase):

    def run_torch(self, *args, level="trace"):
        """`optrace run --torch --level LEVEL -- python3 ARGS`; returns the
        program's JSON report (its last stdout line)."""
        run = subprocess.run([t.OPTRACE_CLI, "--socket", self.daemon.socket, "run", "--torch",
                              "--level", level, "--", sys.executable, *map(str, args)],
                             capture_output=True, text=True, timeout=120, env=t.python_env())
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertNotIn("not traced", run.stderr)
        return json.loads(run.stdout.strip().splitlines()[-1])

    def spans_of(self, pid):
        session = self.ended_session(pid)
        return session, t.wait_until(lambda: list(self.client.ops(session.id)) or None, 5) or []

    def test_Run_UnmodifiedTraining_OpsTagsLinesParentsAndThreads(self):
        report = self.run_torch(torch_program("train_program.py"), 2)
        session, spans = self.spans_of(report["pid"])
        spans = t.wait_until(lambda: (lambda s: s if len(s) == session.spans else None)(
            list(self.client.ops(session.id)))) or list(self.client.ops(session.id))
        by_id = {s.op_id: s for s in spans}
        names = collections.Counter(s.name for s in spans)
        for name in ("aten::linear", "aten::addmm", "aten::relu", "aten::softmax",
                     "AddmmBackward0", "aten::mul"):
            self.assertGreater(names[name], 0, name)
        lines = t.source_lines(torch_program("train_program.py"))
        addmm = [s for s in spans if s.name == "aten::addmm"]
        self.assertIn("addmm_8x16x32_f32", {s.tag for s in addmm})
        self.assertIn("softmax_8x4_f32", {s.tag for s in spans if s.name == "aten::softmax"})
        for s in addmm:
            self.assertEqual(by_id[s.parent_op_id].name, "aten::linear")
            self.assertTrue(s.source_location.endswith(f"train_program.py:{lines['forward']}"),
                            s.source_location)
        thread_mul = [s for s in spans if s.name == "aten::mul" and s.tag == "mul_3x5_s_f32"]
        self.assertEqual(len(thread_mul), 50)
        self.assertTrue(all(s.source_location.endswith(f"train_program.py:{lines['thread']}")
                            for s in thread_mul))
        # CPU backward runs on the thread that called backward(): its line.
        backward = [s for s in spans if s.name == "AddmmBackward0"]
        self.assertTrue(all(s.source_location.endswith(f"train_program.py:{lines['backward']}")
                            for s in backward), [s.source_location for s in backward])

    def test_Counts_SameAsProfilerPerName(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "profile.json")
            report = self.run_torch(torch_program("train_program.py"), 3, "--profile", path)
            with open(path) as f:
                profiled = json.load(f)
        session, _ = self.spans_of(report["pid"])
        spans = t.wait_until(lambda: (lambda s: s if len(s) == session.spans else None)(
            list(self.client.ops(session.id)))) or []
        stored = collections.Counter(s.name for s in spans)
        # The profiler also lists user scopes (Optimizer.step#SGD.step),
        # which are not ops; every op it counts, optrace stored as often.
        ops = {name: count for name, count in profiled.items() if "#" not in name}
        self.assertGreater(len(ops), 10)
        self.maxDiff = None
        self.assertEqual({name: stored[name] for name in ops}, ops)

    def test_SelfTime_NestedOpsCountedOnce_SelfSharesAddUpTo100(self):
        report = self.run_torch(torch_program("train_program.py"), 3)
        session, _ = self.spans_of(report["pid"])
        spans = t.wait_until(lambda: (lambda s: s if len(s) == session.spans else None)(
            list(self.client.ops(session.id)))) or []
        self.assertGreater(len(spans), 100)
        self.assertTrue(all(s.status == "ok" for s in spans), {s.status for s in spans})
        by_id = {s.op_id: s for s in spans}
        # Every op's self time is its duration less its children's: summed
        # over a thread's nested ops they give the outermost ops' time,
        # to the nanosecond.
        outermost = sum(s.duration_ns for s in spans if s.parent_op_id not in by_id)
        total = sum(s.duration_ns for s in spans)
        stats = self.client.stats(session.id)
        self.assertEqual(stats.self_ns, outermost)
        self.assertLess(stats.self_ns, total)
        self.assertEqual(stats.total_ns, total)
        self.assertAlmostEqual(sum(row.self_share for row in stats.rows), 1.0, places=9)
        rows = {row.name: row for row in stats.rows}
        # aten::addmm runs inside aten::linear: linear's self time leaves it out.
        linear, addmm = rows["aten::linear"], rows["aten::addmm"]
        self.assertLessEqual(linear.self_ns, linear.total_ns - addmm.total_ns)
        by_self = self.client.stats(session.id, sort="self").rows
        self.assertEqual([row.self_ns for row in by_self],
                         sorted((row.self_ns for row in by_self), reverse=True))
        # The stored spans give the same self time as the aggregates.
        exact = self.client.stats(session.id, exact=True)
        self.assertEqual({row.name: row.self_ns for row in exact.rows},
                         {row.name: row.self_ns for row in stats.rows})

    def test_TagCache_AlternatingShapesAndDtypes_EveryOpItsOwnTag(self):
        # Inputs whose sizes join alike ([1,3],[3] and [1],[3,3]; 12x3 and
        # 1x23), one shape in several dtypes, 0-d tensors, called in turn:
        # the tracer's per-thread cache must give each op its own tag, also
        # after the level went off and on, and after the tag cap is reached
        # (then new tags are "<too many names>", each op counted).
        cases = [([[1, 3], [3]], "f32", "mul_1x3_3_f32"),
                 ([[1], [3, 3]], "f32", "mul_1_3x3_f32"),
                 ([[1, 3], [3]], "f64", "mul_1x3_3_f64"),
                 ([[1, 3], [3]], "i64", "mul_1x3_3_i64"),
                 ([[1], [3, 3]], "i32", "mul_1_3x3_i32"),
                 ([[12, 3], [3]], "f32", "mul_12x3_3_f32"),
                 ([[1, 23], [23]], "f32", "mul_1x23_23_f32"),
                 ([[], [2]], "f32", "mul_s_2_f32"),
                 ([[2], []], "f32", "mul_2_s_f32")]
        new_cases = [([[5, 7], [7]], "f32"), ([[7], [5, 7]], "f64")]
        rounds, fill = 4, 6000
        report, session = self.run_producer(
            torch_program("tag_cache_program.py"),
            json.dumps([[shapes, dtype] for shapes, dtype, _ in cases]),
            json.dumps(new_cases), rounds, fill)
        losses = report["losses"]
        self.assertEqual(losses["callback_errors"], 0)
        tags = [tag for _, _, tag in cases] + ["<too many names>"] * len(new_cases)
        expected = [tags[i] for phase in report["phases"] for i in phase]
        self.assertEqual(len(expected), rounds * (3 * len(cases) + len(new_cases)))
        spans = t.wait_until(lambda: (lambda s: s if len(s) >= len(expected) else None)(
            list(self.client.ops(session.id, name="aten::mul"))))
        self.assertIsNotNone(spans)
        self.maxDiff = None
        self.assertEqual([s.tag for s in sorted(spans, key=lambda s: s.op_id)], expected)
        negs = t.wait_until(lambda: (lambda s: s if len(s) >= fill else None)(
            list(self.client.ops(session.id, name="aten::neg"))))
        self.assertIsNotNone(negs)
        over_cap = sum(1 for s in negs if s.tag == "<too many names>")
        self.assertGreater(over_cap, 0)
        self.assertGreaterEqual(losses["tags_over_cap"], over_cap + rounds * len(new_cases))

    def test_LevelOff_NoOps(self):
        report = self.run_torch(torch_program("train_program.py"), 2, level="off")
        session = self.ended_session(report["pid"])
        self.assertEqual(session.spans, 0)

    def test_LevelRaisedByTail_OpsFromThenOn(self):
        with tempfile.TemporaryDirectory() as folder:
            stop = os.path.join(folder, "stop")
            process = subprocess.Popen(
                [t.OPTRACE_CLI, "--socket", self.daemon.socket, "run", "--torch", "--level",
                 "off", "--", sys.executable, torch_program("loop_program.py"), stop],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=t.python_env())
            try:
                pid = json.loads(process.stdout.readline())["pid"]
                time.sleep(0.3)  # ops at level off
                with self.client.tail(pid=pid, name="aten::mm") as tail:
                    first = next(item for item in tail if "aten::mm" in str(item))
            finally:
                open(stop, "w").close()
                out, err = process.communicate(timeout=60)
            self.assertEqual(process.returncode, 0, err)
        self.assertIn("aten::mm", str(first))
        session = self.ended_session(pid)
        steps = json.loads(out.strip().splitlines()[-1])["steps"]
        spans = list(self.client.ops(session.id, name="aten::mm"))
        self.assertGreater(len(spans), 0)
        self.assertLess(len(spans), steps)  # the steps at level off were not recorded

    def test_TagCap_100kShapes_EveryOpRecordedOverCapCountedInStatus(self):
        # A sequence length that varies over 100,000 values: 100,000
        # distinct tags against a cap of 4096.
        report, session = self.run_producer(torch_program("shapes_program.py"), 100_000)
        ops, losses = report["ops"], report["losses"]
        self.assertEqual(losses["callback_errors"], 0)

        def counts_by(by, **filters):
            return {row.name: row.count
                    for row in self.client.stats(session.id, by=by, **filters).rows}

        names = t.wait_until(lambda: (lambda c: c if c.get("aten::neg", 0) >= ops else None)(
            counts_by("name")))
        self.assertIsNotNone(names, counts_by("name"))
        self.assertEqual(names["aten::neg"], ops)
        self.assertEqual(names["aten::empty"], ops)
        tags = counts_by("tag", name="aten::neg")
        over_cap = tags.pop("<too many names>", 0)
        self.assertEqual(sum(tags.values()) + over_cap, ops)
        self.assertLessEqual(len(tags), 4096)
        self.assertGreaterEqual(over_cap, ops - 4096)
        self.assertIn("neg_1_f32", tags)
        self.assertTrue(all(re.fullmatch(r"neg_\d+_f32", tag) and count == 1
                            for tag, count in tags.items()), tags)
        self.assertGreaterEqual(losses["tags_over_cap"], over_cap)
        # What the tracer counted is what the session and `optrace status` show.
        capped = losses["tags_over_cap"] + losses["names_over_cap"]
        self.assertEqual(session.drops.names_capped, capped)
        self.assertEqual(session.drops.total, 0)
        # The test's own daemon: this session is its only one.
        self.assertEqual(self.client.status().all_sessions_drops.names_capped, capped)
        status = subprocess.run([t.OPTRACE_CLI, "--socket", self.daemon.socket, "status"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(status.returncode, 0, status.stderr)
        self.assertIn(f"all sessions: none; {capped} names capped\n", status.stdout)


if __name__ == "__main__":
    unittest.main()
