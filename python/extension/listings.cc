#include "listings.h"

#include "arguments.h"
#include "optrace/optrace.h"

namespace optrace::python {
namespace {

const char* const kListingNames[] = {"name", "text"};
Parameters g_listing_parameters{"optrace.register_listing()", kListingNames, 2, 2};

// `value` as UTF-8 (lone surrogates replaced, as in names and tags), a new
// reference; nullptr with TypeError when it is not a str.
PyObject* Utf8Of(PyObject* value, const char* what) {
  if (!PyUnicode_Check(value)) {
    PyErr_Format(PyExc_TypeError, "optrace.register_listing() %s must be a str, not %s", what,
                 Py_TYPE(value)->tp_name);
    return nullptr;
  }
  return PyUnicode_AsEncodedString(value, "utf-8", "replace");
}

}  // namespace

bool InitListings() { return InternParameters(g_listing_parameters); }

PyObject* RegisterListing(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* bound[2] = {nullptr, nullptr};
  if (!BindArguments(g_listing_parameters, args, nargs, kwnames, bound)) return nullptr;
  PyObject* const name = bound[0];
  PyObject* const text = bound[1];
  PyObject* name_utf8 = Utf8Of(name, "name");
  if (name_utf8 == nullptr) return nullptr;
  if (PyBytes_GET_SIZE(name_utf8) == 0) {
    Py_DECREF(name_utf8);
    PyErr_SetString(PyExc_ValueError, "optrace.register_listing() name must not be empty");
    return nullptr;
  }
  PyObject* text_utf8 = Utf8Of(text, "text");
  if (text_utf8 == nullptr) {
    Py_DECREF(name_utf8);
    return nullptr;
  }
  const int rc =
      optrace_register_listing(PyBytes_AS_STRING(name_utf8), PyBytes_AS_STRING(text_utf8),
                               static_cast<size_t>(PyBytes_GET_SIZE(text_utf8)));
  Py_DECREF(name_utf8);
  Py_DECREF(text_utf8);
  return PyBool_FromLong(rc == 0);
}

}  // namespace optrace::python
