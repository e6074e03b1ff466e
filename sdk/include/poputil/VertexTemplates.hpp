// poputil::templateVertex: the name of a vertex template instance,
// "name<arg1,arg2>", with types spelt as Poplar spells them ("float",
// "unsigned int") and booleans as "true"/"false".
//
// Other argument types (a library's enums, for example) are spelt by a
// specialisation of VertexTemplateToString.
#ifndef PRS_POPUTIL_VERTEXTEMPLATES_HPP
#define PRS_POPUTIL_VERTEXTEMPLATES_HPP

#include <poplar/StringRef.hpp>
#include <poplar/Type.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace poputil {

/// How a template argument of type T is written (numbers by default).
template <typename T> struct VertexTemplateToString {
  static std::string to_string(const T &x) { return std::to_string(x); }
};
template <> struct VertexTemplateToString<bool> {
  static std::string to_string(bool x) { return x ? "true" : "false"; }
};
template <> struct VertexTemplateToString<poplar::Type> {
  static std::string to_string(const poplar::Type &x) { return x.toString(); }
};
template <> struct VertexTemplateToString<std::string> {
  static std::string to_string(const std::string &x) { return x; }
};
template <> struct VertexTemplateToString<poplar::StringRef> {
  static std::string to_string(const poplar::StringRef &x) { return x.cloneAsString(); }
};
template <> struct VertexTemplateToString<const char *> {
  static std::string to_string(const char *x) { return x; }
};
template <> struct VertexTemplateToString<char *> {
  static std::string to_string(const char *x) { return x; }
};

namespace detail {
template <typename T> std::string templateParam(const T &x) {
  return VertexTemplateToString<typename std::decay<T>::type>::to_string(x);
}
} // namespace detail

/// "name" with no arguments, else "name<a,b,...>".
template <typename... Args> std::string templateVertex(const std::string &name, Args &&...args) {
  std::vector<std::string> params = {detail::templateParam(args)...};
  if (params.empty())
    return name;
  std::string out = name + "<";
  for (std::size_t i = 0; i < params.size(); ++i)
    out += (i == 0 ? "" : ",") + params[i];
  return out + ">";
}

} // namespace poputil

#endif
