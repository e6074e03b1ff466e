// Compiling a graph's programs and running them on a device.
//
// An Engine owns the library's prs_engine. It is built from a Graph and its
// programs (compiled in process) or from an Executable; then the program
// loads it onto a device, binds host memory or callbacks to its streams and
// runs programs by index.
//
// Callbacks cross the C ABI as trampolines: text the running program prints
// (PrintTensor, codelet printf) is written to std::cout, so it interleaves
// with the program's own output in order, also when piped; stream
// callbacks and progress functions are called through prs_stream_callback
// and prs_progress_fn. An exception a callback throws cannot unwind through
// the library: it is kept and rethrown when the call into the library
// returns.
#ifndef PRS_POPLAR_ENGINE_HPP
#define PRS_POPLAR_ENGINE_HPP

#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Device.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/StreamCallback.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/capi.h>
#include <poplar/detail/TransitiveIncludes.hpp>
#include <poplar/exceptions.hpp>
#include <pva/pva.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace poplar {

/// Called during compilation with (step, total steps).
using ProgressFunc = std::function<void(int, int)>;

namespace detail {

/// The first exception a callback threw while the library was running it.
/// The stream callbacks of a replicated graph's replicas run on the
/// replicas' threads, so it is recorded under a lock.
class CallbackErrors {
public:
  void record() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!first_)
      first_ = std::current_exception();
  }
  bool any() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<bool>(first_);
  }
  void rethrowIfAny() {
    std::exception_ptr e;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      e = first_;
      first_ = nullptr;
    }
    if (e)
      std::rethrow_exception(e);
  }

private:
  mutable std::mutex mutex_;
  std::exception_ptr first_;
};

/// prs_output_fn: text the running program prints goes to std::cout.
inline void writeProgramOutput(void *ctx, const char *text, size_t len) {
  CallbackErrors *errors = static_cast<CallbackErrors *>(ctx);
  try {
    std::cout.write(text, static_cast<std::streamsize>(len));
    std::cout.flush();
  } catch (...) {
    errors->record();
  }
}

/// prs_progress_fn calling a ProgressFunc.
struct ProgressTrampoline {
  const ProgressFunc *progress;
  CallbackErrors errors;

  static void call(void *ctx, int step, int total) {
    ProgressTrampoline *self = static_cast<ProgressTrampoline *>(ctx);
    try {
      (*self->progress)(step, total);
    } catch (...) {
      self->errors.record();
    }
  }
};

/// A StreamCallback owned by the library: the `self` of its
/// prs_stream_callback, freed by `destroy`.
class StreamCallbackBox {
public:
  StreamCallbackBox(std::unique_ptr<StreamCallback> callback, std::shared_ptr<CallbackErrors> errors)
      : callback_(std::move(callback)), errors_(std::move(errors)) {}

  /// The trampolines; ownership of `box` passes to whoever receives them.
  static prs_stream_callback abi(StreamCallbackBox *box) {
    prs_stream_callback cb;
    cb.self = box;
    cb.prefetch = &StreamCallbackBox::prefetch;
    cb.fetch = &StreamCallbackBox::fetch;
    cb.complete = &StreamCallbackBox::complete;
    cb.destroy = &StreamCallbackBox::destroy;
    return cb;
  }

private:
  static int prefetch(void *self, void *buffer) {
    StreamCallbackBox *box = static_cast<StreamCallbackBox *>(self);
    try {
      return box->callback_->prefetch(buffer) == StreamCallback::Success ? 1 : 0;
    } catch (...) {
      box->errors_->record();
      return 0;
    }
  }
  static void fetch(void *self, void *buffer) {
    StreamCallbackBox *box = static_cast<StreamCallbackBox *>(self);
    try {
      box->callback_->fetch(buffer);
    } catch (...) {
      box->errors_->record();
    }
  }
  static void complete(void *self) {
    StreamCallbackBox *box = static_cast<StreamCallbackBox *>(self);
    try {
      box->callback_->complete();
    } catch (...) {
      box->errors_->record();
    }
  }
  static void destroy(void *self) { delete static_cast<StreamCallbackBox *>(self); }

  std::unique_ptr<StreamCallback> callback_;
  std::shared_ptr<CallbackErrors> errors_;
};

inline prs_executable *compile(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt,
                               const ProgressFunc &progress) {
  std::vector<const prs_program *> handles;
  for (const program::Program &p : progs)
    handles.push_back(p.handle());
  OptionArrays options(opt);
  ProgressTrampoline trampoline;
  trampoline.progress = &progress;
  prs_executable *exe = nullptr;
  int status = prs_compile(graph.handle(), handles.data(), handles.size(), options.keys.data(),
                           options.values.data(), options.size(), progress ? &ProgressTrampoline::call : nullptr,
                           &trampoline, &exe);
  if (status == PRS_OK && trampoline.errors.any()) {
    prs_executable_free(exe);
    exe = nullptr;
  }
  trampoline.errors.rethrowIfAny();
  check(status);
  return exe;
}

} // namespace detail

/// Compiles a graph and its programs (program i is run by Engine::run(i)).
inline Executable compileGraph(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt = {},
                               ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {}) {
  (void)debugContext;
  return Executable(detail::compile(graph, progs, opt, progressCallBack));
}

class Engine {
public:
  using ProgressFunc = poplar::ProgressFunc;

  /// Compiles the programs (program i is run by run(i)). The options go to
  /// both the compilation and the engine, as with the SDK's one option set.
  Engine(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt = {},
         ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {})
      : Engine(Executable(detail::compile(graph, progs, opt, progressCallBack)), opt) {
    (void)debugContext;
  }

  Engine(const Graph &graph, program::Program prog, const OptionFlags &opt = {},
         ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {})
      : Engine(graph, ArrayRef<program::Program>(&prog, 1), opt, progressCallBack, debugContext) {}

  /// Takes a compiled executable (it is consumed).
  Engine(Executable &&exe, const OptionFlags &opt = {})
      : engine_(nullptr), errors_(std::make_shared<detail::CallbackErrors>()) {
    detail::OptionArrays options(opt);
    detail::check(prs_engine_new(exe.release(), options.keys.data(), options.values.data(), options.size(),
                                 &engine_));
  }

  Engine(Engine &&other) noexcept : engine_(other.engine_), errors_(std::move(other.errors_)) {
    other.engine_ = nullptr;
  }
  Engine &operator=(Engine &&other) noexcept {
    std::swap(engine_, other.engine_);
    std::swap(errors_, other.errors_);
    return *this;
  }
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;
  ~Engine() {
    if (engine_ != nullptr)
      prs_engine_free(engine_);
  }

  // ---- running -------------------------------------------------------------

  void load(const Device &device) { detail::check(prs_engine_load(need(), device.handle())); }

  /// Runs program `prog`; what it prints appears on std::cout.
  void run(unsigned prog = 0, const std::string &debugName = "") {
    (void)debugName;
    // Output the host program wrote before the run comes first.
    std::cout.flush();
    std::fflush(stdout);
    int status = prs_engine_run(need(), prog, &detail::writeProgramOutput, errors_.get());
    errors_->rethrowIfAny();
    detail::check(status);
  }

  void loadAndRun(const Device &device, unsigned prog = 0) {
    load(device);
    run(prog);
  }

  /// Accepted; the library profiles as the engine options say.
  void enableExecutionProfiling() {}
  void disableExecutionProfiling() {}
  void resetExecutionProfile() {}

  // ---- host read/write handles ---------------------------------------------

  void writeTensor(StringRef handle, const void *buf, const void *bufEnd) {
    detail::check(prs_engine_write_tensor(need(), name(handle).c_str(), buf, byteDistance(buf, bufEnd)));
  }
  void readTensor(StringRef handle, void *buf, void *bufEnd) {
    detail::check(prs_engine_read_tensor(need(), name(handle).c_str(), buf, byteDistance(buf, bufEnd)));
  }
  /// The older forms: the buffer holds exactly the tensor.
  void writeTensor(StringRef handle, const void *buf) {
    std::string h = name(handle);
    detail::check(prs_engine_write_tensor(need(), h.c_str(), buf, handleBytes(h)));
  }
  void readTensor(StringRef handle, void *buf) {
    std::string h = name(handle);
    detail::check(prs_engine_read_tensor(need(), h.c_str(), buf, handleBytes(h)));
  }

  // ---- remote buffers ----------------------------------------------------------

  /// Writes repeat `repeatIndex` of a remote buffer of replica
  /// `replicationIndex` from `src` (one repeat's elements).
  void copyToRemoteBuffer(const void *src, StringRef handle, std::uint64_t repeatIndex,
                          unsigned replicationIndex = 0) {
    std::string h = name(handle);
    detail::check(prs_engine_copy_to_remote_buffer(need(), h.c_str(), repeatIndex, replicationIndex, src,
                                                   handleBytes(h)));
  }
  /// Reads repeat `repeatIndex` of a remote buffer of replica
  /// `replicationIndex` into `dst`.
  void copyFromRemoteBuffer(StringRef handle, void *dst, std::uint64_t repeatIndex, unsigned replicationIndex = 0) {
    std::string h = name(handle);
    detail::check(prs_engine_copy_from_remote_buffer(need(), h.c_str(), repeatIndex, replicationIndex, dst,
                                                     handleBytes(h)));
  }

  // ---- streams ---------------------------------------------------------------

  /// Binds a stream to host memory [begin, end), used circularly: each copy
  /// from the host reads the next transfer's worth at that moment, each copy
  /// to the host writes it. The memory must outlive the runs. In a graph of
  /// several replicas each replica has its own stream, connected with its
  /// index by the forms below; only a stream added with
  /// ReplicatedStreamMode::BROADCAST is connected here, once for all.
  void connectStream(StringRef handle, void *begin, void *end) {
    connectStream(handle, PRS_ALL_REPLICAS, begin, end);
  }
  /// Binds a stream to a buffer of exactly one transfer.
  void connectStream(StringRef handle, void *p) { connectStream(handle, PRS_ALL_REPLICAS, p); }
  /// Replica `index`'s stream (index_error past the replication factor;
  /// index 0 of a graph of one replica is its stream).
  void connectStream(StringRef handle, unsigned index, void *begin, void *end) {
    detail::check(
        prs_engine_connect_stream_replica(need(), name(handle).c_str(), index, begin, byteDistance(begin, end)));
  }
  void connectStream(StringRef handle, unsigned index, void *p) {
    std::string h = name(handle);
    detail::check(prs_engine_connect_stream_replica(need(), h.c_str(), index, p, handleBytes(h)));
  }

  /// Hands a stream to a callback object, replacing any earlier binding
  /// (in a replicated graph, a broadcast stream's one callback).
  void connectStreamToCallback(StringRef handle, std::unique_ptr<StreamCallback> f) {
    connectStreamToCallback(handle, PRS_ALL_REPLICAS, std::move(f));
  }
  /// The callback of replica `index`'s stream.
  void connectStreamToCallback(StringRef handle, unsigned index, std::unique_ptr<StreamCallback> f) {
    if (!f)
      throw stream_connection_error("connectStreamToCallback: null callback for stream '" + name(handle) + "'");
    detail::StreamCallbackBox *box = new detail::StreamCallbackBox(std::move(f), errors_);
    // The library owns the box from here, also when the call fails.
    detail::check(prs_engine_connect_stream_callback_replica(need(), name(handle).c_str(), index,
                                                             detail::StreamCallbackBox::abi(box)));
  }
  void connectStreamToCallback(StringRef handle, StreamCallbackHandle f) {
    connectStreamToCallback(handle, PRS_ALL_REPLICAS, std::move(f));
  }
  void connectStreamToCallback(StringRef handle, unsigned index, StreamCallbackHandle f) {
    connectStreamToCallback(handle, index,
                            std::unique_ptr<StreamCallback>(new detail::FunctionStreamCallback(std::move(f))));
  }

  // ---- profiling ---------------------------------------------------------------

  /// The profile summary (Target, Graph and Memory Usage sections, cycles).
  void printProfileSummary(std::ostream &outputStream, const OptionFlags &opt = {}) const {
    detail::OptionArrays options(opt);
    char *text = nullptr;
    detail::check(
        prs_engine_profile_summary(need(), options.keys.data(), options.values.data(), options.size(), &text));
    outputStream << detail::takeString(text);
  }

  /// The report so far: the graph profile's counts and, on the IPU model,
  /// the lightweight profiler's blocks of the runs (a snapshot: it
  /// outlives the engine). With `reportExecution` false, execution()
  /// throws. Throws poplar_error before load().
  pva::Report getReport(bool reportExecution = true) const {
    prs_report *r = nullptr;
    detail::check(prs_engine_report(need(), &r));
    pva::Report report(r);
    if (!reportExecution)
      return pva::Report(report.info());
    return report;
  }

  /// The C ABI engine (for the project's headers).
  prs_engine *handle() const { return need(); }

private:
  prs_engine *need() const {
    if (engine_ == nullptr)
      throw poplar_error("operation on a moved-from Engine");
    return engine_;
  }

  static std::string name(StringRef handle) { return handle.cloneAsString(); }

  static size_t byteDistance(const void *begin, const void *end) {
    const char *b = static_cast<const char *>(begin);
    const char *e = static_cast<const char *>(end);
    if (e < b)
      throw stream_connection_error("host buffer end lies before its beginning");
    return static_cast<size_t>(e - b);
  }

  /// Bytes of one transfer of a stream, or of a host read/write tensor.
  size_t handleBytes(const std::string &handle) const {
    size_t bytes = 0;
    detail::check(prs_engine_handle_bytes(need(), handle.c_str(), &bytes));
    return bytes;
  }

  prs_engine *engine_;
  std::shared_ptr<detail::CallbackErrors> errors_;
};

} // namespace poplar

#endif
