"""The client against a daemon whose rolling window trims a running
session (--keep-last 1s): reading its stored spans, exact statistics or an
export warns TrimmedSessionWarning, statistics from its aggregates cover
the whole session and warn of nothing, and an untrimmed session warns of
nothing either. set_window gives a running session its own window and
takes it back."""

import datetime
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

    def test_SetWindow_OwnThenDaemons_EndedRefused(self):
        process, session = self.start_idle(OPTRACE_LEVEL="trace")
        daemons = self.client.session(session.id).session.window
        self.assertFalse(daemons.own)
        self.assertEqual(daemons.keep_last_ns, 1_000_000_000)
        own = self.client.set_window(session.id, keep_last=datetime.timedelta(hours=1))
        self.assertTrue(own.own)
        self.assertEqual(own.keep_last_ns, 3600 * 10**9)
        self.assertEqual(own.keep_last_bytes, daemons.keep_last_bytes, "a bound not given stays")
        self.assertEqual(self.client.session(session.id).session.window.keep_last_ns,
                         3600 * 10**9)
        everything = self.client.set_window(session.id, keep_last=0, keep_last_bytes=0)
        self.assertEqual((everything.keep_last_ns, everything.keep_last_bytes), (0, 0))
        back = self.client.set_window(session.id, default=True)
        self.assertFalse(back.own)
        self.assertEqual(back.keep_last_ns, 1_000_000_000)
        with self.assertRaises(ValueError):
            self.client.set_window(session.id, keep_last=5, default=True)
        with self.assertRaises(ValueError):
            self.client.set_window(session.id, keep_last_bytes=-1)
        self.stop_idle(process)
        ended = self.ended_session(process.pid)
        with self.assertRaisesRegex(optrace.FailedPreconditionError,
                                    f"session {ended.id} has exited"):
            self.client.set_window(ended.id, keep_last=10**9)


if __name__ == "__main__":
    unittest.main()
