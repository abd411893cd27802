"""The warning that what was read of a session covers only its stored
spans: the daemon's rolling window (or retention's caps) trimmed the older
ones, so spans, exact statistics or an export of it are never taken for
the whole session. Statistics from the session's aggregates cover the
whole session and warn of nothing."""

import datetime
import warnings


class TrimmedSessionWarning(UserWarning):
    """A session's spans older than its `trimmed_before_unix_ns` are not
    stored any more (`spans_trimmed` of them) but for those of its
    `keeps_before_trim` kept ranges; what was read starts there."""


def warn_if_trimmed(session, stacklevel):
    """Warns TrimmedSessionWarning when anything of `session` (a Session)
    was trimmed; `stacklevel` as warnings.warn takes it, counted from the
    caller of this function."""
    if not (session.spans_trimmed or session.instants_trimmed or session.trimmed_before_unix_ns):
        return
    before = datetime.datetime.fromtimestamp(session.trimmed_before_unix_ns / 1e9)
    kept = session.keeps_before_trim
    but_kept = (f" but for {kept} kept range{'' if kept == 1 else 's'} (Client.keeps)"
                if kept else "")
    warnings.warn(
        f"session {session.id} trimmed before {before.isoformat(sep=' ', timespec='milliseconds')}"
        f": spans older than that are not stored{but_kept} ({session.spans_trimmed} spans trimmed)",
        TrimmedSessionWarning, stacklevel=stacklevel + 1)
