// What every C++ test program of sdk/tests reports with: one line per
// check ("ok" or "FAIL", the check, a detail), a count of failures for
// main's exit status, and a check that a call throws a given exception
// whose message holds a given text.
#ifndef PRS_SDK_TESTS_CHECK_HPP
#define PRS_SDK_TESTS_CHECK_HPP

#include <exception>
#include <iostream>
#include <string>

namespace {

int failures = 0;

void report(const std::string &check, bool ok, const std::string &detail = "") {
  if (!ok)
    ++failures;
  std::cout << (ok ? "ok    " : "FAIL  ") << check << (detail.empty() ? "" : ": " + detail) << "\n";
}

template <class E, class F> void expectThrow(const std::string &check, const std::string &needle, F f) {
  try {
    f();
    report(check, false, "no exception");
  } catch (const E &e) {
    report(check, std::string(e.what()).find(needle) != std::string::npos, e.what());
  } catch (const std::exception &e) {
    report(check, false, std::string("wrong exception: ") + e.what());
  }
}

} // namespace

#endif
