// Control programs: the steps an engine runs, as values.
//
// A Program is a tree the library holds; the C++ object owns a handle and
// copies deep (through prs_program_clone), so `progs[i] = seq` copies and a
// finished Sequence can go inside a Repeat or another Sequence. The
// subclasses are only constructors: each builds its node through one C ABI
// call, and slicing one into a Program loses nothing.
#ifndef PRS_POPLAR_PROGRAM_HPP
#define PRS_POPLAR_PROGRAM_HPP

#include <poplar/DataStream.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/SyncType.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

namespace poplar {
namespace program {

class Program {
public:
  /// An empty program (it does nothing).
  Program() : program_(nullptr) { detail::check(prs_program_new(&program_)); }
  /// Takes ownership of a C ABI program (for the project's headers).
  explicit Program(prs_program *owned) : program_(owned) {}

  Program(const Program &other) : program_(nullptr) {
    if (other.program_ != nullptr)
      detail::check(prs_program_clone(other.program_, &program_));
  }
  Program(Program &&other) noexcept : program_(other.program_) { other.program_ = nullptr; }
  Program &operator=(const Program &other) {
    Program copy(other);
    std::swap(program_, copy.program_);
    return *this;
  }
  Program &operator=(Program &&other) noexcept {
    std::swap(program_, other.program_);
    return *this;
  }
  ~Program() {
    if (program_ != nullptr)
      prs_program_free(program_);
  }

  /// The C ABI program (for the project's headers).
  const prs_program *handle() const { return need(); }
  prs_program *handle() { return need(); }

protected:
  /// Replaces the tree this object holds by a newly built one.
  void adopt(prs_program *owned) {
    if (program_ != nullptr)
      prs_program_free(program_);
    program_ = owned;
  }

private:
  prs_program *need() const {
    if (program_ == nullptr)
      throw poplar_error("operation on a moved-from Program");
    return program_;
  }

  prs_program *program_;
};

namespace detail {
/// Runs a C ABI constructor of programs and returns what it built.
template <typename F> prs_program *build(F call) {
  prs_program *out = nullptr;
  poplar::detail::check(call(&out));
  return out;
}
} // namespace detail

/// Programs run one after another.
class Sequence : public Program {
public:
  Sequence(const DebugContext &debugContext = {}) { (void)debugContext; }
  Sequence(std::initializer_list<Program> programs, const DebugContext &debugContext = {}) {
    (void)debugContext;
    for (const Program &p : programs)
      add(p);
  }

  /// Appends a copy of `p`.
  void add(const Program &p) { poplar::detail::check(prs_program_add(handle(), p.handle())); }
};

/// Runs the vertices of a compute set.
class Execute : public Program {
public:
  explicit Execute(ComputeSet cs, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_execute(cs.graphHandle(), cs.getId(), out);
        })) {
    (void)debugContext;
  }
};

/// Copies between tensors, streams and remote buffers.
class Copy : public Program {
public:
  Copy(Tensor src, Tensor dst, bool dontOutline = false, const DebugContext &debugContext = {})
      : Program(detail::build(
            [&](prs_program **out) { return prs_program_copy(src.handle(), dst.handle(), out); })) {
    (void)dontOutline;
    (void)debugContext;
  }

  Copy(const DataStream &stream, Tensor dst, bool optimiseMemory = false, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_copy_from_stream(stream.graphHandle(), stream.index(), dst.handle(), out);
        })) {
    (void)optimiseMemory;
    (void)debugContext;
  }

  Copy(Tensor src, const DataStream &stream, bool optimiseMemory = false, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_copy_to_stream(stream.graphHandle(), src.handle(), stream.index(), out);
        })) {
    (void)optimiseMemory;
    (void)debugContext;
  }

  /// Reads slot 0 of a remote buffer.
  Copy(const RemoteBuffer &buffer, Tensor dst, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_copy_from_remote(buffer.graphHandle(), buffer.index(), 0, dst.handle(), out);
        })) {
    (void)debugContext;
  }

  /// Writes slot 0 of a remote buffer.
  Copy(Tensor src, const RemoteBuffer &buffer, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_copy_to_remote(buffer.graphHandle(), src.handle(), buffer.index(), 0, out);
        })) {
    (void)debugContext;
  }

  /// Repeats of a remote buffer chosen when the program runs: `dst` in rows
  /// of one repeat, row i read from repeat offset[i] (an integer tensor of
  /// one element per row). An offset past the buffer's repeats copies
  /// nothing into its row.
  Copy(const RemoteBuffer &buffer, Tensor dst, const Tensor &offset, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_copy_from_remote_offset(buffer.graphHandle(), buffer.index(), dst.handle(),
                                                     offset.handle(), out);
        })) {
    (void)debugContext;
  }
  /// `src` in rows of one repeat, row i written to repeat offset[i].
  Copy(Tensor src, const RemoteBuffer &buffer, const Tensor &offset, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_copy_to_remote_offset(buffer.graphHandle(), src.handle(), buffer.index(),
                                                   offset.handle(), out);
        })) {
    (void)debugContext;
  }
};

/// Runs a program `count` times.
class Repeat : public Program {
public:
  Repeat(unsigned count, const Program &prog, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) { return prs_program_repeat(count, prog.handle(), out); })) {
    (void)debugContext;
  }
};

/// Runs `cond`, then `body` while `predicate` is true (non-zero).
class RepeatWhileTrue : public Program {
public:
  RepeatWhileTrue(const Program &cond, Tensor predicate, const Program &body, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_repeat_while(cond.handle(), predicate.handle(), body.handle(), 0, out);
        })) {
    (void)debugContext;
  }
};

/// Runs `cond`, then `body` while `predicate` is false (zero).
class RepeatWhileFalse : public Program {
public:
  RepeatWhileFalse(const Program &cond, Tensor predicate, const Program &body,
                   const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_repeat_while(cond.handle(), predicate.handle(), body.handle(), 1, out);
        })) {
    (void)debugContext;
  }
};

/// Runs one of two programs on a scalar predicate.
class If : public Program {
public:
  If(Tensor predicate, const Program &trueBody, const DebugContext &debugContext = {})
      : If(predicate, trueBody, Program(), debugContext) {}
  If(Tensor predicate, const Program &trueBody, const Program &falseBody, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_if(predicate.handle(), trueBody.handle(), falseBody.handle(), out);
        })) {
    (void)debugContext;
  }
};

/// Runs the case whose value equals a scalar integer tensor, or the default.
class Switch : public Program {
public:
  using Case = std::pair<std::int32_t, Program>;

  Switch(Tensor control, const DebugContext &debugContext = {}) : Switch(control, Program(), debugContext) {}
  Switch(Tensor control, const Program &defaultBody, const DebugContext &debugContext = {})
      : control_(control), default_(defaultBody) {
    (void)debugContext;
    rebuild();
  }
  Switch(Tensor control, const std::vector<Case> &cases, const DebugContext &debugContext = {})
      : Switch(control, cases, Program(), debugContext) {}
  Switch(Tensor control, const std::vector<Case> &cases, const Program &defaultBody,
         const DebugContext &debugContext = {})
      : control_(control), cases_(cases), default_(defaultBody) {
    (void)debugContext;
    rebuild();
  }

  Switch &add(std::int32_t value, const Program &body) {
    cases_.push_back(Case(value, body));
    rebuild();
    return *this;
  }

private:
  // The library builds a switch in one call; adding a case rebuilds it.
  void rebuild() {
    std::vector<std::int32_t> values;
    std::vector<const prs_program *> bodies;
    for (const Case &c : cases_) {
      values.push_back(c.first);
      bodies.push_back(c.second.handle());
    }
    adopt(detail::build([&](prs_program **out) {
      return prs_program_switch(control_.handle(), values.data(), bodies.data(), values.size(), default_.handle(),
                                out);
    }));
  }

  Tensor control_;
  std::vector<Case> cases_;
  Program default_;
};

/// Runs a function added with Graph::addFunction.
class Call : public Program {
public:
  explicit Call(Function f, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) { return prs_program_call(f.getId(), out); })) {
    (void)debugContext;
  }
};

/// Prints a tensor's values while the program runs, in Poplar's layout
/// (`title: [1.0000000 2.0000000]`).
class PrintTensor : public Program {
public:
  /// Titled with the tensor's name.
  explicit PrintTensor(Tensor t, const DebugContext &debugContext = {}) : PrintTensor("", t, debugContext) {}
  PrintTensor(StringRef title, Tensor t, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_print_tensor(title.cloneAsString().c_str(), t.handle(), out);
        })) {
    (void)debugContext;
  }
};

/// Marks a tensor's contents as undefined from here on.
class WriteUndef : public Program {
public:
  explicit WriteUndef(Tensor t, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) { return prs_program_write_undef(t.handle(), out); })) {
    (void)debugContext;
  }
};

/// Waits until every tile (or IPU) reaches this point.
class Sync : public Program {
public:
  explicit Sync(SyncType type, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) { return prs_program_sync(out); })) {
    (void)type;
    (void)debugContext;
  }
};

/// A program named as a region for profiling.
class Block : public Program {
public:
  Block(const Program &p, const DebugContext &debugContext = {})
      : Program(detail::build([&](prs_program **out) {
          return prs_program_block(p.handle(), debugContext.getPathName().c_str(), out);
        })) {}
};

} // namespace program
} // namespace poplar

#endif
