#include "string_ids.h"

#include "optrace/optrace.h"

namespace optrace::python {
namespace {

// str -> int id. Owned by this module for the life of the process.
PyObject* g_ids = nullptr;

// liboptrace's id of "<string table full>" (optrace_intern's -ENOSPC id).
constexpr uint32_t kStringTableFull = 1;

}  // namespace

uint32_t InternUncached(PyObject* text) {
  PyObject* utf8 = PyUnicode_AsEncodedString(text, "utf-8", "replace");
  if (utf8 == nullptr) {
    PyErr_Clear();
    return kStringTableFull;
  }
  uint32_t id = 0;  // the empty string: no name
  const Py_ssize_t length = PyBytes_GET_SIZE(utf8);
  // A full table gives kStringTableFull in `id` (and -ENOSPC): recorded as such.
  if (length > 0) optrace_intern(PyBytes_AS_STRING(utf8), static_cast<size_t>(length), &id);
  Py_DECREF(utf8);
  return id;
}

uint32_t StringId(PyObject* text) {
  if (g_ids == nullptr) {
    g_ids = PyDict_New();
    if (g_ids == nullptr) {
      PyErr_Clear();
      return InternUncached(text);
    }
  }
  PyObject* cached = PyDict_GetItemWithError(g_ids, text);  // borrowed
  if (cached != nullptr) return static_cast<uint32_t>(PyLong_AsUnsignedLong(cached));
  if (PyErr_Occurred()) PyErr_Clear();  // an unhashable str subclass
  const uint32_t id = InternUncached(text);
  if (PyDict_GET_SIZE(g_ids) < kMaxCachedStrings) {
    PyObject* value = PyLong_FromUnsignedLong(id);
    if (value == nullptr || PyDict_SetItem(g_ids, text, value) != 0) PyErr_Clear();
    Py_XDECREF(value);
  }
  return id;
}

}  // namespace optrace::python
