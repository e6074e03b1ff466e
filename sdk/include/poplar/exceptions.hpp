// Poplar's exception classes, and the one place where a failed C ABI call
// becomes a C++ exception.
//
// Every libpoplar call returns a prs_status; a non-zero status names the
// exception class to throw and prs_last_error() holds the message. The
// classes are Poplar's: programs catch poplar_error (or std::exception) and
// sometimes a specific subclass, and they throw poplar_error themselves.
#ifndef PRS_POPLAR_EXCEPTIONS_HPP
#define PRS_POPLAR_EXCEPTIONS_HPP

#include <poplar/capi.h>

#include <stdexcept>
#include <string>

namespace poplar {

/// The base of every error the library reports. `type` names the class
/// ("poplar_error", "index_error", ...), as in the Poplar SDK.
struct poplar_error : public std::runtime_error {
  std::string type;

  explicit poplar_error(const std::string &s) : std::runtime_error(s), type("poplar_error") {}
  explicit poplar_error(const char *s) : std::runtime_error(s), type("poplar_error") {}

protected:
  poplar_error(const char *kind, const std::string &s) : std::runtime_error(s), type(kind) {}
};

// Each subclass only fixes its `type`; the list follows the Poplar SDK.
#define PRS_DEFINE_ERROR(Name, Base)                                                                              \
  struct Name : public Base {                                                                                     \
    explicit Name(const std::string &s) : Base(#Name, s) {}                                                       \
    explicit Name(const char *s) : Base(#Name, std::string(s)) {}                                                 \
                                                                                                                  \
  protected:                                                                                                      \
    Name(const char *kind, const std::string &s) : Base(kind, s) {}                                               \
  };

PRS_DEFINE_ERROR(index_error, poplar_error)
PRS_DEFINE_ERROR(unknown_field, poplar_error)
PRS_DEFINE_ERROR(unknown_vertex_type, poplar_error)
PRS_DEFINE_ERROR(graph_connection_error, poplar_error)
PRS_DEFINE_ERROR(stream_connection_error, poplar_error)
PRS_DEFINE_ERROR(invalid_option, poplar_error)
PRS_DEFINE_ERROR(graph_program_compilation_error, poplar_error)
PRS_DEFINE_ERROR(type_error, poplar_error)
PRS_DEFINE_ERROR(invalid_tile_mapping, poplar_error)
PRS_DEFINE_ERROR(tensor_creation_error, poplar_error)
PRS_DEFINE_ERROR(graph_cycle_error, poplar_error)
PRS_DEFINE_ERROR(link_error, poplar_error)
// poplar::runtime_error, not std::runtime_error: a run of a program failed.
PRS_DEFINE_ERROR(runtime_error, poplar_error)
PRS_DEFINE_ERROR(application_runtime_error, runtime_error)
PRS_DEFINE_ERROR(system_runtime_error, runtime_error)
PRS_DEFINE_ERROR(stream_memory_allocation_error, poplar_error)
PRS_DEFINE_ERROR(parse_error, poplar_error)
PRS_DEFINE_ERROR(no_size_specified, poplar_error)
PRS_DEFINE_ERROR(symbol_error, poplar_error)

#undef PRS_DEFINE_ERROR

namespace detail {

/// Throws the exception a failed call's status names, with the library's
/// message for this thread.
[[noreturn]] inline void throwStatus(int status) {
  const char *text = prs_last_error();
  std::string message = text != nullptr ? text : "";
  switch (status) {
  case PRS_INDEX_ERROR:
    throw index_error(message);
  case PRS_UNKNOWN_FIELD:
    throw unknown_field(message);
  case PRS_UNKNOWN_VERTEX_TYPE:
    throw unknown_vertex_type(message);
  case PRS_GRAPH_CONNECTION_ERROR:
    throw graph_connection_error(message);
  case PRS_STREAM_CONNECTION_ERROR:
    throw stream_connection_error(message);
  case PRS_INVALID_OPTION:
    throw invalid_option(message);
  case PRS_GRAPH_PROGRAM_COMPILATION_ERROR:
    throw graph_program_compilation_error(message);
  case PRS_TYPE_ERROR:
    throw type_error(message);
  case PRS_INVALID_TILE_MAPPING:
    throw invalid_tile_mapping(message);
  case PRS_TENSOR_CREATION_ERROR:
    throw tensor_creation_error(message);
  case PRS_GRAPH_CYCLE_ERROR:
    throw graph_cycle_error(message);
  case PRS_LINK_ERROR:
    throw link_error(message);
  case PRS_RUNTIME_ERROR:
    throw runtime_error(message);
  case PRS_STREAM_MEMORY_ALLOCATION_ERROR:
    throw stream_memory_allocation_error(message);
  case PRS_PARSE_ERROR:
    throw parse_error(message);
  case PRS_NO_SIZE_SPECIFIED:
    throw no_size_specified(message);
  case PRS_SYMBOL_ERROR:
    throw symbol_error(message);
  case PRS_INTERNAL:
    throw poplar_error("internal error in libpoplar (please report it): " + message);
  default:
    throw poplar_error(message);
  }
}

/// Passes a successful status through; throws for any other.
inline void check(int status) {
  if (status != PRS_OK)
    throwStatus(status);
}

/// Takes a string the library allocated: copies it and frees the original.
inline std::string takeString(char *s) {
  std::string copy = s != nullptr ? s : "";
  prs_string_free(s);
  return copy;
}

} // namespace detail
} // namespace poplar

#endif
