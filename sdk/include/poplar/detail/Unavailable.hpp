// Marks declarations that exist so programs compile but that the project
// does not implement: libpva's profile reports (Engine::getReport and the
// pva:: classes).
//
// With GCC and Clang a call to such a function is a compile error naming the
// reason (only when code is generated: `-fsyntax-only` accepts it, so
// programs that merely mention the API can be checked). Elsewhere the
// functions are left undefined and fail at link time.
#ifndef PRS_POPLAR_DETAIL_UNAVAILABLE_HPP
#define PRS_POPLAR_DETAIL_UNAVAILABLE_HPP

#define PRS_PVA_MESSAGE                                                                                           \
  "pva profile reports are not implemented by this Poplar-compatible SDK: see docs/host-api.md "                  \
  "(Engine::printProfileSummary and the autoReport.* engine options give the profile)"

#if defined(__GNUC__) || defined(__clang__)
#define PRS_PVA_NOT_IMPLEMENTED __attribute__((error(PRS_PVA_MESSAGE)))
#else
#define PRS_PVA_NOT_IMPLEMENTED [[deprecated(PRS_PVA_MESSAGE)]]
#endif

#endif
