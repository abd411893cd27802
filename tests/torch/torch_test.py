"""liboptrace_torch against a real optraced, with real /usr/bin/python3 and
Debian's torch: unmodified programs under `optrace run --torch`, counts per
name against torch.autograd.profiler's, tags and source lines, user scopes
(record_function, the optimizer's, ProfilerStep#N as a counter), level
off, the level raised live by a tail, and the tag cap."""

import collections
import json
import os
import re
import shutil
import sqlite3
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

    def all_spans_of(self, pid):
        """The ended session of process `pid` and its spans, once as many
        are stored as the session counts (or what is stored after 20 s)."""
        session = self.ended_session(pid)
        spans = t.wait_until(lambda: (lambda s: s if len(s) == session.spans else None)(
            list(self.client.ops(session.id))))
        return session, spans if spans is not None else list(self.client.ops(session.id))

    def run_user_scopes(self, mode, count):
        """user_scopes_program.py MODE COUNT under `optrace run --torch`,
        with nothing lost; returns (its report, its session, its spans by
        op id, the count of its spans per name)."""
        report = self.run_torch(torch_program("user_scopes_program.py"), mode, count)
        self.assertEqual(report["losses"], dict.fromkeys(report["losses"], 0))
        session, spans = self.all_spans_of(report["pid"])
        return (report, session, {s.op_id: s for s in spans},
                collections.Counter(s.name for s in spans))

    def counters_of(self, session, name, count):
        """(value, parent_op_id) of the session's counter samples named
        `name`, in time order, read from its SQLite export once `count` of
        them are there (or what is there after 20 s)."""
        path = os.path.join(self.folder, f"session{session.id}.db")

        def read():
            self.client.export(session.id, "sqlite", path)
            with sqlite3.connect(path) as db:
                rows = db.execute("SELECT value, parent_op_id FROM instants WHERE kind = "
                                  "'counter' AND name = ? ORDER BY ts_unix_ns", (name,)).fetchall()
            os.remove(path)
            return rows if len(rows) >= count else None

        return t.wait_until(read) or []

    def test_Run_UnmodifiedTraining_OpsTagsLinesParentsAndThreads(self):
        report = self.run_torch(torch_program("train_program.py"), 2)
        session, spans = self.all_spans_of(report["pid"])
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

    def test_Listing_ForwardLineAsItRanAfterTheFileChanged(self):
        with tempfile.TemporaryDirectory() as folder:
            copy = os.path.join(folder, "train_program.py")
            shutil.copy(torch_program("train_program.py"), copy)
            report = self.run_torch(copy, 1)
            session, spans = self.all_spans_of(report["pid"])
            with open(copy, "w") as f:
                f.write("# rewritten after the run\n")
            addmm = next(s for s in spans if s.name == "aten::addmm")
            source = self.client.get_source(session.id, op_id=addmm.op_id, context=1)
        self.assertTrue(source.file.endswith("train_program.py"), source.file)
        self.assertFalse(source.registered)
        self.assertIn("# site:forward", source.lines[source.line - source.first_line])
        self.assertEqual(len(source.lines), 3)

    def test_Counts_SameAsProfilerPerName(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "profile.json")
            report = self.run_torch(torch_program("train_program.py"), 3, "--profile", path)
            with open(path) as f:
                profiled = json.load(f)
        _, spans = self.all_spans_of(report["pid"])
        stored = collections.Counter(s.name for s in spans)
        # Every op and user scope (Optimizer.step#SGD.step) the profiler
        # counts, optrace stored as often.
        self.assertIn("Optimizer.step#SGD.step", profiled)
        self.assertGreater(len(profiled), 10)
        self.maxDiff = None
        self.assertEqual({name: stored[name] for name in profiled}, profiled)

    def test_RecordFunction_RangesNamedAndParentsOfTheirOps(self):
        _, _, by_id, names = self.run_user_scopes("block", 20)
        self.assertEqual((names["outer"], names["my_block"], names["aten::mm"]), (20, 20, 20))
        # Each its own Python line: the ops inside a range do not inherit it.
        lines = t.source_lines(torch_program("user_scopes_program.py"))
        line_of = {"outer": lines["outer"], "my_block": lines["my_block"],
                   "aten::mm": lines["block_ops"], "aten::relu": lines["block_ops"]}
        parent_of = {"outer": None, "my_block": "outer", "aten::mm": "my_block",
                     "aten::relu": "my_block"}
        for s in by_id.values():
            if s.name not in line_of:
                continue
            self.assertTrue(s.source_location.endswith(f"user_scopes_program.py:{line_of[s.name]}"),
                            (s.name, s.source_location))
            self.assertEqual(by_id[s.parent_op_id].name if s.parent_op_id else None,
                             parent_of[s.name])
            if s.name in ("outer", "my_block"):
                self.assertEqual(s.tag, "")

    def test_SgdLoop_OptimizerScopesOncePerIterationAroundTheirOps(self):
        _, _, by_id, names = self.run_user_scopes("train", 7)
        self.assertEqual(names["Optimizer.step#SGD.step"], 7)
        self.assertEqual(names["Optimizer.zero_grad#SGD.zero_grad"], 7)
        # SGD's parameter update runs inside its step's range.
        parents = [by_id[s.parent_op_id].name for s in by_id.values()
                   if s.name == "aten::add_" and s.parent_op_id in by_id]
        updates = [name for name in parents if name == "Optimizer.step#SGD.step"]
        self.assertGreaterEqual(len(updates), 7 * 2)  # weight and bias, every step

    def test_ProfilerSteps_3000_OneNameAndTheNumbersAsCounters(self):
        # Nothing lost: names_over_cap is 0 (run_user_scopes).
        report, session, by_id, names = self.run_user_scopes("profiler", 3000)
        numbers = [int(name.split("#")[1]) for name in report["steps"]]
        self.assertEqual(len(numbers), 3001)  # the one start() opens, then one per step()
        self.assertEqual(session.drops.names_capped, 0)
        steps = sorted((s for s in by_id.values() if s.name.startswith("ProfilerStep")),
                       key=lambda s: s.op_id)
        self.assertEqual({s.name for s in steps}, {"ProfilerStep#"})
        self.assertEqual(len(steps), len(numbers))
        stats = self.client.stats(session.id, by="name").rows
        self.assertEqual([row.count for row in stats if row.name.startswith("ProfilerStep")],
                         [len(numbers)])
        # One sample per range, right after its start: its parent is the range.
        counters = self.counters_of(session, "ProfilerStep#", len(numbers))
        self.maxDiff = None
        self.assertEqual([value for value, _ in counters], numbers)
        self.assertEqual([parent for _, parent in counters], [s.op_id for s in steps])
        muls = [s for s in by_id.values() if s.name == "aten::mul"]
        self.assertEqual(len(muls), 3000)
        self.assertTrue(all(by_id[s.parent_op_id].name == "ProfilerStep#" for s in muls))

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

    def test_Tree_NestingOfTheParentLinksWithTheSameTimeInOps(self):
        report = self.run_torch(torch_program("train_program.py"), 3)
        session, _ = self.spans_of(report["pid"])
        spans = t.wait_until(lambda: (lambda s: s if len(s) == session.spans else None)(
            list(self.client.ops(session.id)))) or []
        by_id = {s.op_id: s for s in spans}
        tree = self.client.tree(session.id)
        self.assertEqual(tree.spans, len(spans))
        self.assertEqual(tree.nodes_left_out, 0)
        # Each node's count is its spans'; the roots' totals are the time
        # in ops counted once, which the nodes' self times add up to.
        self.assertEqual(sum(n.count for n in tree.nodes), len(spans))
        self.assertEqual(tree.total_ns, self.client.stats(session.id).self_ns)
        self.assertEqual(sum(n.self_ns for n in tree.nodes), tree.total_ns)
        # aten::addmm only ever runs under aten::linear (the parent links).
        parents = {by_id[s.parent_op_id].name for s in spans if s.name == "aten::addmm"}
        self.assertEqual(parents, {"aten::linear"})
        addmm = [(i, n) for i, n in enumerate(tree.nodes) if n.name == "aten::addmm"]
        self.assertTrue(addmm)
        for i, node in addmm:
            above = next(n for n in reversed(tree.nodes[:i]) if n.depth == node.depth - 1)
            self.assertEqual(above.name, "aten::linear")
        shallow = self.client.tree(session.id, depth=1)
        self.assertTrue(all(n.depth == 0 for n in shallow.nodes))
        self.assertGreater(shallow.nodes_left_out, 0)

    def steps_of_run(self, *args):
        """steps_program.py ARGS under `optrace run --torch`, nothing lost;
        returns its session once every span is stored."""
        report = self.run_torch(torch_program("steps_program.py"), *args)
        self.assertEqual(report["losses"], dict.fromkeys(report["losses"], 0))
        session, spans = self.all_spans_of(report["pid"])
        self.assertEqual(len(spans), session.spans)
        return session

    def optrace_json(self, *args):
        """`optrace ARGS --json`, parsed."""
        run = subprocess.run([t.OPTRACE_CLI, "--socket", self.daemon.socket, *map(str, args),
                              "--json"], capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        return json.loads(run.stdout)

    # Steady steps take about 17 ms; on a loaded machine one can take twice
    # that, so these tests judge slow at 3x the median (the 400x400 SVD
    # makes its step about 7x).
    def test_Steps_SlowStepInAnUnmodifiedLoop_FlaggedAndWhyNamesItsOp(self):
        session = self.steps_of_run(12, 8)
        steps = self.client.steps(session.id, slow_factor=3)
        self.assertEqual(steps.source, "optimizer")
        self.assertEqual([s.number for s in steps.steps], list(range(1, 13)))
        self.assertEqual([s.number for s in steps.steps if s.slow], [8])
        self.assertEqual([s.number for s in steps.steps if s.warmup], [1, 2, 3])
        self.assertIn("svd", steps.steps[7].top_op)
        # Each step holds its SGD step and the ops of the loop's body.
        self.assertTrue(all(s.ops > 10 for s in steps.steps), [s.ops for s in steps.steps])
        why = self.client.why(session.id, 8, slow_factor=3)
        self.assertTrue(why.slow)
        self.assertGreater(why.extra_ns, 0)
        self.assertIn("svd", why.ops[0].name)
        self.assertTrue(why.ops[0].only_in_step)
        self.assertEqual(len(why.baseline_steps), 8)  # steps 4 to 12 but 8
        self.assertNotIn(8, why.baseline_steps)
        # The CLI says the same.
        listed = self.optrace_json("steps", session.id, "--slow-factor", 3)
        self.assertEqual([s["step"] for s in listed["steps"] if s["slow"]], [8])
        self.assertEqual(listed["source"], "optimizer")
        explained = self.optrace_json("why", session.id, 8, "--slow-factor", 3)
        self.assertEqual(explained["ops"][0]["name"], why.ops[0].name)
        self.assertGreaterEqual(explained["ops"][-1]["cumulative_share"], 0.8)

    def test_Steps_SteadyLoop_NoneSlow(self):
        session = self.steps_of_run(12)
        steps = self.client.steps(session.id, slow_factor=3)
        self.assertEqual(steps.steps_total, 12)
        self.assertEqual(steps.slow_steps, 0, [s.duration_ns for s in steps.steps])
        self.assertGreater(steps.p50_ns, 0)
        self.assertLessEqual(steps.p50_ns, steps.p99_ns)

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

        # Until every span is stored, each stats call is a pass over the
        # stored spans (new groups have no sketch yet): poll the session,
        # which costs nothing, not the stats, which would compete with the
        # writer for the machine's two cores.
        stored = t.wait_until(lambda: (lambda n: n if n >= 2 * ops else None)(
            self.client.session(session.id).session.spans), timeout=90, interval=0.2)
        self.assertIsNotNone(stored, self.client.session(session.id).session)
        # The program's few other ops may have come first: the last neg and
        # empty spans within a few polls.
        names = t.wait_until(lambda: (lambda c: c if c.get("aten::neg", 0) >= ops else None)(
            counts_by("name")), timeout=30, interval=0.2)
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
