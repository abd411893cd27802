"""Errors of the query client: one subclass of Error per gRPC status code.

Each carries the daemon's message (str(error)), the code's name (`code`,
e.g. "NOT_FOUND") and the daemon's address (`address`). Bad arguments that
the client itself can tell are wrong raise ValueError or TypeError before
anything is sent.
"""


class Error(Exception):
    """An RPC to optraced failed; subclasses name the gRPC status code."""

    code = "UNKNOWN"

    def __init__(self, message, address=""):
        super().__init__(message)
        self.message = message
        self.address = address


# gRPC status code name -> the class name of its error.
_CLASS_NAMES = {
    "CANCELLED": "CancelledError",
    "UNKNOWN": "UnknownError",
    "INVALID_ARGUMENT": "InvalidArgumentError",
    "DEADLINE_EXCEEDED": "DeadlineExceededError",
    "NOT_FOUND": "NotFoundError",
    "ALREADY_EXISTS": "AlreadyExistsError",
    "PERMISSION_DENIED": "PermissionDeniedError",
    "RESOURCE_EXHAUSTED": "ResourceExhaustedError",
    "FAILED_PRECONDITION": "FailedPreconditionError",
    "ABORTED": "AbortedError",
    "OUT_OF_RANGE": "OutOfRangeError",
    "UNIMPLEMENTED": "UnimplementedError",
    "INTERNAL": "InternalError",
    "UNAVAILABLE": "UnavailableError",
    "DATA_LOSS": "DataLossError",
    "UNAUTHENTICATED": "UnauthenticatedError",
}

# code name -> class
ERROR_CLASSES = {}
for _code, _name in _CLASS_NAMES.items():
    ERROR_CLASSES[_code] = type(_name, (Error,), {
        "code": _code,
        "__doc__": f"optraced answered {_code}.",
        "__module__": __name__,
    })
    globals()[_name] = ERROR_CLASSES[_code]

__all__ = ["Error"] + list(_CLASS_NAMES.values())


def error_for(code, message, address=""):
    """The Error subclass instance for the gRPC status code named `code`."""
    return ERROR_CLASSES.get(code, ERROR_CLASSES["UNKNOWN"])(message, address)
