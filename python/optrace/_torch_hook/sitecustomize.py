"""Put on PYTHONPATH by `optrace run --torch`: traces PyTorch ops of an
unmodified program from the moment it imports torch (docs/pytorch.md).
Programs that never import torch pay one import-system lookup, nothing
more. Then runs the sitecustomize this one hides, if any.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_HOOK_DIR = os.path.dirname(os.path.abspath(__file__))


class _EnableAfterTorchImport(importlib.abc.MetaPathFinder):
    """Finds `torch` with the other finders and enables optrace.torch once
    its module has run."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run_torch = spec.loader.exec_module

        def exec_module(module):
            run_torch(module)
            try:
                import optrace.torch
                optrace.torch.enable()
            except Exception as error:  # tracing must never break the program
                print(f"optrace: PyTorch ops are not traced: {error}", file=sys.stderr)

        spec.loader.exec_module = exec_module
        return spec


def _run_hidden_sitecustomize():
    sys.modules.pop("sitecustomize", None)
    path = [p for p in sys.path if os.path.abspath(p or ".") != _HOOK_DIR]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


# The folder holding the optrace package, for build trees that are not
# installed (installed, it is on sys.path already).
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(_HOOK_DIR))
if _PACKAGE_PARENT not in sys.path:
    sys.path.append(_PACKAGE_PARENT)
sys.meta_path.insert(0, _EnableAfterTorchImport())
_run_hidden_sitecustomize()
