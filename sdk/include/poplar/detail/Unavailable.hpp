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
  "libpva's execution reports (Engine::getReport, Report::execution, the lightweight profiler's blocks of "      \
  "Block programs) are not implemented by this Poplar-compatible SDK; pva::openReport reads the graph "          \
  "profile, and Engine::printProfileSummary, the autoReport.* engine options and poplar-report give the "        \
  "execution profile (docs/host-api.md, 'What is not implemented')"

#if defined(__GNUC__) || defined(__clang__)
#define PRS_PVA_NOT_IMPLEMENTED __attribute__((error(PRS_PVA_MESSAGE)))
#else
#define PRS_PVA_NOT_IMPLEMENTED [[deprecated(PRS_PVA_MESSAGE)]]
#endif

#endif
