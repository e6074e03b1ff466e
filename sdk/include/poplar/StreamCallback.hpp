// Host code that produces or consumes a stream's data when the program
// asks for it, instead of a bound host buffer.
//
// Engine::connectStreamToCallback takes ownership of one of these. The
// library calls fetch (and prefetch, where it can ask ahead) with a buffer
// of one transfer, then complete once the transfer has been used.
#ifndef PRS_POPLAR_STREAMCALLBACK_HPP
#define PRS_POPLAR_STREAMCALLBACK_HPP

#include <functional>
#include <utility>

namespace poplar {

class StreamCallback {
public:
  /// Whether prefetch filled the buffer.
  enum Result { Success, NotAvailable };

  virtual ~StreamCallback() {}

  /// Fill `p` ahead of the transfer if the data is ready.
  virtual Result prefetch(void *p) = 0;
  /// Fill `p` now (the transfer is happening and prefetch did not fill it).
  virtual void fetch(void *p) = 0;
  /// The last buffer filled has been consumed.
  virtual void complete() = 0;
  /// Forget a prefetched buffer that will not be used.
  virtual void invalidatePrefetched() {}
};

/// A callback that only provides fetch: it never prefetches.
class LegacyStreamCallback : public StreamCallback {
public:
  Result prefetch(void *p) final override {
    (void)p;
    return NotAvailable;
  }
  void complete() final override {}
  void invalidatePrefetched() final override {}
};

/// A stream callback as a plain function of the buffer.
using StreamCallbackHandle = std::function<void(void *)>;

namespace detail {
/// A LegacyStreamCallback calling a function (Engine::connectStreamToCallback
/// with a StreamCallbackHandle).
class FunctionStreamCallback : public LegacyStreamCallback {
public:
  explicit FunctionStreamCallback(StreamCallbackHandle f) : f_(std::move(f)) {}
  void fetch(void *p) override { f_(p); }

private:
  StreamCallbackHandle f_;
};
} // namespace detail

} // namespace poplar

#endif
