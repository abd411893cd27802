// The NVTX types and callback ids a tool needs, without NVTX's own
// implementation (which belongs to the application): NVTX_NO_IMPL.
#ifndef OPTRACE_NVTX_NVTX_API_H_
#define OPTRACE_NVTX_NVTX_API_H_

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#undef NVTX_NO_IMPL

#endif  // OPTRACE_NVTX_NVTX_API_H_
