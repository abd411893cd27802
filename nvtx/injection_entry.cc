// liboptrace_nvtx.so's entry point: NVTX loads the library named by
// NVTX_INJECTION64_PATH and calls InitializeInjectionNvtx2 once per NVTX
// instance in the process (every library that embeds the NVTX headers has
// its own). We fill that instance's CORE and CORE2 callback tables with
// adapters onto the process-wide NvtxTracer; entries we leave empty become
// no-ops. The C++ API (nvtx3::scoped_range and friends) goes through the
// CORE2 (domain) entries, the C API through CORE.
#include <initializer_list>
#include <string_view>
#include <utility>

#include "nvtx/nvtx_api.h"
#include "nvtx/nvtx_tracer.h"
#include "nvtx/utf8_text.h"
#include "optrace/export.h"

namespace optrace::nvtx {
namespace {

NvtxTracer& Tracer() { return NvtxTracer::Get(); }

// Names of events that have only a message, in the default domain or in
// `domain` (for the tag).
template <typename Char>
auto MessageNames(Domain& domain, const Char* message) {
  return [&domain, message](EventNamer& namer) {
    return EventNames{namer.NameOf(message), domain.TagId(0)};
  };
}
auto AttributeNames(Domain& domain, const nvtxEventAttributes_t* attributes) {
  return [&domain, attributes](EventNamer& namer) { return namer.NamesOf(domain, attributes); };
}

// Domain and category names arrive as narrow or wide strings of any
// length: bounded UTF-8 views of them.
class Utf8Name {
 public:
  explicit Utf8Name(const char* text) {
    if (text != nullptr) view_ = {text, BoundedUtf8Length(text, sizeof buffer_).bytes};
  }
  explicit Utf8Name(const wchar_t* text) {
    if (text != nullptr) view_ = {buffer_, WideToUtf8(text, buffer_, sizeof buffer_).bytes};
  }
  std::string_view view() const { return view_; }

 private:
  char buffer_[kMaxNameBytes];
  std::string_view view_;
};

// ---- CORE: the default domain ---------------------------------------------

void MarkEx(const nvtxEventAttributes_t* a) {
  Tracer().Mark(AttributeNames(Tracer().DomainOf(nullptr), a));
}
void MarkA(const char* m) { Tracer().Mark(MessageNames(Tracer().DomainOf(nullptr), m)); }
void MarkW(const wchar_t* m) { Tracer().Mark(MessageNames(Tracer().DomainOf(nullptr), m)); }
nvtxRangeId_t RangeStartEx(const nvtxEventAttributes_t* a) {
  return Tracer().Start(AttributeNames(Tracer().DomainOf(nullptr), a));
}
nvtxRangeId_t RangeStartA(const char* m) {
  return Tracer().Start(MessageNames(Tracer().DomainOf(nullptr), m));
}
nvtxRangeId_t RangeStartW(const wchar_t* m) {
  return Tracer().Start(MessageNames(Tracer().DomainOf(nullptr), m));
}
void RangeEnd(nvtxRangeId_t id) { Tracer().End(id); }
int RangePushEx(const nvtxEventAttributes_t* a) {
  Domain& d = Tracer().DomainOf(nullptr);
  return Tracer().Push(d, AttributeNames(d, a));
}
int RangePushA(const char* m) {
  Domain& d = Tracer().DomainOf(nullptr);
  return Tracer().Push(d, MessageNames(d, m));
}
int RangePushW(const wchar_t* m) {
  Domain& d = Tracer().DomainOf(nullptr);
  return Tracer().Push(d, MessageNames(d, m));
}
int RangePop() { return Tracer().Pop(Tracer().DomainOf(nullptr)); }
void NameCategoryA(uint32_t category, const char* name) {
  Tracer().NameCategory(Tracer().DomainOf(nullptr), category, Utf8Name(name).view());
}
void NameCategoryW(uint32_t category, const wchar_t* name) {
  Tracer().NameCategory(Tracer().DomainOf(nullptr), category, Utf8Name(name).view());
}

// ---- CORE2: explicit domains ------------------------------------------------

void DomainMarkEx(nvtxDomainHandle_t h, const nvtxEventAttributes_t* a) {
  Tracer().Mark(AttributeNames(Tracer().DomainOf(h), a));
}
nvtxRangeId_t DomainRangeStartEx(nvtxDomainHandle_t h, const nvtxEventAttributes_t* a) {
  return Tracer().Start(AttributeNames(Tracer().DomainOf(h), a));
}
void DomainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t id) { Tracer().End(id); }
int DomainRangePushEx(nvtxDomainHandle_t h, const nvtxEventAttributes_t* a) {
  Domain& d = Tracer().DomainOf(h);
  return Tracer().Push(d, AttributeNames(d, a));
}
int DomainRangePop(nvtxDomainHandle_t h) { return Tracer().Pop(Tracer().DomainOf(h)); }
void DomainNameCategoryA(nvtxDomainHandle_t h, uint32_t category, const char* name) {
  Tracer().NameCategory(Tracer().DomainOf(h), category, Utf8Name(name).view());
}
void DomainNameCategoryW(nvtxDomainHandle_t h, uint32_t category, const wchar_t* name) {
  Tracer().NameCategory(Tracer().DomainOf(h), category, Utf8Name(name).view());
}
nvtxStringHandle_t DomainRegisterStringA(nvtxDomainHandle_t, const char* s) {
  return Tracer().RegisterString([s](EventNamer& namer) { return namer.NameOf(s); });
}
nvtxStringHandle_t DomainRegisterStringW(nvtxDomainHandle_t, const wchar_t* s) {
  return Tracer().RegisterString([s](EventNamer& namer) { return namer.NameOf(s); });
}
nvtxDomainHandle_t DomainCreateA(const char* name) {
  return Tracer().CreateDomain(Utf8Name(name).view());
}
nvtxDomainHandle_t DomainCreateW(const wchar_t* name) {
  return Tracer().CreateDomain(Utf8Name(name).view());
}

// ---- filling NVTX's tables ------------------------------------------------

using Entries = std::initializer_list<std::pair<unsigned, NvtxFunctionPointer>>;

template <typename Fn>
NvtxFunctionPointer Entry(Fn* fn) {
  return reinterpret_cast<NvtxFunctionPointer>(fn);
}

// Writes `entries` into `module`'s table; false when NVTX has no such table.
bool FillTable(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module,
               Entries entries) {
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (callbacks.GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr) {
    return false;
  }
  // An older NVTX has a shorter table: fill what it has.
  for (const auto& [id, fn] : entries) {
    if (id < size && table[id] != nullptr) *table[id] = fn;
  }
  return true;
}

int Initialize(NvtxGetExportTableFunc_t get_export_table) {
  if (get_export_table == nullptr) return 0;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr) {
    return 0;
  }
  const auto* version =
      static_cast<const NvtxExportTableVersionInfo*>(get_export_table(NVTX_ETID_VERSIONINFO));
  if (version != nullptr && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
      version->SetInjectionNvtxVersion != nullptr) {
    version->SetInjectionNvtxVersion(NVTX_VERSION);
  }
  const bool core = FillTable(*callbacks, NVTX_CB_MODULE_CORE,
                              {{NVTX_CBID_CORE_MarkEx, Entry(&MarkEx)},
                               {NVTX_CBID_CORE_MarkA, Entry(&MarkA)},
                               {NVTX_CBID_CORE_MarkW, Entry(&MarkW)},
                               {NVTX_CBID_CORE_RangeStartEx, Entry(&RangeStartEx)},
                               {NVTX_CBID_CORE_RangeStartA, Entry(&RangeStartA)},
                               {NVTX_CBID_CORE_RangeStartW, Entry(&RangeStartW)},
                               {NVTX_CBID_CORE_RangeEnd, Entry(&RangeEnd)},
                               {NVTX_CBID_CORE_RangePushEx, Entry(&RangePushEx)},
                               {NVTX_CBID_CORE_RangePushA, Entry(&RangePushA)},
                               {NVTX_CBID_CORE_RangePushW, Entry(&RangePushW)},
                               {NVTX_CBID_CORE_RangePop, Entry(&RangePop)},
                               {NVTX_CBID_CORE_NameCategoryA, Entry(&NameCategoryA)},
                               {NVTX_CBID_CORE_NameCategoryW, Entry(&NameCategoryW)}});
  const bool core2 =
      FillTable(*callbacks, NVTX_CB_MODULE_CORE2,
                {{NVTX_CBID_CORE2_DomainMarkEx, Entry(&DomainMarkEx)},
                 {NVTX_CBID_CORE2_DomainRangeStartEx, Entry(&DomainRangeStartEx)},
                 {NVTX_CBID_CORE2_DomainRangeEnd, Entry(&DomainRangeEnd)},
                 {NVTX_CBID_CORE2_DomainRangePushEx, Entry(&DomainRangePushEx)},
                 {NVTX_CBID_CORE2_DomainRangePop, Entry(&DomainRangePop)},
                 {NVTX_CBID_CORE2_DomainNameCategoryA, Entry(&DomainNameCategoryA)},
                 {NVTX_CBID_CORE2_DomainNameCategoryW, Entry(&DomainNameCategoryW)},
                 {NVTX_CBID_CORE2_DomainRegisterStringA, Entry(&DomainRegisterStringA)},
                 {NVTX_CBID_CORE2_DomainRegisterStringW, Entry(&DomainRegisterStringW)},
                 {NVTX_CBID_CORE2_DomainCreateA, Entry(&DomainCreateA)},
                 {NVTX_CBID_CORE2_DomainCreateW, Entry(&DomainCreateW)}});
  // Create the tracer now rather than inside the first event.
  NvtxTracer::Get();
  return core || core2 ? 1 : 0;
}

}  // namespace
}  // namespace optrace::nvtx

// Called by NVTX (nvtxInitializeInjectionLibrary) with its export table
// accessor. Returns 1 when the tables were filled (NVTX then routes calls
// here), 0 to make NVTX detach (every call a no-op). Never throws.
extern "C" OPTRACE_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  try {
    return optrace::nvtx::Initialize(get_export_table);
  } catch (...) {
    return 0;
  }
}
