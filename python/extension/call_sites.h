// Where in the Python code an op starts: the calling line ("file.py:42")
// of the frame running now (no stack walk), and the interned ids of the
// names and tags last used there. One hash lookup per op in the usual case
// of a call site that always passes the same name and tag objects.
#ifndef OPTRACE_PYTHON_EXTENSION_CALL_SITES_H_
#define OPTRACE_PYTHON_EXTENSION_CALL_SITES_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>

namespace optrace::python {

// The ids an op's events carry.
struct OpIds {
  uint32_t name = 0;
  uint32_t tag = 0;     // 0 = none
  uint32_t srcloc = 0;  // 0 = no Python frame (called from C)
};

// The ids of an op named `name` with tag `tag` (null = none) started by
// the Python code running now on this thread. Never raises.
// The cache keeps the code objects of at most kMaxCallSites call sites
// alive; past that it starts again empty.
// REQUIRES: `name` (and `tag` unless null) is a str; the GIL.
OpIds IdsAtCurrentLine(PyObject* name, PyObject* tag);

inline constexpr size_t kMaxCallSites = 1 << 16;

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_CALL_SITES_H_
