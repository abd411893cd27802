#include "call_sites.h"

#include <functional>
#include <unordered_map>

#include "optrace/optrace.h"
#include "string_ids.h"

namespace optrace::python {
namespace {

// A place in the bytecode: a code object and an instruction offset in it.
struct SiteKey {
  PyObject* code;  // strong reference, held by the map's entry
  int lasti;
  bool operator==(const SiteKey& other) const { return code == other.code && lasti == other.lasti; }
};

struct SiteKeyHash {
  size_t operator()(const SiteKey& key) const {
    return std::hash<const void*>()(key.code) ^
           (static_cast<size_t>(key.lasti) * 0x9E3779B97F4A7C15ULL);
  }
};

// What one call site used last, with strong references to the name and
// tag objects so that an identical pointer really is the same string.
struct Site {
  uint32_t srcloc = 0;
  PyObject* name = nullptr;
  uint32_t name_id = 0;
  PyObject* tag = nullptr;
  uint32_t tag_id = 0;
};

using SiteMap = std::unordered_map<SiteKey, Site, SiteKeyHash>;
// Owned for the life of the process (never destroyed: its references must
// not be dropped after the interpreter is gone).
SiteMap& Sites() {
  static SiteMap* sites = new SiteMap();
  return *sites;
}

void Forget(SiteMap& sites) {
  for (auto& [key, site] : sites) {
    Py_DECREF(key.code);
    Py_XDECREF(site.name);
    Py_XDECREF(site.tag);
  }
  sites.clear();
}

uint32_t InternLocation(PyFrameObject* frame, PyObject* code) {
  PyObject* file = PyObject_GetAttrString(code, "co_filename");
  const char* utf8 = file != nullptr && PyUnicode_Check(file) ? PyUnicode_AsUTF8(file) : nullptr;
  uint32_t id = 0;
  if (utf8 == nullptr || optrace_intern_location(
                             utf8, static_cast<uint32_t>(PyFrame_GetLineNumber(frame)), &id) != 0) {
    PyErr_Clear();
  }
  Py_XDECREF(file);
  return id;
}

// The id of `value` at `site`: the cached one when `value` is the object
// seen there last, else looked up and remembered.
uint32_t IdAt(PyObject*& seen, uint32_t& seen_id, PyObject* value) {
  if (value == seen) return seen_id;
  Py_INCREF(value);
  Py_XDECREF(seen);
  seen = value;
  seen_id = StringId(value);
  return seen_id;
}

}  // namespace

OpIds IdsAtCurrentLine(PyObject* name, PyObject* tag) {
  OpIds ids;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  if (frame == nullptr) {
    ids.name = StringId(name);
    ids.tag = tag != nullptr ? StringId(tag) : 0;
    return ids;
  }
  PyCodeObject* code = PyFrame_GetCode(frame);  // new reference
  SiteMap& sites = Sites();
  SiteKey key{reinterpret_cast<PyObject*>(code), PyFrame_GetLasti(frame)};
  auto it = sites.find(key);
  if (it == sites.end()) {
    if (sites.size() >= kMaxCallSites) Forget(sites);
    Site site;
    site.srcloc = InternLocation(frame, key.code);
    Py_INCREF(key.code);  // the entry's reference
    it = sites.emplace(key, site).first;
  }
  Py_DECREF(code);
  Site& site = it->second;
  ids.srcloc = site.srcloc;
  ids.name = IdAt(site.name, site.name_id, name);
  ids.tag = tag != nullptr ? IdAt(site.tag, site.tag_id, tag) : 0;
  return ids;
}

}  // namespace optrace::python
