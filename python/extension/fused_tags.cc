#include "fused_tags.h"

#include <cerrno>
#include <cstring>
#include <vector>

#include "optrace/optrace.h"

namespace optrace::python {
namespace {

// The longest tag optrace_fused_tag writes, plus its NUL.
constexpr size_t kTagBufferBytes = 4096 + 1;

}  // namespace

PyObject* FusedTag(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  std::vector<const char*> parts(static_cast<size_t>(nargs));
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (!PyUnicode_Check(args[i])) {
      PyErr_Format(PyExc_TypeError, "optrace.fused_tag() part %zd must be a str, not %s", i,
                   Py_TYPE(args[i])->tp_name);
      return nullptr;
    }
    Py_ssize_t length = 0;
    parts[static_cast<size_t>(i)] = PyUnicode_AsUTF8AndSize(args[i], &length);
    if (parts[static_cast<size_t>(i)] == nullptr) return nullptr;
    if (static_cast<size_t>(length) != std::strlen(parts[static_cast<size_t>(i)])) {
      PyErr_Format(PyExc_ValueError, "optrace.fused_tag() part %zd contains a NUL character", i);
      return nullptr;
    }
  }
  char tag[kTagBufferBytes];
  const int written = optrace_fused_tag(parts.data(), parts.size(), tag, sizeof tag);
  if (written >= 0) return PyUnicode_DecodeUTF8(tag, written, "strict");
  if (written == -E2BIG) {
    PyErr_SetString(PyExc_ValueError,
                    "optrace.fused_tag(): the tag would be longer than 4096 bytes, the "
                    "longest string the segment's string table keeps");
    return nullptr;
  }
  if (nargs < 2) {
    PyErr_Format(PyExc_ValueError, "optrace.fused_tag() needs at least two parts, got %zd", nargs);
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    const char* part = parts[static_cast<size_t>(i)];
    if (*part == '\0' || std::strchr(part, '+') != nullptr) {
      PyErr_Format(PyExc_ValueError,
                   "optrace.fused_tag() part %zd (%R) must be non-empty and without '+'", i,
                   args[i]);
      return nullptr;
    }
  }
  PyErr_Format(PyExc_ValueError, "optrace.fused_tag() failed (error %d)", -written);
  return nullptr;
}

}  // namespace optrace::python
