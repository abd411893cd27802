#include "torch/python_caller.h"

#include <Python.h>

#include <cstddef>

#include "instrument/thread_block.h"
#include "optrace/optrace.h"

namespace optrace::torch_ops {
namespace {

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
// CPython 3.11's _PyInterpreterFrame (Include/internal/pycore_frame.h),
// mirrored: the internal header needs Py_BUILD_CORE and C atomics. Only the
// leading fields are read.
struct InterpreterFrame {
  PyFunctionObject* f_func;
  PyObject* f_globals;
  PyObject* f_builtins;
  PyObject* f_locals;
  PyCodeObject* f_code;
  PyFrameObject* frame_obj;
  InterpreterFrame* previous;
  _Py_CODEUNIT* prev_instr;
  int stacktop;
  bool is_entry;
  char owner;
};
constexpr char kOwnedByGenerator = 1;
constexpr bool kFramesReadable = true;
#else
struct InterpreterFrame;
constexpr bool kFramesReadable = false;
#endif

// Frames looked at before giving up (deep recursion inside PyTorch).
constexpr int kMaxFrames = 32;

// One frame seen before (code == nullptr: an empty slot).
struct CachedFrame {
  const void* code;
  ptrdiff_t instruction;
  bool internal;
  uint32_t id;
};
constexpr size_t kCacheSlots = 512;  // a power of two
struct FrameCache {
  CachedFrame slots[kCacheSlots];
};

std::string& InternalPrefix() {
  static std::string* prefix = new std::string();
  return *prefix;
}

// The UTF-8 text of `text` when it is compact ASCII (readable without the
// GIL: no conversion cache is created), else nullptr.
const char* AsciiText(PyObject* text) {
  if (text == nullptr || !PyUnicode_Check(text) || !PyUnicode_IS_COMPACT_ASCII(text)) {
    return nullptr;
  }
  return static_cast<const char*>(PyUnicode_DATA(text));
}

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
// Fills `slot` for the frame running `code` at `instruction`.
void Describe(PyCodeObject* code, ptrdiff_t instruction, CachedFrame& slot) {
  slot.code = code;
  slot.instruction = instruction;
  slot.id = 0;
  const char* file = AsciiText(code->co_filename);
  const std::string& prefix = InternalPrefix();
  slot.internal =
      file == nullptr || (!prefix.empty() && std::string_view(file).starts_with(prefix));
  if (slot.internal) return;
  const int line = PyCode_Addr2Line(code, static_cast<int>(instruction * sizeof(_Py_CODEUNIT)));
  if (line > 0) optrace_intern_location(file, static_cast<uint32_t>(line), &slot.id);
}
#endif

}  // namespace

void SetInternalPathPrefix(std::string prefix) { InternalPrefix() = std::move(prefix); }

uint32_t CallerLocationId() {
  if constexpr (!kFramesReadable) {
    return 0;
  } else {
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
    PyThreadState* const state = PyGILState_GetThisThreadState();
    if (state == nullptr || state->cframe == nullptr) return 0;
    FrameCache* const cache = instrument::ThreadBlock<FrameCache>::Get();
    if (cache == nullptr) return 0;
    auto* frame = reinterpret_cast<InterpreterFrame*>(state->cframe->current_frame);
    for (int depth = 0; frame != nullptr && depth < kMaxFrames; ++depth, frame = frame->previous) {
      PyCodeObject* const code = frame->f_code;
      if (code == nullptr) return 0;
      const ptrdiff_t instruction = frame->prev_instr - _PyCode_CODE(code);
      // An incomplete frame (still being set up) has no line yet.
      if (frame->owner != kOwnedByGenerator && instruction < code->_co_firsttraceable) continue;
      const size_t hash =
          (reinterpret_cast<uintptr_t>(code) >> 4) * 31 + static_cast<size_t>(instruction);
      CachedFrame& slot = cache->slots[hash & (kCacheSlots - 1)];
      if (slot.code != code || slot.instruction != instruction) Describe(code, instruction, slot);
      if (!slot.internal) return slot.id;
    }
#endif
    return 0;
  }
}

}  // namespace optrace::torch_ops
