#include "keeps.h"

#include "arguments.h"
#include "optrace/optrace.h"

namespace optrace::python {
namespace {

const char* const kKeepNames[] = {"reason"};
Parameters g_keep_parameters{"optrace.keep()", kKeepNames, 1, 0};

}  // namespace

bool InitKeeps() { return InternParameters(g_keep_parameters); }

PyObject* Keep(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* reason = nullptr;
  if (!BindArguments(g_keep_parameters, args, nargs, kwnames, &reason)) return nullptr;
  if (reason != nullptr && !PyUnicode_Check(reason)) {
    PyErr_Format(PyExc_TypeError, "optrace.keep() reason must be a str, not %s",
                 Py_TYPE(reason)->tp_name);
    return nullptr;
  }
  if (optrace_get_level() == OPTRACE_LEVEL_OFF) Py_RETURN_NONE;
  if (reason == nullptr) {
    optrace_keep(nullptr);
    Py_RETURN_NONE;
  }
  // Lone surrogates are replaced, as in names and tags (string_ids.h).
  PyObject* utf8 = PyUnicode_AsEncodedString(reason, "utf-8", "replace");
  if (utf8 == nullptr) {
    PyErr_Clear();
    optrace_keep(nullptr);
    Py_RETURN_NONE;
  }
  optrace_keep(PyBytes_AS_STRING(utf8));  // bytes objects end in a NUL
  Py_DECREF(utf8);
  Py_RETURN_NONE;
}

}  // namespace optrace::python
