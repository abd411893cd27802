"""optrace.Client: optraced's gRPC API (proto/optrace/v1/optrace.proto)
from Python, with plain dataclasses (optrace.messages) for results."""

import datetime
import ipaddress
import os

import grpc

from optrace.credentials import BearerToken, read_token_file
from optrace.errors import error_for
from optrace.messages import Rows, to_python
from optrace.paths import default_socket, fallback_socket_folder, socket_folder_problem
from optrace.tail import Tail
from optrace.trimmed import warn_if_trimmed
from optrace.v1 import optrace_pb2 as pb
from optrace.v1 import optrace_pb2_grpc as pb_grpc
from optrace.words import value_of

# Spans asked of the daemon per QueryOps call unless page_size says otherwise.
DEFAULT_PAGE_SIZE = 1000

_ENUMS = pb.DESCRIPTOR.enum_types_by_name


def _is_loopback(host):
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _nanoseconds(value, what):
    """A duration given as int nanoseconds or a datetime.timedelta."""
    if isinstance(value, datetime.timedelta):
        return int(value / datetime.timedelta(microseconds=1)) * 1000
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise ValueError(f"{what} must be nanoseconds (an int >= 0) or a datetime.timedelta, "
                     f"not {value!r}")


def _byte_count(value, what):
    """A size in bytes: an int >= 0."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise ValueError(f"{what} must be a number of bytes (an int >= 0), not {value!r}")


def _level(word):
    return value_of(_ENUMS["Level"], word, "level")


def _target(word):
    return value_of(_ENUMS["Target"], word, "target")


def _set_where(request, target, device, min_duration):
    """Sets the target, device and min_duration_ns fields, which OpFilter
    and TailRequest share, of `request` from the keywords of that name."""
    if target is not None:
        request.target = _target(target)
    if device is not None:
        request.has_device, request.device = True, device
    if min_duration is not None:
        request.min_duration_ns = _nanoseconds(min_duration, "min_duration")


def _op_filter(name=None, tag=None, target=None, device=None, min_duration=None, status=None):
    """The OpFilter of the filter keywords that ops() and stats() share."""
    f = pb.OpFilter(name_pattern=name or "", tag_pattern=tag or "")
    _set_where(f, target, device, min_duration)
    if status is not None:
        f.status = value_of(_ENUMS["SpanStatus"], status, "status")
    return f


def _step_rules(slow_factor, window, warmup):
    """The StepRules of steps() and why()'s keywords (0 and None: defaults)."""
    rules = pb.StepRules(slow_factor=slow_factor, window=window)
    if warmup is not None:
        if warmup < 0:
            raise ValueError(f"warmup {warmup}: a count of steps, 0 or more")
        rules.warmup = warmup
        rules.warmup_none = warmup == 0
    return rules


class Client:
    """A connection to optraced.

    `socket`: the daemon's Unix socket; None = OPTRACE_SOCKET or the
    default path (optrace.paths.default_socket, the CLI's rule).
    `server`: "HOST:PORT" of a daemon started with --listen, instead of the
    socket: plaintext to a loopback host, TLS with `tls_ca` (a PEM file of
    the CA that signed the daemon's certificate) to any other. Over TCP the
    daemon serves only callers it can identify: `token_file` (default: the
    OPTRACE_TOKEN_FILE environment variable) names the file of your bearer
    token, sent with every call; `tls_cert` and `tls_key` (PEM files, with
    `tls_ca`) a TLS client certificate and its key. A token file that other
    users may read raises PermissionError naming it.
    `timeout`: seconds each call (each page of ops) may take.
    Nothing connects until the first call. Methods raise optrace.Error
    subclasses (InvalidArgumentError, NotFoundError, ...) with the daemon's
    message, and ValueError / TypeError for arguments they can tell are
    wrong. The constructor raises PermissionError for the fallback socket
    folder (/tmp/optrace-$UID) when another user owns it or others can
    write to it. A Client may be shared by threads; close() (or `with`) frees it.
    """

    def __init__(self, socket=None, server=None, tls_ca=None, timeout=15.0, *, token_file=None,
                 tls_cert=None, tls_key=None):
        options = [("grpc.max_receive_message_length", 64 << 20)]
        token = None
        if server is None:
            if tls_ca is not None:
                raise ValueError("tls_ca needs server='HOST:PORT': the Unix socket is not "
                                 "encrypted")
            if token_file is not None or tls_cert is not None:
                raise ValueError(f"{'token_file' if token_file is not None else 'tls_cert'} "
                                 "needs server='HOST:PORT': on the Unix socket the daemon knows "
                                 "you by your uid")
            self.address = os.fspath(socket) if socket is not None else default_socket()
            folder = os.path.dirname(self.address)
            if folder == fallback_socket_folder():
                problem = socket_folder_problem(folder, os.getuid())
                if problem:
                    raise PermissionError(problem)
            self._channel = grpc.insecure_channel("unix:" + self.address, options=options)
        else:
            host, sep, port = server.rpartition(":")
            if not sep or not host or not port.isdigit():
                raise ValueError(f"server {server!r} is not 'HOST:PORT' (e.g. 'localhost:7070')")
            self.address = server
            if (tls_cert is None) != (tls_key is None):
                raise ValueError("tls_cert and tls_key go together: a client certificate and "
                                 "its key")
            if tls_cert is not None and tls_ca is None:
                raise ValueError("tls_cert needs tls_ca: a client certificate is part of TLS, "
                                 "which needs the CA of the daemon's certificate")
            if token_file is None and os.environ.get("OPTRACE_TOKEN_FILE"):
                token = read_token_file(os.environ["OPTRACE_TOKEN_FILE"], "OPTRACE_TOKEN_FILE")
            elif token_file is not None:
                token = read_token_file(os.fspath(token_file), "token_file")
            if tls_ca is not None:
                with open(tls_ca, "rb") as f:
                    root = f.read()
                chain = key = None
                if tls_cert is not None:
                    with open(tls_cert, "rb") as f:
                        chain = f.read()
                    with open(tls_key, "rb") as f:
                        key = f.read()
                credentials = grpc.ssl_channel_credentials(root_certificates=root,
                                                           private_key=key,
                                                           certificate_chain=chain)
                self._channel = grpc.secure_channel(server, credentials, options=options)
            elif _is_loopback(host):
                self._channel = grpc.insecure_channel(server, options=options)
            else:
                raise ValueError(f"server {server!r} is not a loopback address: give tls_ca to "
                                 "talk to it over TLS (plaintext is only for localhost)")
        channel = self._channel
        if token is not None:
            channel = grpc.intercept_channel(channel, BearerToken(token))
        self._stub = pb_grpc.OpTraceStub(channel)
        self._timeout = timeout

    # ---- plumbing ---------------------------------------------------------

    def close(self):
        """Closes the channel; open tails end."""
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def __repr__(self):
        return f"optrace.Client({self.address!r})"

    def _error(self, rpc_error):
        code = rpc_error.code()
        message = rpc_error.details() or ""
        if code == grpc.StatusCode.UNAVAILABLE and "failed to connect" in message:
            message = (f"no daemon at {self.address}; start one with `optraced` or "
                       f"`systemctl start optraced` ({message})")
        return error_for(code.name, message, self.address)

    def _unary(self, method, request):
        try:
            return method(request, timeout=self._timeout)
        except grpc.RpcError as e:
            raise self._error(e) from None

    # ---- sessions ---------------------------------------------------------

    def sessions(self, all=False, limit=0):
        """Sessions (one per traced process), newest first: running ones, or
        every stored one with all=True. Rows of Session."""
        response = self._unary(self._stub.ListSessions,
                               pb.ListSessionsRequest(all=all, limit=limit))
        return to_python(response).sessions

    def session(self, id):
        """One session and the ops it has open (running) or left open
        (ended): GetSessionResponse with .session and .open_ops."""
        return to_python(self._unary(self._stub.GetSession, pb.GetSessionRequest(session_id=id)))

    # ---- spans ------------------------------------------------------------

    def ops(self, session_id, name=None, tag=None, target=None, device=None, min_duration=None,
            limit=None, *, status=None, page_size=DEFAULT_PAGE_SIZE):
        """The spans of a session in start order, as an iterator of Span that
        fetches page after page (`page_size` spans per call) until the
        session has no more or `limit` spans were returned.
        Filters: `name`, `tag` (RE2 patterns matched anywhere), `target`
        ("cpu", "gpu", "other"), `device` (ordinal), `min_duration` (ns or
        timedelta), `status` ("ok", "incomplete", ...)."""
        request = pb.QueryOpsRequest(
            session_id=session_id,
            filter=_op_filter(name, tag, target, device, min_duration, status))
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0 or None, not {limit}")
        return self._session_spans(session_id, request, limit, page_size)

    def _session_spans(self, session_id, request, limit, page_size):
        # Runs at the first next(): what follows is only what is stored.
        warn_if_trimmed(self.session(session_id).session, stacklevel=3)
        yield from self._spans(request, limit, page_size)

    def _spans(self, request, limit, page_size):
        returned = 0
        while limit is None or returned < limit:
            request.limit = page_size if limit is None else min(page_size, limit - returned)
            cursor = ""
            try:
                for chunk in self._stub.QueryOps(request, timeout=self._timeout):
                    for span in chunk.spans:
                        if limit is not None and returned >= limit:
                            break
                        returned += 1
                        yield to_python(span)
                    cursor = chunk.next_cursor
            except grpc.RpcError as e:
                raise self._error(e) from None
            if not cursor:
                return
            request.cursor = cursor

    def stats(self, session_id, by="name", top=0, *, name=None, tag=None, target=None,
              device=None, min_duration=None, status=None, exact=False, sort="total",
              threads=False):
        """Duration statistics of a session's spans grouped `by` "name", "tag"
        or "target" (target:ordinal): GetStatsResponse with .rows (OpStats:
        name = the group key, count, ok_count, total_ns, self_ns, mean_ns,
        min_ns, p50_ns, p95_ns, p99_ns, max_ns, share, self_share),
        .total_ns, .self_ns and .spans. Self time is a span's duration less
        its children's on the same thread, so that nested ops count once.
        Rows by total time, or by self time with sort="self"; `top` > 0
        keeps that many groups. The filters are ops()'s.
        Without `status` or `min_duration` (and `exact`), the figures come
        from the session's aggregates and cover the whole session
        (.source == "aggregates", percentiles within
        .percentile_relative_error); otherwise, or with `exact=True`, from
        its stored spans (.source == "spans", exact percentiles), with a
        TrimmedSessionWarning when older spans were trimmed.
        With threads=True, also .threads (ThreadBusy: tid, ops, busy_ns,
        first_start_unix_ns, last_end_unix_ns, wall_ns, busy_share; the
        busiest first) and .threads_left_out, from the stored spans: each
        thread's self time in ops over its wall time, its first op's start
        to its last op's end."""
        request = pb.GetStatsRequest(
            session_id=session_id, by=value_of(_ENUMS["GroupBy"], by, "by"), top=top,
            filter=_op_filter(name, tag, target, device, min_duration, status), exact=exact,
            sort=value_of(_ENUMS["StatsSort"], sort, "sort"), threads=threads)
        stats = to_python(self._unary(self._stub.GetStats, request))
        if stats.source == "spans" or threads:
            warn_if_trimmed(self.session(session_id).session, stacklevel=2)
        return stats

    def tree(self, session_id, *, step=None, by_tag=False, depth=0, min_share=0.0, name=None,
             tag=None, target=None, device=None, min_duration=None):
        """The session's stored ops as a call tree merged by name (and tag
        with by_tag): GetTreeResponse with .nodes (TreeNode: depth, name,
        tag, count, total_ns, self_ns, share, self_share; depth first, the
        largest total first among siblings), .total_ns (the time in ops,
        nested ops counted once), .spans and .nodes_left_out. `depth` > 0
        keeps that many levels; nodes below `min_share` (a fraction) of
        .total_ns are left out. The filters are ops()'s; an op whose parent
        they leave out is a root. With `step` (a number as steps() lists
        it), only the spans that began in that step: its ops and its own
        span (NotFoundError when the session has no such step).
        TrimmedSessionWarning when older spans were trimmed."""
        request = pb.GetTreeRequest(
            session_id=session_id, step=step or 0, has_step=step is not None, by_tag=by_tag,
            max_depth=depth, min_share=min_share,
            filter=_op_filter(name, tag, target, device, min_duration, None))
        tree = to_python(self._unary(self._stub.GetTree, request))
        warn_if_trimmed(self.session(session_id).session, stacklevel=2)
        return tree

    def timeline(self, session_id, *, start_ns=0, end_ns=0, width=1000):
        """The session's spans laid out for a timeline `width` pixels wide
        (1 to 8192) over [start_ns, end_ns) in Unix ns (both 0: the whole
        session): GetTimelineResponse with .lanes (TimelineLane: .device,
        .thread, .max_depth, .spans of TimelineSpan at least a pixel wide:
        op_id, parent_op_id, name, tag, source_location (indexes into
        .strings), start_unix_ns, duration_ns, self_ns, depth,
        device_duration_ns; .buckets of TimelineBucket summing the narrower
        ones per pixel: pixel, depth, count, busy_ns, name), .strings,
        .start_unix_ns/.end_unix_ns (the range shown),
        .session_start_unix_ns/.session_end_unix_ns, .spans (in the range),
        .min_listed_ns, .spans_left_out and .strings_left_out (the answer's
        bounds, docs/api.md)."""
        request = pb.GetTimelineRequest(session_id=session_id, start_unix_ns=start_ns,
                                        end_unix_ns=end_ns, width=width)
        return to_python(self._unary(self._stub.GetTimeline, request))

    def steps(self, session_id, *, slow_factor=0.0, window=0, warmup=None, limit=0):
        """The session's steps (iterations of a training or serving loop):
        GetStepsResponse with .steps (Step: number, start_unix_ns,
        duration_ns, ops, top_op, top_op_tag, top_op_self_ns, slow, warmup,
        baseline_ns, trimmed: its spans were trimmed by the rolling window,
        listed from the daemon's step record with ops 0 and top_op ""; by
        start, the last `limit`), .steps_total, .slow_steps,
        .p50_ns/.p95_ns/.p99_ns (warm-up left out), .source ("explicit",
        "range", "profiler", "optimizer", or None when none were found),
        .steps_folded (step records dropped past the daemon's bound, not in
        steps_total) and .rules.
        A step is slow past `slow_factor` (default 1.5) times the median of
        the `window` (default 20) steps before it; the first `warmup`
        (default 3; 0 for none) are warm-up. TrimmedSessionWarning when
        older spans were trimmed."""
        request = pb.GetStepsRequest(session_id=session_id,
                                     rules=_step_rules(slow_factor, window, warmup), limit=limit)
        steps = to_python(self._unary(self._stub.GetSteps, request))
        warn_if_trimmed(self.session(session_id).session, stacklevel=2)
        return steps

    def why(self, session_id, step, *, baseline=None, slow_factor=0.0, window=0, warmup=None):
        """Why step `step` took longer than its baseline (the median of the
        10 nearest steps that are neither slow nor warm-up, or step
        `baseline`): ExplainStepResponse with .duration_ns, .baseline_ns,
        .extra_ns, .baseline_steps and .ops (StepOpExtra: name, tag,
        self_ns, baseline_ns, extra_ns, share, cumulative_share,
        only_in_step), largest extra first until 80% of .extra_ns is named,
        then the ops that ran only in the step. The rules are steps()'s."""
        request = pb.ExplainStepRequest(
            session_id=session_id, step=step, baseline_step=baseline or 0,
            has_baseline_step=baseline is not None,
            rules=_step_rules(slow_factor, window, warmup))
        why = to_python(self._unary(self._stub.ExplainStep, request))
        warn_if_trimmed(self.session(session_id).session, stacklevel=2)
        return why

    def diff(self, a, b, by="name"):
        """Sessions `a` and `b` side by side, grouped by "name" or "tag":
        CompareSessionsResponse with .rows (Comparison) and the totals."""
        request = pb.CompareSessionsRequest(session_a=a, session_b=b,
                                            by=value_of(_ENUMS["GroupBy"], by, "by"))
        return to_python(self._unary(self._stub.CompareSessions, request))

    def tail(self, level="trace", *, session_id=None, pid=None, label=None, name=None,
             target=None, device=None, min_duration=None, events=True, spans=False):
        """A live tail (optrace.tail.Tail, an iterator): LiveEvent items with
        events=True, completed Span items with spans=True, Lag items when it
        fell behind. The producers it covers (one session, pid or exact
        label; all by default) trace at `level` or finer while it is open.
        `name` is an RE2 pattern matched against the op's name or tag."""
        if not events and not spans:
            raise ValueError("tail needs events=True, spans=True or both")
        request = pb.TailRequest(level=_level(level), session_id=session_id or 0, pid=pid or 0,
                                 label=label or "", name_pattern=name or "", events=events,
                                 spans=spans, batch=True)
        _set_where(request, target, device, min_duration)
        return Tail(self._stub.Tail(request), self._error)

    def get_source(self, session_id, op_id=None, location=None, context=0):
        """The source listing around op `op_id`'s call site, or around
        `location` ("file:line") given directly (one of the two), as its
        producer shipped it when the session was recorded:
        GetSourceResponse with .source_location, .file, .line (the op's),
        .first_line (of .lines[0]), .lines (the text, without newlines) and
        .registered (registered by the runtime, not read from a file).
        `context` > 0 keeps that many lines before and after .line.
        NotFoundError names what is missing (the op, its location, a
        listing of it); InvalidArgumentError for a location that is not
        file:line."""
        if (op_id is None) == (location is None):
            raise ValueError("give op_id or location ('file:line'), not both or neither")
        if op_id is not None and (not isinstance(op_id, int) or op_id <= 0):
            raise ValueError(f"op_id must be an op's id (an int > 0), not {op_id!r}")
        if not isinstance(context, int) or context < 0:
            raise ValueError(f"context must be a number of lines (an int >= 0), not {context!r}")
        request = pb.GetSourceRequest(session_id=session_id, op_id=op_id or 0,
                                      source_location=location or "", context=context)
        return to_python(self._unary(self._stub.GetSource, request))

    # ---- levels -----------------------------------------------------------

    def get_level(self):
        """The default level, the rules and each live producer's level:
        GetLevelResponse (default_level, rules, producers)."""
        return to_python(self._unary(self._stub.GetLevel, pb.GetLevelRequest()))

    def set_level(self, level, *, session_id=None, pid=None, label=None):
        """Sets `level` globally (the default), for one session or pid, or for
        an exact label; at most one scope. SetLevelResponse
        (producers_reached, level)."""
        request = pb.SetLevelRequest(level=_level(level), session_id=session_id or 0,
                                     pid=pid or 0, label=label or "")
        return to_python(self._unary(self._stub.SetLevel, request))

    def clear_level(self, *, session_id=None, pid=None, label=None):
        """Removes the overrides set_level() made for the scope."""
        request = pb.SetLevelRequest(clear=True, session_id=session_id or 0, pid=pid or 0,
                                     label=label or "")
        return to_python(self._unary(self._stub.SetLevel, request))

    # ---- keeps ------------------------------------------------------------

    def keep(self, session_id, last=None, *, first_unix_ns=None, last_unix_ns=None, reason=""):
        """Keeps a range of a session, so that its rolling window never trims
        it: the `last` (int nanoseconds or a datetime.timedelta) before its
        newest stored span, the range [first_unix_ns, last_unix_ns] of span
        start times, or, with neither, all it stored. Returns the stored Keep
        (session_id, first_unix_ns, last_unix_ns, reason, bytes,
        created_unix_ns), merged with the session's keeps it overlaps.
        ResourceExhaustedError past a keep budget."""
        request = pb.KeepRangeRequest(session_id=session_id, reason=reason)
        if (first_unix_ns is None) != (last_unix_ns is None):
            raise ValueError("give both first_unix_ns and last_unix_ns, or neither")
        if first_unix_ns is not None:
            if last is not None:
                raise ValueError("give either last or first_unix_ns and last_unix_ns")
            request.first_unix_ns = first_unix_ns
            request.last_unix_ns = last_unix_ns
        else:
            # No duration: one longer than any session keeps all it stored.
            request.last_ns = _nanoseconds(last, "last") if last is not None else 2**63 - 1
        return to_python(self._unary(self._stub.KeepRange, request)).keep

    def keeps(self, session_id):
        """The kept ranges of a session, by start: rows of Keep."""
        response = self._unary(self._stub.ListKeeps, pb.ListKeepsRequest(session_id=session_id))
        return to_python(response).keeps

    def set_window(self, session_id, keep_last=None, keep_last_bytes=None, *, default=False):
        """Gives a running session a rolling window of its own: keep the spans
        of the `keep_last` (int nanoseconds or a datetime.timedelta) before
        its newest and at most `keep_last_bytes` of span pages; 0 = no bound
        of that kind, None = as the window in force has it. `default=True`
        goes back to the daemon's window. Returns the Window in force
        (keep_last_ns, keep_last_bytes, own). FailedPreconditionError for a
        session that has ended. The database's caps still win over it."""
        if default:
            if keep_last is not None or keep_last_bytes is not None:
                raise ValueError("default=True goes back to the daemon's window: "
                                 "give no keep_last or keep_last_bytes with it")
            request = pb.SetWindowRequest(session_id=session_id, use_default=True)
        else:
            in_force = self.session(session_id).session.window
            request = pb.SetWindowRequest(
                session_id=session_id,
                keep_last_ns=(_nanoseconds(keep_last, "keep_last") if keep_last is not None
                              else in_force.keep_last_ns),
                keep_last_bytes=(_byte_count(keep_last_bytes, "keep_last_bytes")
                                 if keep_last_bytes is not None else in_force.keep_last_bytes))
        return to_python(self._unary(self._stub.SetWindow, request)).window

    # ---- the daemon -------------------------------------------------------

    def status(self):
        """The daemon's health and loss counters: GetStatusResponse."""
        return to_python(self._unary(self._stub.GetStatus, pb.GetStatusRequest()))

    def export(self, session_id, format, path, *, start_ns=0, end_ns=0):
        """Writes a whole session to the file `path` as "chrome" (trace-event
        JSON for Perfetto UI; "json" says the same), "perfetto" (Perfetto's
        own protobuf trace, as `optrace export --format perfetto`), "csv" or
        "sqlite". With start_ns and end_ns (Unix ns, as timeline() takes
        them), only the spans that overlap [start_ns, end_ns) and the marks
        in it; both 0 for the whole session, else 0 <= start_ns < end_ns
        (InvalidArgumentError otherwise, naming the field). The file
        appears complete or not at all. Returns the number of spans
        exported. The file holds the stored spans: a TrimmedSessionWarning
        says when older ones were trimmed."""
        request = pb.ExportRequest(session_id=session_id,
                                   format=value_of(_ENUMS["ExportFormat"], format, "format"),
                                   start_unix_ns=start_ns, end_unix_ns=end_ns)
        path = os.fspath(path)
        partial = f"{path}.part{os.getpid()}"
        spans = 0
        try:
            with open(partial, "wb") as out:
                for chunk in self._stub.Export(request):
                    spans = max(spans, chunk.span_count, chunk.spans_done)
                    out.write(chunk.data)
            os.replace(partial, path)
        except grpc.RpcError as e:
            raise self._error(e) from None
        finally:
            if os.path.exists(partial):
                os.unlink(partial)
        warn_if_trimmed(self.session(session_id).session, stacklevel=2)
        return spans
