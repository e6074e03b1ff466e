// The standard headers that programs written for the Poplar SDK find without
// including them.
//
// Poplar's own headers happen to pull in a broad set of standard headers, and
// public programs (the Graphcore tutorials among them) call std::find_if,
// std::setw, strcmp, printf or std::make_unique having included only
// <poplar/Engine.hpp> or <pva/pva.hpp>. The project's entry headers
// (Graph.hpp, Engine.hpp, DeviceManager.hpp, pva.hpp) include this file so
// that such programs compile unchanged.
#ifndef PRS_POPLAR_DETAIL_TRANSITIVEINCLUDES_HPP
#define PRS_POPLAR_DETAIL_TRANSITIVEINCLUDES_HPP

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#endif
