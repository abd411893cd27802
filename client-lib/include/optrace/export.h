// Symbol visibility for liboptrace: the library is built with hidden
// visibility and exports exactly what carries OPTRACE_EXPORT.
#ifndef OPTRACE_EXPORT_H_
#define OPTRACE_EXPORT_H_

#if defined(__GNUC__)
#define OPTRACE_EXPORT __attribute__((visibility("default")))
#else
#define OPTRACE_EXPORT
#endif

#endif  // OPTRACE_EXPORT_H_
