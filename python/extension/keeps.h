// optrace.keep(): keeps the trace around this moment, from the runtime.
//
//   except torch.cuda.OutOfMemoryError:
//       optrace.keep("oom")     # `optrace keeps SESSION`: "runtime: oom"
//
// A mark named "optrace.keep" (OPTRACE_KEEP_NAME) at level error, tagged
// with the reason, through liboptrace's optrace_keep: optraced keeps
// keep_before before it to keep_after after it.
#ifndef OPTRACE_PYTHON_EXTENSION_KEEPS_H_
#define OPTRACE_PYTHON_EXTENSION_KEEPS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace optrace::python {

// Interns the parameter names. Returns false with a Python error set.
bool InitKeeps();

// keep(reason=""): records a keep with `reason` (a str; "" is "keep";
// cut to OPTRACE_KEEP_REASON_MAX bytes of UTF-8, and at a NUL). Recorded
// unless the live level is off. Raises TypeError for a reason that is not
// a str, nothing because of tracing.
PyObject* Keep(PyObject* module, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_KEEPS_H_
