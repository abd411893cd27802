"""Every aten op, autograd function and user scope (record_function,
Optimizer.step#..., ProfilerStep#N) of this PyTorch program as an optrace
op (docs/pytorch.md).

    import optrace.torch
    optrace.torch.enable()

Ops are recorded while this process's live level is trace (OPTRACE_LEVEL,
optrace.set_level, or a daemon's tail or level rule); below it the
callback is switched off and costs nothing. `optrace run --torch` does the
same for an unmodified program.
"""

import ctypes
import os

__all__ = ["enable", "losses", "callback_enabled"]

_LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "liboptrace_torch.so")
_library = None


class _Losses(ctypes.Structure):
    _fields_ = [("callback_errors", ctypes.c_uint64), ("too_deep", ctypes.c_uint64),
                ("names_over_cap", ctypes.c_uint64), ("tags_over_cap", ctypes.c_uint64)]


def _load():
    global _library
    if _library is None:
        library = ctypes.CDLL(_LIBRARY)
        library.optrace_torch_enable.argtypes = [ctypes.c_char_p]
        library.optrace_torch_enable.restype = ctypes.c_int
        library.optrace_torch_get_losses.argtypes = [ctypes.POINTER(_Losses)]
        library.optrace_torch_callback_enabled.restype = ctypes.c_int
        _library = library
    return _library


def enable():
    """Starts tracing PyTorch ops in this process (imports torch).
    Idempotent. Raises OSError when liboptrace_torch.so cannot be loaded
    and RuntimeError when libtorch refuses the callback."""
    import torch  # the library needs libtorch loaded the way torch loads it

    prefix = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    if _load().optrace_torch_enable(prefix.encode()) < 0:
        raise RuntimeError("optrace.torch: libtorch refused the RecordFunction callback")


def losses():
    """What could not be recorded faithfully so far, by cause: a dict of
    callback_errors, too_deep, names_over_cap, tags_over_cap."""
    counts = _Losses()
    _load().optrace_torch_get_losses(ctypes.byref(counts))
    return {name: getattr(counts, name) for name, _ in _Losses._fields_}


def callback_enabled():
    """True while the callback runs for every op (live level trace)."""
    return bool(_load().optrace_torch_callback_enabled())
