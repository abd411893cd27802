"""Ops recorded from Python are stored exactly: counts, names, tags,
placement, parents, source lines, threads, an op that ends on another
thread, an op whose block raised; the level switch, steps and keeps from
Python."""

import json
import unittest

import optrace_testing as t


class ProducerTest(t.DaemonTestCase):

    def test_Ops_FromPython_StoredExactly(self):
        report, session = self.run_producer("ops_program.py", 3, 40, 25)
        expected = {op["id"]: op for op in report["ops"]}
        self.assertEqual(len(expected), len(report["ops"]), "op ids are unique")
        self.assertNotIn(0, expected, "every op was traced")
        spans = self.stored_spans(session.id, len(expected))
        self.assertEqual(len(spans), len(expected))
        lines = t.source_lines(t.program("ops_program.py"))
        for span in spans:
            op = expected[span.op_id]
            with self.subTest(op=op):
                self.assertEqual(span.status, "ok")
                self.assertEqual(span.name, op["name"])
                self.assertEqual(span.tag, op["tag"])
                self.assertEqual(span.parent_op_id, op["parent"])
                self.assertEqual(span.source_location,
                                 f"{t.program('ops_program.py')}:{lines[op['site']]}")
                self.assertEqual((span.device.target, span.device.ordinal, span.device.stream),
                                 (op["target"], op["device"], op["stream"]))
                self.assertEqual(span.launch_thread, op["launch_thread"])
                self.assertEqual(span.complete_thread, op["complete_thread"])
                self.assertEqual(span.device_duration_ns, op["device_ns"])
        self.assertEqual(session.instants, report["instants"])
        self.assertEqual(session.drops.total, 0)
        self.assertEqual(session.open_ops, 0)

    def test_AsyncOp_EndedOnAnotherThread_OneSpanAcrossThreads(self):
        report, session = self.run_producer("ops_program.py", 0, 0, 0)
        spans = self.stored_spans(session.id, len(report["ops"]))
        copy = [s for s in spans if s.name == "async_copy"]
        self.assertEqual(len(copy), 1)
        self.assertNotEqual(copy[0].launch_thread, copy[0].complete_thread)
        self.assertEqual(copy[0].device_duration_ns, 4242)

    def test_LevelOff_NothingRecordedUntilSetLevelTrace(self):
        report, session = self.run_producer("level_program.py", 7, 5, OPTRACE_LEVEL="off")
        self.assertEqual(report["before"], {"level": "off", "enabled": False, "ids": [0] * 7})
        self.assertEqual(report["after"]["level"], "trace")
        self.assertTrue(report["after"]["enabled"])
        spans = self.stored_spans(session.id, 5)
        self.assertEqual(sorted(s.op_id for s in spans), sorted(report["after"]["ids"]))
        self.assertEqual({s.name for s in spans}, {"after_set_level"})
        self.assertEqual(session.instants, report["instants"])

    def test_Steps_WithBlockAndBareBoundary_EveryStepStoredWithItsOpsUnderIt(self):
        report, session = self.run_producer("steps_program.py", 8)
        steps = {s["id"]: s for s in report["steps"]}
        self.assertEqual(len(steps), 16, "step ids are unique")
        self.assertNotIn(0, steps, "every step was traced")
        expected = {op["id"]: op for op in report["ops"]}
        spans = self.stored_spans(session.id, len(steps) + len(expected))
        self.assertEqual(len(spans), len(steps) + len(expected))
        lines = t.source_lines(t.program("steps_program.py"))
        stored_steps = [s for s in spans if s.name == "optrace.step"]
        self.assertEqual(sorted(s.op_id for s in stored_steps), sorted(steps))
        previous_end = 0
        for span in sorted(stored_steps, key=lambda s: s.start_unix_ns):
            step = steps[span.op_id]
            with self.subTest(step=step):
                self.assertEqual(span.status, "ok")
                self.assertEqual(span.device.target, "cpu")
                self.assertEqual(span.tag, "")
                self.assertEqual(span.parent_op_id, 0)
                self.assertEqual(span.source_location,
                                 f"{t.program('steps_program.py')}:{lines[step['site']]}")
                self.assertGreaterEqual(span.start_unix_ns, previous_end, "steps overlap")
                previous_end = span.start_unix_ns + span.duration_ns
        for span in spans:
            if span.name == "optrace.step":
                continue
            op = expected[span.op_id]
            with self.subTest(op=op):
                self.assertEqual(span.status, "ok")
                self.assertEqual(span.name, op["name"])
                self.assertEqual(span.parent_op_id, op["parent"])
        self.assertEqual(session.open_ops, 0)
        self.assertEqual(session.drops.total, 0)
        # The daemon finds them as the session's explicit steps.
        found = self.client.steps(session.id)
        self.assertEqual((found.source, found.steps_total), ("explicit", 16))

    def test_Keep_FromPython_KeepAroundTheCallListed(self):
        report, session = self.run_producer("keep_program.py", 20)
        self.assertEqual(set(report["errors"]), {"int", "two", "kw"})
        for call, error in report["errors"].items():
            with self.subTest(call=call):
                self.assertTrue(error.startswith("TypeError"), error)
        spans = self.stored_spans(session.id, 40)
        self.assertEqual(len(spans), 40)
        keeps = t.wait_until(lambda: self.client.keeps(session.id) or None)
        self.assertIsNotNone(keeps, self.daemon.log())
        # keep("oom") and keep() a moment apart: their windows (30 s before,
        # 10 s after) merge into one, which covers every op.
        self.assertEqual([k.reason for k in keeps], ["runtime: oom; runtime: keep"])
        self.assertLessEqual(keeps[0].first_unix_ns, min(s.start_unix_ns for s in spans))
        self.assertGreaterEqual(keeps[0].last_unix_ns, max(s.start_unix_ns for s in spans))
        self.assertEqual(self.client.status().counters["keeps_recorded"], 2)

    def test_Malicious_BadArguments_RaiseWithoutRecording(self):
        report, session = self.run_producer("bad_arguments_program.py")
        for call, error in report["errors"].items():
            with self.subTest(call=call):
                self.assertIn(error.split(":")[0], ("TypeError", "ValueError", "RuntimeError"))
        self.assertEqual(report["unraised"], [])
        spans = self.stored_spans(session.id, report["spans"])
        self.assertEqual(len(spans), report["spans"], json.dumps(report))

    def test_Malicious_RandomHostileArguments_OnlyCleanErrors(self):
        # 20,000 calls drawn from a fixed seed: the same every run.
        report, session = self.run_producer("argument_fuzz_program.py", 29, 20000)
        self.assertEqual(report["calls"], 20000)
        self.assertEqual(report["unexpected"], [])
        self.assertEqual(session.drops.invalid, 0, "every event it wrote follows the ABI")


class FusedTagTest(unittest.TestCase):
    """optrace.fused_tag() builds a fused op's tag by liboptrace's rules."""

    def test_FusedTag_PartsInOrder_JoinedByPlus(self):
        import optrace
        self.assertEqual(optrace.fused_tag("matmul_16x1024x256_f32", "elementwise_gelu_16384_f32"),
                         "matmul_16x1024x256_f32+elementwise_gelu_16384_f32")
        self.assertEqual(optrace.fused_tag("a", "b", "c"), "a+b+c")

    def test_Malicious_FusedTag_BadParts_ValueErrorNamingThePart(self):
        import optrace
        cases = {("only",): "at least two parts, got 1",
                 (): "at least two parts, got 0",
                 ("a", ""): "part 1 ('')",
                 ("a+b", "c"): "part 0 ('a+b')",
                 ("x" * 3000, "y" * 3000): "longer than 4096 bytes",
                 ("a\0b", "c"): "part 0 contains a NUL"}
        for parts, message in cases.items():
            with self.subTest(parts=parts[:2]):
                with self.assertRaises(ValueError) as raised:
                    optrace.fused_tag(*parts)
                self.assertIn(message, str(raised.exception))
        with self.assertRaises(TypeError):
            optrace.fused_tag("a", 7)


if __name__ == "__main__":
    unittest.main()
