// optrace.fused_tag(): the tag of a fused op built from the tags of the
// ops it replaces (docs/dispatch-names.md), through liboptrace's
// optrace_fused_tag so that Python and C++ producers agree on the rules.
#ifndef OPTRACE_PYTHON_EXTENSION_FUSED_TAGS_H_
#define OPTRACE_PYTHON_EXTENSION_FUSED_TAGS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace optrace::python {

// fused_tag(*parts) -> str: the parts joined by '+', in the order they
// compute. Raises TypeError for a part that is not a str and ValueError
// (with optrace_fused_tag's reason) for fewer than two parts, an empty
// part, a part containing '+' or a tag over 4096 bytes.
PyObject* FusedTag(PyObject* module, PyObject* const* args, Py_ssize_t nargs);

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_FUSED_TAGS_H_
