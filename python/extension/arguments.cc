#include "arguments.h"

namespace optrace::python {

bool InternParameters(Parameters& parameters) {
  parameters.interned = new PyObject*[parameters.count];
  for (size_t i = 0; i < parameters.count; ++i) {
    parameters.interned[i] = PyUnicode_InternFromString(parameters.names[i]);
    if (parameters.interned[i] == nullptr) return false;
  }
  return true;
}

namespace {

// The index of keyword `key` among the parameters, or -1.
Py_ssize_t FindKeyword(const Parameters& parameters, PyObject* key) {
  for (size_t i = 0; i < parameters.count; ++i) {
    if (parameters.interned[i] == key) return static_cast<Py_ssize_t>(i);
  }
  // Keywords built at run time (**kwargs) need not be interned.
  for (size_t i = 0; i < parameters.count; ++i) {
    if (PyUnicode_Compare(parameters.interned[i], key) == 0) return static_cast<Py_ssize_t>(i);
  }
  if (PyErr_Occurred()) PyErr_Clear();
  return -1;
}

}  // namespace

bool BindArguments(const Parameters& parameters, PyObject* const* args, Py_ssize_t nargs,
                   PyObject* kwnames, PyObject** out) {
  const auto count = static_cast<Py_ssize_t>(parameters.count);
  if (nargs > count) {
    PyErr_Format(PyExc_TypeError, "%s takes at most %zd positional arguments (%zd given)",
                 parameters.function, count, nargs);
    return false;
  }
  for (Py_ssize_t i = 0; i < count; ++i) out[i] = i < nargs ? args[i] : nullptr;
  const Py_ssize_t keywords = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < keywords; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    const Py_ssize_t index = FindKeyword(parameters, key);
    if (index < 0) {
      PyErr_Format(PyExc_TypeError, "%s got an unexpected keyword argument '%U'",
                   parameters.function, key);
      return false;
    }
    if (out[index] != nullptr) {
      PyErr_Format(PyExc_TypeError, "%s got multiple values for argument '%s'", parameters.function,
                   parameters.names[index]);
      return false;
    }
    out[index] = args[nargs + k];
  }
  for (size_t i = 0; i < parameters.required; ++i) {
    if (out[i] == nullptr) {
      PyErr_Format(PyExc_TypeError, "%s missing required argument '%s'", parameters.function,
                   parameters.names[i]);
      return false;
    }
  }
  return true;
}

bool UnsignedArgument(const char* function, const char* name, PyObject* value, uint64_t max,
                      uint64_t* out) {
  if (!PyLong_Check(value)) {
    PyErr_Format(PyExc_TypeError, "%s %s must be an int, not %s", function, name,
                 Py_TYPE(value)->tp_name);
    return false;
  }
  const unsigned long long v = PyLong_AsUnsignedLongLong(value);
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "%s %s must be in 0..%llu, not %R", function, name,
                 static_cast<unsigned long long>(max), value);
    return false;
  }
  if (v > max) {
    PyErr_Format(PyExc_ValueError, "%s %s must be in 0..%llu, not %llu", function, name,
                 static_cast<unsigned long long>(max), v);
    return false;
  }
  *out = v;
  return true;
}

}  // namespace optrace::python
