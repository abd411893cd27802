// Entries of CPython method tables (PyMethodDef) for the extension's
// functions, which have the signature their METH_* flags name.
#ifndef OPTRACE_PYTHON_EXTENSION_METHOD_TABLE_H_
#define OPTRACE_PYTHON_EXTENSION_METHOD_TABLE_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace optrace::python {

// `f` as the PyCFunction a PyMethodDef stores (through void(*)(), the cast
// that does not warn about the changed signature).
template <typename F>
PyCFunction AsCFunction(F* f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_METHOD_TABLE_H_
