"""Source listings of a Python program (issue 28): the lines around its op
sites as they were when it ran, although the file was rewritten since,
and a listing it registered, read back with Client.get_source."""

import json
import os
import shutil
import unittest

import optrace
import optrace_testing as t


class ListingTest(t.DaemonTestCase):

    def test_FileRewrittenAfterTheRun_ListingAsItRan(self):
        script = os.path.join(self.folder, "model.py")
        shutil.copy(t.program("listing_program.py"), script)
        with open(script) as f:
            original = f.read().split("\n")
        line = t.source_lines(script)["work"]
        process = t.start_python(script, env=t.python_env(OPTRACE_LEVEL="trace"))
        out, err = process.communicate(timeout=120)
        self.assertEqual(process.returncode, 0, err)
        report = json.loads(out)
        session = self.ended_session(report["pid"])
        with open(script, "w") as f:
            f.write("rewritten after the run\n")

        source = t.wait_until(lambda: self._source(session.id, report["work"]))
        self.assertIsNotNone(source, self.daemon.log())
        self.assertEqual(source.file, script)
        self.assertEqual(source.line, line)
        self.assertFalse(source.registered)
        self.assertEqual(source.lines, original[source.first_line - 1:
                                                source.first_line - 1 + len(source.lines)])
        self.assertIn("# site:work", source.lines[line - source.first_line])

        narrow = self.client.get_source(session.id, op_id=report["work"], context=1)
        self.assertEqual((narrow.first_line, len(narrow.lines)), (line - 1, 3))

    def test_RegisteredListing_ReadByLocation(self):
        report, session = self.run_producer("listing_program.py")
        source = t.wait_until(lambda: self._source(
            session.id, location="model.after-fusion.mlir:3"))
        self.assertIsNotNone(source, self.daemon.log())
        self.assertTrue(source.registered)
        self.assertEqual(source.first_line, 1)
        self.assertEqual(source.lines[2], "  %1 = gelu %0")

    def test_NoSuchOp_NotFoundNamesIt(self):
        report, session = self.run_producer("listing_program.py")
        with self.assertRaises(optrace.NotFoundError) as raised:
            self.client.get_source(session.id, op_id=987654321)
        self.assertIn("987654321", str(raised.exception))

    def _source(self, session_id, op_id=None, location=None):
        try:
            return self.client.get_source(session_id, op_id=op_id, location=location)
        except optrace.NotFoundError:
            return None


if __name__ == "__main__":
    unittest.main()
