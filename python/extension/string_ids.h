// The interned ids of Python strings (op names, tags): liboptrace's
// optrace_intern is called once per distinct value; later uses are one
// dict lookup. Ids are process-wide and survive fork(), so the cache does.
#ifndef OPTRACE_PYTHON_EXTENSION_STRING_IDS_H_
#define OPTRACE_PYTHON_EXTENSION_STRING_IDS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>

namespace optrace::python {

// The id of the str `text`, interned on first sight. Never raises: a
// string that is not valid UTF-8 (lone surrogates) is interned with those
// characters replaced, and one that cannot be interned at all gets
// liboptrace's "<string table full>" id. The cache holds at most
// kMaxCachedStrings values; past that, new values are interned each time
// (liboptrace's own table is bounded anyway).
// REQUIRES: `text` is a str; the GIL.
uint32_t StringId(PyObject* text);

inline constexpr Py_ssize_t kMaxCachedStrings = 1 << 16;

// Interns `text` in liboptrace, without the cache. REQUIRES: the GIL.
uint32_t InternUncached(PyObject* text);

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_STRING_IDS_H_
