"""What a Client presents to optraced over TCP (--listen): a bearer token
read from a file, sent as the metadata "authorization: Bearer TOKEN" with
every call. The same rule and words as the CLI's --token-file
(client-lib/common/bearer_token.cc): a token file that other users may
read or replace is refused, by name."""

import os
import pwd
import stat

import grpc

# The longest token a token file's first line may hold.
MAX_TOKEN_BYTES = 4096


def _owner_and_mode(st):
    try:
        owner = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        owner = "no such user"
    return f"owned by uid {st.st_uid} ({owner}) with mode {stat.S_IMODE(st.st_mode):04o}"


def read_token_file(path, setting="token_file"):
    """The token on the first line of `path`, blanks around it trimmed.
    `setting` names where the path came from in messages. Raises
    PermissionError when other users may read or write the file, or its
    group may write it; ValueError when it is not a regular file, or its
    first line is empty, too long, or holds a character other than
    printable ASCII without spaces; OSError when it cannot be read. The
    messages name the file, never what it holds."""
    named = f"{setting} {path}"
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{named} is not a regular file")
        if st.st_mode & (stat.S_IROTH | stat.S_IWOTH | stat.S_IWGRP):
            raise PermissionError(
                f"{named} is {_owner_and_mode(st)}: other users could read or replace the token; "
                "a token file must be readable by its owner (and its group) only and writable by "
                "its owner only (chmod 0600 or 0640)")
        text = f.read(MAX_TOKEN_BYTES + 2)
    line, newline, _ = text.partition(b"\n")
    if not newline and len(text) > MAX_TOKEN_BYTES:
        raise ValueError(f"{named}: its first line is longer than {MAX_TOKEN_BYTES} bytes")
    token = line.strip(b" \t\r")
    if not token:
        raise ValueError(f"{named} has an empty first line")
    if len(token) > MAX_TOKEN_BYTES:
        raise ValueError(f"{named}: its token is longer than {MAX_TOKEN_BYTES} bytes")
    if any(c <= 0x20 or c > 0x7e for c in token):
        raise ValueError(f"{named}: the token holds a character other than printable ASCII "
                         "without spaces (an authorization header could not carry it)")
    return token.decode("ascii")


class _CallDetails(grpc.ClientCallDetails):
    def __init__(self, details, metadata):
        self.method = details.method
        self.timeout = details.timeout
        self.metadata = metadata
        self.credentials = details.credentials
        self.wait_for_ready = getattr(details, "wait_for_ready", None)
        self.compression = getattr(details, "compression", None)


class BearerToken(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Adds "authorization: Bearer TOKEN" to every call of the channel it
    intercepts (grpc.intercept_channel), plaintext loopback channels
    included, which call credentials would not reach."""

    def __init__(self, token):
        self._entry = ("authorization", "Bearer " + token)

    def _with_token(self, details):
        return _CallDetails(details, list(details.metadata or ()) + [self._entry])

    def intercept_unary_unary(self, continuation, client_call_details, request):
        return continuation(self._with_token(client_call_details), request)

    def intercept_unary_stream(self, continuation, client_call_details, request):
        return continuation(self._with_token(client_call_details), request)
