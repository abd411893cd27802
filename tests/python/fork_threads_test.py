"""fork() and threads from Python behave as in C++: a fork child gets a
segment (a session) of its own, and each thread writes its own ring."""

import json
import unittest

import optrace_testing as t


class ForkThreadsTest(t.DaemonTestCase):

    def test_Fork_ChildHasItsOwnSession(self):
        process = t.start_python(t.program("fork_program.py"), 3, 5, 4,
                                 env=t.python_env(OPTRACE_LEVEL="trace"))
        out, err = process.communicate(timeout=120)
        self.assertEqual(process.returncode, 0, err)
        child_report, parent_report = (json.loads(line) for line in out.splitlines())
        self.assertEqual(parent_report["child_status"], 0)
        self.assertEqual(child_report["pid"], parent_report["child_pid"])
        parent = self.ended_session(parent_report["pid"])
        child = self.ended_session(child_report["pid"])
        self.assertNotEqual(parent.id, child.id)
        self.assertEqual(child.state, "exited")

        def names(spans):
            counts = {}
            for s in spans:
                counts[s.name] = counts.get(s.name, 0) + 1
            return counts

        parent_spans = self.stored_spans(parent.id, 2 * (3 + 4))
        child_spans = self.stored_spans(child.id, 2 * (5 + 5))
        self.assertEqual(names(parent_spans), {"parent_before": 3, "parent_before_inner": 3,
                                               "parent_after": 4, "parent_after_inner": 4})
        self.assertEqual(names(child_spans), {"child_op": 5, "child_op_inner": 5,
                                              "child_thread_op": 5, "child_thread_op_inner": 5})
        for spans, pairs in ((parent_spans, parent_report["before"] + parent_report["after"]),
                             (child_spans, child_report["child"])):
            by_id = {s.op_id: s for s in spans}
            self.assertEqual(len(by_id), len(spans), "op ids are unique in each process")
            for outer, inner in pairs:
                self.assertEqual(by_id[inner].parent_op_id, outer)
                self.assertEqual(by_id[outer].parent_op_id, 0)
        self.assertEqual((parent.drops.total, child.drops.total), (0, 0))

    def test_Threads_EachThreadItsOwnRing_AllStored(self):
        report, session = self.run_producer("threads_program.py", 8, 300)
        threads = {int(tid): ids for tid, ids in report["threads"].items()}
        self.assertEqual(len(threads), 8)
        spans = self.stored_spans(session.id, 8 * 300 * 2)
        self.assertEqual(len(spans), 8 * 300 * 2)
        by_id = {s.op_id: s for s in spans}
        for tid, pairs in threads.items():
            for outer, inner in pairs:
                self.assertEqual((by_id[outer].launch_thread, by_id[outer].complete_thread),
                                 (tid, tid))
                self.assertEqual(by_id[inner].launch_thread, tid)
                self.assertEqual(by_id[inner].parent_op_id, outer)
                self.assertEqual(by_id[outer].tag, by_id[inner].tag)
        self.assertEqual(session.drops.total, 0)
        self.assertEqual(session.events, 8 * 300 * 4)


if __name__ == "__main__":
    unittest.main()
