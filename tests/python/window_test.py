"""The client against a daemon whose rolling window trims a running
session (--keep-last 1s): reading its stored spans, exact statistics or an
export warns TrimmedSessionWarning, statistics from its aggregates cover
the whole session and warn of nothing, and an untrimmed session warns of
nothing either."""

import os
import unittest
import warnings

import optrace
import optrace_testing as t


class WindowTest(t.DaemonTestCase):

    daemon_args = ("--keep-last", "1s")

    def trimmed_session(self):
        """A running producer at trace whose older spans the window has
        trimmed: (its process, its Session)."""
        process, session = self.start_idle(OPTRACE_LEVEL="trace")
        trimmed = t.wait_until(lambda: (lambda s: s if s.spans_trimmed > 0 else None)(
            self.client.session(session.id).session))
        self.assertIsNotNone(trimmed, self.daemon.log())
        return process, trimmed

    def test_StoredSpans_TrimmedSession_Warns(self):
        _, session = self.trimmed_session()
        with self.assertWarnsRegex(optrace.TrimmedSessionWarning,
                                   f"session {session.id} trimmed before .*spans trimmed"):
            spans = list(self.client.ops(session.id))
        self.assertTrue(spans)
        with self.assertWarns(optrace.TrimmedSessionWarning):
            exact = self.client.stats(session.id, exact=True)
        self.assertEqual(exact.source, "spans")
        path = os.path.join(self.folder, "trimmed.csv")
        with self.assertWarns(optrace.TrimmedSessionWarning):
            self.client.export(session.id, "csv", path)

    def test_StatsFromAggregates_TrimmedSession_WholeSessionNoWarning(self):
        process, _ = self.trimmed_session()
        # Ended, the session stops changing: the figures below are final.
        self.stop_idle(process)
        ended = self.ended_session(process.pid)
        with warnings.catch_warnings():
            warnings.simplefilter("error", optrace.TrimmedSessionWarning)
            stats = self.client.stats(ended.id)
        self.assertEqual(stats.source, "aggregates")
        # The window's last pass over an ended session may follow its end.
        settled = t.wait_until(lambda: self.stored_and_session(ended.id))
        self.assertIsNotNone(settled, self.daemon.log())
        stored, session = settled
        self.assertGreater(session.spans_trimmed, 0)
        self.assertLess(stored, session.spans)
        self.assertEqual(sum(row.count for row in stats.rows), session.spans,
                         "the aggregates count the trimmed spans too")

    def stored_and_session(self, session_id):
        """(spans stored, Session) once every span of the session is stored
        or counted as trimmed; None before."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optrace.TrimmedSessionWarning)
            stored = sum(1 for _ in self.client.ops(session_id))
        session = self.client.session(session_id).session
        return (stored, session) if stored + session.spans_trimmed == session.spans else None

    def test_StoredSpans_UntrimmedSession_NoWarning(self):
        # Its ops take well under the window; an ended session is not trimmed.
        report, session = self.run_producer("ops_program.py", 1, 5, 12)
        self.stored_spans(session.id, len(report["ops"]))
        self.assertEqual(self.client.session(session.id).session.spans_trimmed, 0)
        with warnings.catch_warnings():
            warnings.simplefilter("error", optrace.TrimmedSessionWarning)
            list(self.client.ops(session.id))
            self.client.stats(session.id, exact=True)


if __name__ == "__main__":
    unittest.main()
