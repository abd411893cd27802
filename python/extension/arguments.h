// Binding the arguments of a vectorcall to named parameters, as Python
// does for a def with defaults, without building a tuple or a dict: the
// per-call cost of optrace.op() is mostly this.
#ifndef OPTRACE_PYTHON_EXTENSION_ARGUMENTS_H_
#define OPTRACE_PYTHON_EXTENSION_ARGUMENTS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstddef>
#include <cstdint>

namespace optrace::python {

// The parameters of one function: its name for messages and its parameter
// names, interned once (InternParameters) so that keywords usually match
// by pointer.
struct Parameters {
  const char* function;      // e.g. "optrace.op()"
  const char* const* names;  // `count` names
  size_t count;
  size_t required;                // the first `required` must be given
  PyObject** interned = nullptr;  // owned; filled by InternParameters
};

// Interns `parameters.names`. Returns false with a Python error set.
bool InternParameters(Parameters& parameters);

// Stores in out[i] the argument given for parameter i (borrowed), or null
// when it was not given. Raises TypeError (returns false) for too many
// positional arguments, an unknown or repeated keyword, or a missing
// required argument, with the message Python would give.
// REQUIRES: `out` has parameters.count entries; the GIL.
bool BindArguments(const Parameters& parameters, PyObject* const* args, Py_ssize_t nargs,
                   PyObject* kwnames, PyObject** out);

// Converts `value` to an integer in [0, max] for parameter `name` of
// `function`. Raises TypeError for a non-int, ValueError for one out of
// range (returns false).
bool UnsignedArgument(const char* function, const char* name, PyObject* value, uint64_t max,
                      uint64_t* out);

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_ARGUMENTS_H_
