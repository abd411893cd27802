// optrace._producer: the producer half of the Python package `optrace`,
// over liboptrace's C API (optrace/optrace.h). The package re-exports
// everything here; see python/optrace/__init__.py and docs/python.md.
//
// Thread rules: every function runs with the GIL held and never releases
// it; liboptrace gives each OS thread its own ring, so Python threads
// trace side by side, and a fork() child gets its own segment.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "fused_tags.h"
#include "instants.h"
#include "keeps.h"
#include "levels.h"
#include "listings.h"
#include "method_table.h"
#include "ops.h"
#include "steps.h"

namespace optrace::python {
namespace {

PyMethodDef g_functions[] = {
    {"op", AsCFunction(NewOp), METH_FASTCALL | METH_KEYWORDS,
     "op(name, tag=None, target='cpu', device=0, stream=0) -> Op\n\n"
     "A context manager: LAUNCH on entry, COMPLETE on exit (also when the block raises).\n"
     "Nested ops get the enclosing op of their thread as parent."},
    {"begin", AsCFunction(Begin), METH_FASTCALL | METH_KEYWORDS,
     "begin(name, tag=None, target='cpu', device=0, stream=0) -> Op\n\n"
     "LAUNCH of an op that end() completes, on any thread."},
    {"end", AsCFunction(End), METH_FASTCALL | METH_KEYWORDS,
     "end(handle, device_ns=None)\n\nCOMPLETE of an op from begin(); device_ns is the "
     "device-measured duration."},
    {"step", AsCFunction(NewStep), METH_NOARGS,
     "step() -> Step\n\n"
     "The loop boundary: ends this thread's open step, if any, and begins the next\n"
     "(an op named 'optrace.step', the parent of the ops begun on this thread while it\n"
     "is open). Call it at the top of each iteration and step_finish() after the loop,\n"
     "or use the Step it returns as a context manager: `with optrace.step(): ...`\n"
     "ends the step when the block ends."},
    {"step_finish", AsCFunction(StepFinish), METH_NOARGS,
     "step_finish()\n\nEnds this thread's open step, if any, without beginning another."},
    {"keep", AsCFunction(Keep), METH_FASTCALL | METH_KEYWORDS,
     "keep(reason='')\n\n"
     "Keeps the trace around this moment (call it when something goes wrong): optraced\n"
     "keeps keep_before before it to keep_after after it, reason 'runtime: REASON'\n"
     "('keep' when empty; cut to 200 bytes of UTF-8). Recorded unless the level is off."},
    {"register_listing", AsCFunction(RegisterListing), METH_FASTCALL | METH_KEYWORDS,
     "register_listing(name, text)\n\n"
     "Ships a listing of the runtime's own (an IR dump, say) with the session; op sites\n"
     "point into it with the location 'name:line' and `optrace source` shows it.\n"
     "True when kept; False when listings are off (OPTRACE_LISTINGS=0) or full."},
    {"mark", AsCFunction(Mark), METH_FASTCALL | METH_KEYWORDS,
     "mark(name, tag=None, level='info')\n\nAn instant event."},
    {"counter", AsCFunction(Counter), METH_FASTCALL | METH_KEYWORDS,
     "counter(name, value, level='debug')\n\nThe value of a counter (a 64-bit int)."},
    {"fused_tag", AsCFunction(FusedTag), METH_FASTCALL,
     "fused_tag(*parts) -> str\n\nThe tag of a fused op: the tags of the ops it replaces, in the "
     "order\nthey compute, joined by '+' (docs/dispatch-names.md)."},
    {"set_level", AsCFunction(SetLevel), METH_O,
     "set_level(level)\n\nThe level this process asks for ('off' .. 'trace'), as OPTRACE_LEVEL\n"
     "does at start. With a daemon attached it takes effect within one drain cycle."},
    {"get_level", AsCFunction(GetLevel), METH_NOARGS,
     "get_level() -> str\n\nThe live level the process traces at now."},
    {"enabled", AsCFunction(Enabled), METH_NOARGS,
     "enabled() -> bool\n\nTrue when ops (level trace) are recorded now."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef g_module = {PyModuleDef_HEAD_INIT,
                        "optrace._producer",
                        "The producer API of optrace over liboptrace (see the package optrace).",
                        -1,
                        g_functions,
                        nullptr,
                        nullptr,
                        nullptr,
                        nullptr};

}  // namespace
}  // namespace optrace::python

PyMODINIT_FUNC PyInit__producer() {
  using namespace optrace::python;
  PyObject* module = PyModule_Create(&g_module);
  if (module == nullptr) return nullptr;
  if (!InitLevels() || !InitInstants() || !InitKeeps() || !InitListings() || !AddOpType(module) ||
      !AddStepType(module)) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
