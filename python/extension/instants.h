// optrace.mark() and optrace.counter(): instant events, recorded when the
// live level lets their level through.
#ifndef OPTRACE_PYTHON_EXTENSION_INSTANTS_H_
#define OPTRACE_PYTHON_EXTENSION_INSTANTS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace optrace::python {

// Interns the parameter names. Returns false with a Python error set.
bool InitInstants();

// mark(name, tag=None, level="info"): an instant event ("step 12 done").
PyObject* Mark(PyObject* module, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

// counter(name, value, level="debug"): the value (an int64) of a counter.
PyObject* Counter(PyObject* module, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_INSTANTS_H_
