// optrace.register_listing(): a listing of the runtime's own, shipped with
// the session (docs/abi.md "Listings").
//
//   optrace.register_listing("mlp.after-fusion.mlir", ir_text)
//   with optrace.op("fused", ...):   # its site may point at "mlp.after-fusion.mlir:12"
//
// Source listings of Python files need nothing: liboptrace reads the lines
// around each op's call site itself, on a thread of its own.
#ifndef OPTRACE_PYTHON_EXTENSION_LISTINGS_H_
#define OPTRACE_PYTHON_EXTENSION_LISTINGS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace optrace::python {

// Interns the parameter names. Returns false with a Python error set.
bool InitListings();

// register_listing(name, text): ships `text` (a str, '\n'-separated
// lines) under `name` (a non-empty str) through optrace_register_listing.
// Returns True when it was kept, False when listings are off or the area
// is full (counted). Raises TypeError for arguments that are not str and
// ValueError for an empty name; nothing because of tracing.
PyObject* RegisterListing(PyObject* module, PyObject* const* args, Py_ssize_t nargs,
                          PyObject* kwnames);

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_LISTINGS_H_
