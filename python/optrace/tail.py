"""A live tail: the iterator optrace.Client.tail() returns."""

import collections

import grpc

from optrace.messages import to_python


class Tail:
    """Live events and/or spans as optraced drains them, one dataclass per
    item: LiveEvent, Span, or Lag (the tail fell behind; `skipped` says by
    how many items).

    While the tail is open, the daemon keeps the producers it covers at
    the tail's level; it restores them when the tail ends, however it ends.
    The iteration ends cleanly (StopIteration) when close() is called (from
    any thread), when the tail is used as a context manager and its block
    ends, on Ctrl-C (KeyboardInterrupt while waiting for the next item), and
    when the daemon ends the stream. An RPC failure raises the optrace.Error
    subclass of its code.
    """

    def __init__(self, call, to_error):
        self._call = call          # the gRPC response iterator (also a grpc.Call)
        self._to_error = to_error  # grpc.RpcError -> optrace.Error
        self._pending = collections.deque()
        self._closed = False

    def __iter__(self):
        return self

    def __next__(self):
        while not self._pending:
            if self._closed:
                raise StopIteration
            try:
                response = next(self._call)
            except StopIteration:
                self._closed = True
                raise
            except KeyboardInterrupt:
                self.close()
                raise StopIteration from None
            except grpc.RpcError as e:
                if self._closed or e.code() == grpc.StatusCode.CANCELLED:
                    self._closed = True
                    raise StopIteration from None
                raise self._to_error(e) from None
            self._queue(response)
        return self._pending.popleft()

    def _queue(self, response):
        which = response.WhichOneof("item")
        if which == "batch":
            for item in response.batch.items:
                self._queue(item)
        elif which is not None:
            self._pending.append(to_python(getattr(response, which)))

    def close(self):
        """Ends the tail: the daemon restores the levels it raised. Items
        already received are still returned; then the iteration stops."""
        if not self._closed:
            self._closed = True
            self._call.cancel()

    @property
    def closed(self):
        return self._closed

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing left to cancel with
            pass
