// optrace.set_level(), get_level(), enabled(): the process's own level
// switch (what OPTRACE_LEVEL sets at start), and level names as Python
// code passes them.
#ifndef OPTRACE_PYTHON_EXTENSION_LEVELS_H_
#define OPTRACE_PYTHON_EXTENSION_LEVELS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace optrace::python {

// Interns the level names. Returns false with a Python error set.
bool InitLevels();

// The optrace_level of `value`, a level name ("off" ... "trace",
// case-insensitive, "warn" too). Raises TypeError or ValueError (naming
// `function` and the valid names) and returns false otherwise.
bool LevelArgument(const char* function, PyObject* value, int* level);

// set_level(level): the level this process asks for.
PyObject* SetLevel(PyObject* module, PyObject* level);
// get_level() -> str: the live level the process traces at now.
PyObject* GetLevel(PyObject* module, PyObject* unused);
// enabled() -> bool: True when ops are recorded now.
PyObject* Enabled(PyObject* module, PyObject* unused);

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_LEVELS_H_
