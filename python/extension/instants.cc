#include "instants.h"

#include "arguments.h"
#include "levels.h"
#include "optrace/optrace.h"
#include "string_ids.h"

namespace optrace::python {
namespace {

const char* const kMarkNames[] = {"name", "tag", "level"};
Parameters g_mark_parameters{"optrace.mark()", kMarkNames, 3, 1};
const char* const kCounterNames[] = {"name", "value", "level"};
Parameters g_counter_parameters{"optrace.counter()", kCounterNames, 3, 2};

// The level of an instant event: `given` (null = `fallback`).
bool InstantLevel(const char* function, PyObject* given, int fallback, int* level) {
  if (given == nullptr) return *level = fallback, true;
  if (!LevelArgument(function, given, level)) return false;
  if (*level == OPTRACE_LEVEL_OFF) {
    PyErr_Format(PyExc_ValueError,
                 "%s level must be error .. trace: an event at 'off' is never "
                 "recorded",
                 function);
    return false;
  }
  return true;
}

bool NameArgument(const char* function, const char* what, PyObject* value) {
  if (PyUnicode_Check(value)) return true;
  PyErr_Format(PyExc_TypeError, "%s %s must be a str, not %s", function, what,
               Py_TYPE(value)->tp_name);
  return false;
}

}  // namespace

bool InitInstants() {
  return InternParameters(g_mark_parameters) && InternParameters(g_counter_parameters);
}

PyObject* Mark(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* bound[3];
  const char* function = g_mark_parameters.function;
  if (!BindArguments(g_mark_parameters, args, nargs, kwnames, bound)) return nullptr;
  int level = 0;
  if (!NameArgument(function, "name", bound[0])) return nullptr;
  PyObject* tag = bound[1] == Py_None ? nullptr : bound[1];
  if (tag != nullptr && !NameArgument(function, "tag", tag)) return nullptr;
  if (!InstantLevel(function, bound[2], OPTRACE_LEVEL_INFO, &level)) return nullptr;
  if (optrace_get_level() < level) Py_RETURN_NONE;
  optrace_mark(level, StringId(bound[0]), tag != nullptr ? StringId(tag) : 0);
  Py_RETURN_NONE;
}

PyObject* Counter(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* bound[3];
  const char* function = g_counter_parameters.function;
  if (!BindArguments(g_counter_parameters, args, nargs, kwnames, bound)) return nullptr;
  int level = 0;
  if (!NameArgument(function, "name", bound[0])) return nullptr;
  if (!PyLong_Check(bound[1])) {
    PyErr_Format(PyExc_TypeError, "%s value must be an int, not %s", function,
                 Py_TYPE(bound[1])->tp_name);
    return nullptr;
  }
  const long long value = PyLong_AsLongLong(bound[1]);
  if (value == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "%s value %R does not fit in 64 bits", function, bound[1]);
    return nullptr;
  }
  if (!InstantLevel(function, bound[2], OPTRACE_LEVEL_DEBUG, &level)) return nullptr;
  if (optrace_get_level() < level) Py_RETURN_NONE;
  optrace_counter(level, StringId(bound[0]), static_cast<int64_t>(value));
  Py_RETURN_NONE;
}

}  // namespace optrace::python
