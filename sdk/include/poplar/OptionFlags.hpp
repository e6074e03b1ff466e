// String key/value options for engines, profile summaries and streams.
//
// Built from `{{"key", "value"}, ...}` as with the SDK. Keys are not checked
// here: the library decides which it knows (and accepts unknown ones from
// C++ programs, which pass many keys it has no use for).
#ifndef PRS_POPLAR_OPTIONFLAGS_HPP
#define PRS_POPLAR_OPTIONFLAGS_HPP

#include <poplar/StringRef.hpp>
#include <poplar/exceptions.hpp>

#include <cstddef>
#include <initializer_list>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace poplar {

class OptionFlags {
public:
  using value_type = std::pair<const std::string, std::string>;
  using initializer_list_t = std::initializer_list<value_type>;
  using iterator = std::map<std::string, std::string>::const_iterator;

  OptionFlags() {}
  OptionFlags(initializer_list_t init) { set(init); }

  /// Sets an option; a later value replaces an earlier one.
  void set(StringRef option, StringRef value) { values_[option.cloneAsString()] = value.cloneAsString(); }
  void set(initializer_list_t init) {
    for (const value_type &kv : init)
      values_[kv.first] = kv.second;
  }

  /// The value of an option; throws invalid_option when it is not set.
  StringRef at(StringRef option) const {
    std::map<std::string, std::string>::const_iterator it = values_.find(option.cloneAsString());
    if (it == values_.end())
      throw invalid_option("option '" + option.cloneAsString() + "' is not set");
    return StringRef(it->second);
  }

  void remove(StringRef option) { values_.erase(option.cloneAsString()); }
  void clear() { values_.clear(); }
  std::size_t size() const { return values_.size(); }

  iterator begin() const { return values_.begin(); }
  iterator end() const { return values_.end(); }

  bool operator==(const OptionFlags &other) const { return values_ == other.values_; }
  bool operator!=(const OptionFlags &other) const { return values_ != other.values_; }

private:
  std::map<std::string, std::string> values_;
};

inline std::ostream &operator<<(std::ostream &os, const OptionFlags &flags) {
  os << "{";
  const char *separator = "";
  for (const OptionFlags::value_type &kv : flags) {
    os << separator << kv.first << ": " << kv.second;
    separator = ", ";
  }
  return os << "}";
}

namespace detail {

/// Parallel key and value arrays for a C ABI call; valid while the flags
/// they were made from are alive and unchanged.
struct OptionArrays {
  std::vector<const char *> keys;
  std::vector<const char *> values;

  explicit OptionArrays(const OptionFlags &flags) {
    for (const OptionFlags::value_type &kv : flags) {
      keys.push_back(kv.first.c_str());
      values.push_back(kv.second.c_str());
    }
  }
  std::size_t size() const { return keys.size(); }
};

} // namespace detail
} // namespace poplar

#endif
