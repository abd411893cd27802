// Steps from Python: the type optrace.Step and the loop boundary.
//
//   for batch in loader:
//       with optrace.step():                 # a step around the body
//           ...
//   for batch in loader:
//       optrace.step()                       # or: ends the last step, begins this one
//       ...
//   optrace.step_finish()                    # ends the loop's last step
//
// A step is an op named "optrace.step" (OPTRACE_STEP_NAME), target cpu, no
// tag, begun scoped at the Python line that calls step(): while it is
// open it is the parent of the ops begun on its thread. Each thread has at
// most one open boundary step, the one its last step() began, kept in this
// extension (liboptrace's optrace_step keeps its own for C callers).
#ifndef OPTRACE_PYTHON_EXTENSION_STEPS_H_
#define OPTRACE_PYTHON_EXTENSION_STEPS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace optrace::python {

// Creates the type optrace.Step and adds it to `module`. Returns false
// with a Python error set.
bool AddStepType(PyObject* module);

// step() -> Step: ends this thread's open boundary step, if any, and
// begins a new one (when ops are traced), which stays open until the
// thread's next step() or step_finish(), or the end of the `with` block
// the returned Step manages. Never raises.
PyObject* NewStep(PyObject* module, PyObject* unused);

// step_finish(): ends this thread's open boundary step, if any. Never
// raises.
PyObject* StepFinish(PyObject* module, PyObject* unused);

}  // namespace optrace::python

#endif  // OPTRACE_PYTHON_EXTENSION_STEPS_H_
