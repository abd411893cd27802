#include "levels.h"

#include <string>

#include "common/level_names.h"
#include "optrace/optrace.h"

namespace optrace::python {
namespace {

constexpr int kLevelCount = OPTRACE_LEVEL_TRACE + 1;
// The canonical names, interned: the usual argument is one of these
// objects (a literal in the caller's code), found by pointer.
PyObject* g_names[kLevelCount] = {};

}  // namespace

bool InitLevels() {
  for (int level = 0; level < kLevelCount; ++level) {
    const std::string_view name = LevelName(static_cast<abi::LevelValue>(level));
    g_names[level] = PyUnicode_InternFromString(std::string(name).c_str());
    if (g_names[level] == nullptr) return false;
  }
  return true;
}

bool LevelArgument(const char* function, PyObject* value, int* level) {
  for (int l = 0; l < kLevelCount; ++l) {
    if (value == g_names[l]) {
      *level = l;
      return true;
    }
  }
  if (!PyUnicode_Check(value)) {
    PyErr_Format(PyExc_TypeError, "%s level must be a str (one of %s), not %s", function,
                 std::string(LevelNameList()).c_str(), Py_TYPE(value)->tp_name);
    return false;
  }
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(value, &size);
  if (text == nullptr) return false;
  const auto parsed = ParseLevel(std::string_view(text, static_cast<size_t>(size)));
  if (!parsed) {
    PyErr_Format(PyExc_ValueError, "%s level %R is not one of %s", function, value,
                 std::string(LevelNameList()).c_str());
    return false;
  }
  *level = static_cast<int>(*parsed);
  return true;
}

PyObject* SetLevel(PyObject*, PyObject* value) {
  int level = 0;
  if (!LevelArgument("optrace.set_level()", value, &level)) return nullptr;
  optrace_set_level(level);
  Py_RETURN_NONE;
}

PyObject* GetLevel(PyObject*, PyObject*) {
  const int level = optrace_get_level();
  PyObject* name = g_names[level >= 0 && level < kLevelCount ? level : OPTRACE_LEVEL_TRACE];
  Py_INCREF(name);
  return name;
}

PyObject* Enabled(PyObject*, PyObject*) { return PyBool_FromLong(optrace_ops_enabled()); }

}  // namespace optrace::python
