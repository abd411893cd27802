// Ops from Python: the type optrace.Op and the functions that make them.
//
//   with optrace.op("matmul", tag="matmul_128x256_f32", target="gpu", device=0):
//       ...                                  # LAUNCH on entry, COMPLETE on exit
//   handle = optrace.begin("copy")           # LAUNCH; may end on another thread
//   optrace.end(handle, device_ns=1200)      # COMPLETE
//
// An op takes its source location from the Python line that enters it
// (or calls begin()). While a `with` op runs it is the parent of the ops
// begun on its thread. When the live level is below trace, entering and
// leaving record nothing and cost a level check.
#ifndef OPTRACE_PYTHON_EXTENSION_OPS_H_
#define OPTRACE_PYTHON_EXTENSION_OPS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace optrace::python {

// Creates the type optrace.Op and adds it to `module`. Returns false with
// a Python error set.
bool AddOpType(PyObject* module);

// op(name, tag=None, target="cpu", device=0, stream=0) -> Op, a context
// manager. Raises TypeError / ValueError for bad arguments, whatever the
// level.
PyObject* NewOp(PyObject* module, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

// begin(name, tag=None, target="cpu", device=0, stream=0) -> Op: LAUNCH
// now (when ops are traced); the op ends with end() on any thread.
PyObject* Begin(PyObject* module, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

// end(handle, device_ns=None): COMPLETE of an op from begin(), with the
// device-measured duration when given. Ending an op that was not traced or
// has ended already records nothing. Raises TypeError for a handle that is
// not an Op, ValueError for an op that a `with` block runs.
PyObject* End(PyObject* module, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_OPS_H_
