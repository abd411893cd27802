#include "ops.h"

#include <structmember.h>

#include <cstdint>

#include "arguments.h"
#include "call_sites.h"
#include "method_table.h"
#include "optrace/optrace.h"

namespace optrace::python {
namespace {

enum class OpState : uint8_t { kIdle, kRunning, kEnded };

// One op. `desc` holds the placement from the start; its ids are set when
// the op is launched. Invariant: state == kRunning iff id != 0 and the
// LAUNCH was recorded without its COMPLETE yet.
struct OpObject {
  PyObject_HEAD PyObject* name;  // str, non-empty
  PyObject* tag;                 // str, or null for none
  optrace_op_desc desc;
  uint64_t id;  // 0 until launched, and when not traced
  OpState state;
  bool scoped;  // launched by __enter__ (ends with __exit__)
};

PyTypeObject* g_op_type = nullptr;

// Target words, interned: the usual argument is a literal found by pointer.
struct TargetWord {
  const char* word;
  uint8_t target;
  PyObject* interned;
};
TargetWord g_targets[] = {{"cpu", OPTRACE_TARGET_CPU, nullptr},
                          {"gpu", OPTRACE_TARGET_GPU, nullptr},
                          {"other", OPTRACE_TARGET_OTHER, nullptr}};

const char* const kOpParameterNames[] = {"name", "tag", "target", "device", "stream"};
Parameters g_op_parameters{"optrace.op()", kOpParameterNames, 5, 1};
Parameters g_begin_parameters{"optrace.begin()", kOpParameterNames, 5, 1};
const char* const kEndParameterNames[] = {"handle", "device_ns"};
Parameters g_end_parameters{"optrace.end()", kEndParameterNames, 2, 1};

bool TargetArgument(const char* function, PyObject* value, uint8_t* target) {
  for (const TargetWord& t : g_targets) {
    if (value == t.interned) return *target = t.target, true;
  }
  if (PyUnicode_Check(value)) {
    for (const TargetWord& t : g_targets) {
      if (PyUnicode_CompareWithASCIIString(value, t.word) == 0) return *target = t.target, true;
    }
  }
  PyErr_Format(PyExc_ValueError, "%s target must be 'cpu', 'gpu' or 'other', not %R", function,
               value);
  return false;
}

const char* TargetWordOf(uint8_t target) {
  for (const TargetWord& t : g_targets) {
    if (t.target == target) return t.word;
  }
  return "unknown";
}

// A new idle op of the arguments bound by `parameters`, or null with an
// error set.
OpObject* MakeOp(const Parameters& parameters, PyObject* const* args, Py_ssize_t nargs,
                 PyObject* kwnames) {
  PyObject* bound[5];
  if (!BindArguments(parameters, args, nargs, kwnames, bound)) return nullptr;
  PyObject* name = bound[0];
  if (!PyUnicode_Check(name) || PyUnicode_GET_LENGTH(name) == 0) {
    PyErr_Format(PyUnicode_Check(name) ? PyExc_ValueError : PyExc_TypeError,
                 "%s name must be a non-empty str, not %R", parameters.function, name);
    return nullptr;
  }
  PyObject* tag = bound[1] == Py_None ? nullptr : bound[1];
  if (tag != nullptr && !PyUnicode_Check(tag)) {
    PyErr_Format(PyExc_TypeError, "%s tag must be a str or None, not %s", parameters.function,
                 Py_TYPE(tag)->tp_name);
    return nullptr;
  }
  if (tag != nullptr && PyUnicode_GET_LENGTH(tag) == 0) tag = nullptr;
  optrace_op_desc desc{0, 0, 0, OPTRACE_TARGET_CPU, 0, 0};
  uint64_t device = 0, stream = 0;
  if (bound[2] != nullptr && !TargetArgument(parameters.function, bound[2], &desc.target)) {
    return nullptr;
  }
  if (bound[3] != nullptr &&
      !UnsignedArgument(parameters.function, "device", bound[3], UINT16_MAX, &device)) {
    return nullptr;
  }
  if (bound[4] != nullptr &&
      !UnsignedArgument(parameters.function, "stream", bound[4], UINT32_MAX, &stream)) {
    return nullptr;
  }
  desc.device = static_cast<uint16_t>(device);
  desc.stream = static_cast<uint32_t>(stream);
  OpObject* op = PyObject_New(OpObject, g_op_type);
  if (op == nullptr) return nullptr;
  Py_INCREF(name);
  Py_XINCREF(tag);
  op->name = name;
  op->tag = tag;
  op->desc = desc;
  op->id = 0;
  op->state = OpState::kIdle;
  op->scoped = false;
  return op;
}

// LAUNCH of `op` at the calling Python line, when ops are traced now.
void Launch(OpObject* op, uint32_t flags) {
  if (!optrace_ops_enabled()) return;
  const OpIds ids = IdsAtCurrentLine(op->name, op->tag);
  op->desc.name_id = ids.name;
  op->desc.tag_id = ids.tag;
  op->desc.srcloc_id = ids.srcloc;
  op->id = optrace_op_begin(&op->desc, flags);
  if (op->id == 0) return;  // the level changed under us
  op->state = OpState::kRunning;
  op->scoped = flags == OPTRACE_OP_SCOPED;
}

void Complete(OpObject* op, uint64_t device_ns) {
  optrace_op_end(&op->desc, op->id, device_ns);
  op->state = OpState::kEnded;
}

PyObject* OpEnter(PyObject* self, PyObject*) {
  auto* op = reinterpret_cast<OpObject*>(self);
  if (op->state == OpState::kRunning) {
    PyErr_Format(PyExc_RuntimeError, "op %R is running already: enter an op once at a time",
                 op->name);
    return nullptr;
  }
  Launch(op, OPTRACE_OP_SCOPED);
  Py_INCREF(self);
  return self;
}

// __exit__(type, value, traceback): COMPLETE, whatever ended the block; the
// exception (if any) goes on.
PyObject* OpExit(PyObject* self, PyObject* const*, Py_ssize_t) {
  auto* op = reinterpret_cast<OpObject*>(self);
  if (op->state == OpState::kRunning && op->scoped) Complete(op, 0);
  Py_RETURN_FALSE;
}

void OpDealloc(PyObject* self) {
  auto* op = reinterpret_cast<OpObject*>(self);
  PyTypeObject* type = Py_TYPE(self);
  Py_DECREF(op->name);
  Py_XDECREF(op->tag);
  PyObject_Free(self);
  Py_DECREF(type);  // instances of heap types own a reference to it
}

PyObject* OpRepr(PyObject* self) {
  auto* op = reinterpret_cast<OpObject*>(self);
  static const char* const kStates[] = {"idle", "running", "ended"};
  return PyUnicode_FromFormat("<optrace.Op %R tag=%R target=%s:%u id=%llu %s>", op->name,
                              op->tag != nullptr ? op->tag : Py_None, TargetWordOf(op->desc.target),
                              static_cast<unsigned>(op->desc.device),
                              static_cast<unsigned long long>(op->id),
                              kStates[static_cast<int>(op->state)]);
}

PyObject* GetId(PyObject* self, void*) {
  return PyLong_FromUnsignedLongLong(reinterpret_cast<OpObject*>(self)->id);
}
PyObject* GetName(PyObject* self, void*) {
  PyObject* name = reinterpret_cast<OpObject*>(self)->name;
  Py_INCREF(name);
  return name;
}
PyObject* GetTag(PyObject* self, void*) {
  PyObject* tag = reinterpret_cast<OpObject*>(self)->tag;
  if (tag == nullptr) Py_RETURN_NONE;
  Py_INCREF(tag);
  return tag;
}
PyObject* GetTarget(PyObject* self, void*) {
  return PyUnicode_FromString(TargetWordOf(reinterpret_cast<OpObject*>(self)->desc.target));
}
PyObject* GetDevice(PyObject* self, void*) {
  return PyLong_FromUnsignedLong(reinterpret_cast<OpObject*>(self)->desc.device);
}
PyObject* GetStream(PyObject* self, void*) {
  return PyLong_FromUnsignedLong(reinterpret_cast<OpObject*>(self)->desc.stream);
}
PyObject* GetRunning(PyObject* self, void*) {
  return PyBool_FromLong(reinterpret_cast<OpObject*>(self)->state == OpState::kRunning);
}

PyMethodDef g_op_methods[] = {
    {"__enter__", AsCFunction(OpEnter), METH_NOARGS,
     "LAUNCH (when ops are traced); returns the op."},
    {"__exit__", AsCFunction(OpExit), METH_FASTCALL,
     "COMPLETE of an op that __enter__ launched; never suppresses the exception."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef g_op_getset[] = {
    {"id", GetId, nullptr, "The op id, unique in the process; 0 while (or when) not traced.",
     nullptr},
    {"name", GetName, nullptr, "The op's name.", nullptr},
    {"tag", GetTag, nullptr, "The op's tag, or None.", nullptr},
    {"target", GetTarget, nullptr, "'cpu', 'gpu' or 'other'.", nullptr},
    {"device", GetDevice, nullptr, "The device ordinal.", nullptr},
    {"stream", GetStream, nullptr, "The stream or queue (0 = default).", nullptr},
    {"running", GetRunning, nullptr, "True between the recorded LAUNCH and COMPLETE.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot g_op_slots[] = {
    {Py_tp_doc,
     const_cast<char*>(
         "An op: optrace.op(...) as a context manager, or a handle from optrace.begin().")},
    {Py_tp_dealloc, reinterpret_cast<void*>(OpDealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(OpRepr)},
    {Py_tp_methods, g_op_methods},
    {Py_tp_getset, g_op_getset},
    {0, nullptr}};

PyType_Spec g_op_spec = {"optrace.Op", sizeof(OpObject), 0,
                         Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, g_op_slots};

}  // namespace

bool AddOpType(PyObject* module) {
  for (TargetWord& t : g_targets) {
    t.interned = PyUnicode_InternFromString(t.word);
    if (t.interned == nullptr) return false;
  }
  if (!InternParameters(g_op_parameters) || !InternParameters(g_begin_parameters) ||
      !InternParameters(g_end_parameters)) {
    return false;
  }
  PyObject* type = PyType_FromSpec(&g_op_spec);
  if (type == nullptr) return false;
  g_op_type = reinterpret_cast<PyTypeObject*>(type);
  Py_INCREF(type);  // g_op_type's reference; the module gets the other
  return PyModule_AddObject(module, "Op", type) == 0;
}

PyObject* NewOp(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return reinterpret_cast<PyObject*>(MakeOp(g_op_parameters, args, nargs, kwnames));
}

PyObject* Begin(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  OpObject* op = MakeOp(g_begin_parameters, args, nargs, kwnames);
  if (op != nullptr) Launch(op, 0);
  return reinterpret_cast<PyObject*>(op);
}

PyObject* End(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* bound[2];
  if (!BindArguments(g_end_parameters, args, nargs, kwnames, bound)) return nullptr;
  if (!PyObject_TypeCheck(bound[0], g_op_type)) {
    PyErr_Format(PyExc_TypeError, "optrace.end() handle must be an optrace.Op from begin(), not %s",
                 Py_TYPE(bound[0])->tp_name);
    return nullptr;
  }
  uint64_t device_ns = 0;
  if (bound[1] != nullptr && bound[1] != Py_None &&
      !UnsignedArgument("optrace.end()", "device_ns", bound[1], UINT64_MAX, &device_ns)) {
    return nullptr;
  }
  auto* op = reinterpret_cast<OpObject*>(bound[0]);
  if (op->state != OpState::kRunning) Py_RETURN_NONE;
  if (op->scoped) {
    PyErr_Format(PyExc_ValueError,
                 "optrace.end(): op %R runs in a `with` block and ends when the block ends",
                 op->name);
    return nullptr;
  }
  Complete(op, device_ns);
  Py_RETURN_NONE;
}

}  // namespace optrace::python
