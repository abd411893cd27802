#include "steps.h"

#include <cstdint>

#include "call_sites.h"
#include "method_table.h"
#include "optrace/optrace.h"

namespace optrace::python {
namespace {

// One step, begun (when traced) by step(). Invariant: running iff id != 0
// and its LAUNCH was recorded without its COMPLETE yet.
struct StepObject {
  PyObject_HEAD optrace_op_desc desc;
  uint64_t id;  // 0 when not traced
  bool running;
};

PyTypeObject* g_step_type = nullptr;
PyObject* g_step_name = nullptr;  // OPTRACE_STEP_NAME as an interned str

// This thread's open boundary step (a strong reference), or null. Only
// its own thread reads or writes it, with the GIL held. A thread that ends
// with a step open leaves the step open (stored as incomplete once the
// process ends) and its object alive.
thread_local StepObject* tls_boundary = nullptr;

void Complete(StepObject* step) {
  optrace_op_end(&step->desc, step->id, 0);
  step->running = false;
}

void EndBoundaryStep() {
  StepObject* open = tls_boundary;
  if (open == nullptr) return;
  tls_boundary = nullptr;
  if (open->running) Complete(open);
  Py_DECREF(open);
}

PyObject* StepEnter(PyObject* self, PyObject*) {
  Py_INCREF(self);
  return self;
}

// __exit__(type, value, traceback): COMPLETE, whatever ended the block (the
// exception, if any, goes on); the thread has no open boundary step after.
PyObject* StepExit(PyObject* self, PyObject* const*, Py_ssize_t) {
  auto* step = reinterpret_cast<StepObject*>(self);
  if (step->running) Complete(step);
  if (tls_boundary == step) {
    tls_boundary = nullptr;
    Py_DECREF(self);  // the caller still holds `self`
  }
  Py_RETURN_FALSE;
}

void StepDealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(type);  // instances of heap types own a reference to it
}

PyObject* StepRepr(PyObject* self) {
  auto* step = reinterpret_cast<StepObject*>(self);
  const char* state = step->running ? "running" : step->id != 0 ? "ended" : "not traced";
  return PyUnicode_FromFormat("<optrace.Step id=%llu %s>",
                              static_cast<unsigned long long>(step->id), state);
}

PyObject* GetId(PyObject* self, void*) {
  return PyLong_FromUnsignedLongLong(reinterpret_cast<StepObject*>(self)->id);
}
PyObject* GetRunning(PyObject* self, void*) {
  return PyBool_FromLong(reinterpret_cast<StepObject*>(self)->running);
}

PyMethodDef g_step_methods[] = {{"__enter__", AsCFunction(StepEnter), METH_NOARGS,
                                 "Returns the step, which step() began already."},
                                {"__exit__", AsCFunction(StepExit), METH_FASTCALL,
                                 "COMPLETE of the step; never suppresses the exception."},
                                {nullptr, nullptr, 0, nullptr}};

PyGetSetDef g_step_getset[] = {
    {"id", GetId, nullptr, "The step's op id, unique in the process; 0 when not traced.", nullptr},
    {"running", GetRunning, nullptr, "True between the recorded LAUNCH and COMPLETE.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot g_step_slots[] = {
    {Py_tp_doc, const_cast<char*>("A step from optrace.step(): open until the thread's next "
                                  "step() or step_finish(), or the end of its `with` block.")},
    {Py_tp_dealloc, reinterpret_cast<void*>(StepDealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(StepRepr)},
    {Py_tp_methods, g_step_methods},
    {Py_tp_getset, g_step_getset},
    {0, nullptr}};

PyType_Spec g_step_spec = {"optrace.Step", sizeof(StepObject), 0,
                           Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, g_step_slots};

}  // namespace

bool AddStepType(PyObject* module) {
  g_step_name = PyUnicode_InternFromString(OPTRACE_STEP_NAME);
  if (g_step_name == nullptr) return false;
  PyObject* type = PyType_FromSpec(&g_step_spec);
  if (type == nullptr) return false;
  g_step_type = reinterpret_cast<PyTypeObject*>(type);
  Py_INCREF(type);  // g_step_type's reference; the module gets the other
  return PyModule_AddObject(module, "Step", type) == 0;
}

PyObject* NewStep(PyObject*, PyObject*) {
  EndBoundaryStep();
  StepObject* step = PyObject_New(StepObject, g_step_type);
  if (step == nullptr) return nullptr;
  step->desc = {0, 0, 0, OPTRACE_TARGET_CPU, 0, 0};
  step->id = 0;
  step->running = false;
  if (optrace_ops_enabled()) {
    const OpIds ids = IdsAtCurrentLine(g_step_name, nullptr);
    step->desc.name_id = ids.name;
    step->desc.srcloc_id = ids.srcloc;
    step->id = optrace_op_begin(&step->desc, OPTRACE_OP_SCOPED);
    step->running = step->id != 0;  // 0: the level changed under us
  }
  if (step->running) {
    Py_INCREF(step);  // tls_boundary's reference
    tls_boundary = step;
  }
  return reinterpret_cast<PyObject*>(step);
}

PyObject* StepFinish(PyObject*, PyObject*) {
  EndBoundaryStep();
  Py_RETURN_NONE;
}

}  // namespace optrace::python
