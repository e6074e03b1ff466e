// The graph a host program builds: tensors, their tile mapping, codelets,
// compute sets of vertices connected to tensors, streams and functions.
//
// A thin, move-only owner of the library's prs_graph. Every method is one C
// ABI call or a short composition of them (setTileMapping from a mapping,
// clone, addVertex with connections). Errors come back as the exception
// classes of poplar/exceptions.hpp: unknown fields at connect, unknown
// vertex types at addVertex, codelet compile errors at addCodelets.
#ifndef PRS_POPLAR_GRAPH_HPP
#define PRS_POPLAR_GRAPH_HPP

#include <poplar/ArrayRef.hpp>
#include <poplar/CodeletFileType.hpp>
#include <poplar/DataStream.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Device.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/Interval.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplar/TypeTraits.hpp>
#include <poplar/capi.h>
#include <poplar/detail/TransitiveIncludes.hpp>
#include <poplar/exceptions.hpp>

#include <cstddef>
#include <cstdint>
#include <istream>
#include <iterator>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace poplar {

/// How many replicas of a graph run side by side.
class replication_factor {
public:
  explicit replication_factor(unsigned factor) : factor_(factor) {}
  unsigned get() const { return factor_; }

private:
  unsigned factor_;
};

/// LINEAR maps a new variable across the tiles as
/// poputil::mapTensorLinearly does.
enum class VariableMappingMethod { NONE, LINEAR };

/// How Graph::clone orders the new variable: accepted, the clone always
/// keeps the source's element order and tile mapping.
enum class TensorCloneMethod {
  PRESERVE_ORDER_AND_ALIASES,
  CREATE_NEW_ORDER,
  PRESERVE_ORDER_UNLESS_ALIASES,
  GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES
};

/// Graph::serialize writes the library's PIR text whichever is asked.
enum class SerializationFormat { Binary, JSON };

class Graph {
public:
  /// For each tile, the intervals of the flattened tensor it holds.
  using TileToTensorMapping = std::vector<std::vector<Interval>>;

  /// One `{"field", tensor}` (or `{"field", {tensors...}}`) of addVertex.
  struct ConnectionDesc {
    ConnectionDesc(StringRef fieldName, Tensor t) : field(fieldName.cloneAsString()), tensors(1, t), isList(false) {}
    ConnectionDesc(StringRef fieldName, ArrayRef<Tensor> ts)
        : field(fieldName.cloneAsString()), tensors(ts.begin(), ts.end()), isList(true) {}

    std::string field;
    std::vector<Tensor> tensors;
    bool isList;
  };

  /// A graph of one replica: with a replication factor r, the target's
  /// IPUs are split into r replicas and getTarget() is one replica's.
  Graph(const Target &target, replication_factor r = replication_factor(1)) : graph_(nullptr), target_(target) {
    detail::check(prs_graph_new(&target.desc(), r.get(), &graph_));
    if (r.get() != 1) {
      prs_target_desc one = target.desc();
      detail::check(prs_graph_target(graph_, &one));
      one.type = target.desc().type;
      target_ = Target(one);
    }
  }
  Graph(const Device &device, replication_factor r = replication_factor(1)) : Graph(device.getTarget(), r) {}

  Graph(Graph &&other) noexcept : graph_(other.graph_), target_(other.target_) { other.graph_ = nullptr; }
  Graph &operator=(Graph &&other) noexcept {
    std::swap(graph_, other.graph_);
    std::swap(target_, other.target_);
    return *this;
  }
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  ~Graph() {
    if (graph_ != nullptr)
      prs_graph_free(graph_);
  }

  const Target &getTarget() const { return target_; }
  unsigned getReplicationFactor() const { return prs_graph_replication_factor(handle()); }

  /// A graph of the same tensors, compute sets and programs that sees
  /// tiles lowerTile to upperTile - 1 of this one, numbered from 0 (tile t
  /// of it is tile lowerTile + t here). Its target has those tiles: whole
  /// IPUs when the range starts and ends at IPU boundaries, else one IPU.
  /// Operations called with it place their outputs, temporaries and
  /// vertices on its tiles only.
  Graph createVirtualGraph(unsigned lowerTile, unsigned upperTile) {
    return virtualGraph(0, lowerTile, upperTile, nullptr, 0);
  }
  /// The first numTilesPerIPU tiles of each IPU.
  Graph createVirtualGraph(unsigned numTilesPerIPU) { return virtualGraph(1, numTilesPerIPU, 0, nullptr, 0); }
  /// Tiles perIpuTiles (numbered within an IPU, in that order) of each IPU,
  /// IPU by IPU.
  Graph createVirtualGraph(const std::vector<unsigned> &perIpuTiles) {
    std::vector<uint32_t> tiles(perIpuTiles.begin(), perIpuTiles.end());
    return virtualGraph(2, 0, 0, tiles.data(), tiles.size());
  }

  /// This graph, while it holds nothing but codelets, split into
  /// replicationFactor replicas of getTarget().getNumIPUs() /
  /// replicationFactor IPUs each, as Graph(target,
  /// replication_factor(replicationFactor)) splits it. The returned graph
  /// is one replica's; this one can no longer add to it.
  Graph createReplicatedGraph(unsigned replicationFactor) {
    prs_graph *out = nullptr;
    detail::check(prs_graph_create_replicated(handle(), replicationFactor, &out));
    return Graph(out, target_);
  }

  // ---- codelets ----------------------------------------------------------

  /// Compiles (or, for .gp, loads) a codelet file now, so that addVertex
  /// and connect know the vertex types. Relative paths are resolved against
  /// the working directory; `compileFlags` is popc's syntax ("-O3 -I dir").
  bool addCodelets(StringRef src, CodeletFileType type = CodeletFileType::Auto, StringRef compileFlags = "",
                   StringRef targetName = "") {
    (void)targetName;
    rejectUnsupported(type);
    std::string path = src.cloneAsString();
    std::string flags = compileFlags.cloneAsString();
    detail::check(prs_graph_add_codelets(handle(), path.c_str(), 0, flags.c_str()));
    return true;
  }

  void addCodelets(ArrayRef<std::string> xs, StringRef compileFlags = "", StringRef targetName = "") {
    for (const std::string &path : xs)
      addCodelets(path, CodeletFileType::Auto, compileFlags, targetName);
  }

  /// Codelet source text read from a stream (C++ unless `type` says C).
  void addCodelets(std::istream &stream, StringRef compileFlags = "",
                   CodeletFileType type = CodeletFileType::CppSource, StringRef targetName = "") {
    (void)targetName;
    rejectUnsupported(type);
    if (type == CodeletFileType::Object || type == CodeletFileType::Auto)
      throw poplar_error("Graph::addCodelets from a stream takes source text (CppSource or CSource)");
    std::string source((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
    std::string flags = compileFlags.cloneAsString();
    detail::check(prs_graph_add_codelets(handle(), source.c_str(), 1, flags.c_str()));
  }

  /// Whether a vertex type is known (from codelets added so far or the
  /// operation libraries).
  bool hasCodelet(StringRef vertexType) const {
    int out = 0;
    detail::check(prs_graph_has_vertex_type(handle(), vertexType.cloneAsString().c_str(), &out));
    return out != 0;
  }

  // ---- tensors -----------------------------------------------------------

  /// A scalar UNSIGNED_INT constant whose value is each replica's index.
  Tensor addReplicationIndexConstant(const DebugContext &debugContext = {}) {
    prs_tensor *out = nullptr;
    detail::check(prs_graph_add_replication_index_constant(handle(), debugContext.getPathName().c_str(), &out));
    return Tensor(out);
  }

  Tensor addVariable(const Type &type, ArrayRef<std::size_t> shape, const DebugContext &debugContext = {}) {
    prs_tensor *out = nullptr;
    detail::check(prs_graph_add_variable(handle(), type.abiTag(), shape.data(), shape.size(),
                                         debugContext.getPathName().c_str(), &out));
    return Tensor(out);
  }

  Tensor addVariable(const Type &type, ArrayRef<std::size_t> shape, VariableMappingMethod mappingMethod,
                     const DebugContext &debugContext = {}) {
    Tensor t = addVariable(type, shape, debugContext);
    if (mappingMethod == VariableMappingMethod::LINEAR)
      detail::check(prs_graph_map_linearly(handle(), t.handle(), 0, 0));
    return t;
  }

  /// A constant holding `values` (one per element).
  template <typename T>
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, ArrayRef<T> values,
                     const DebugContext &debugContext = {"<const>"}) {
    std::size_t n = numElementsOf(shape);
    if (values.size() != n)
      throw tensor_creation_error("addConstant: " + std::to_string(values.size()) + " values for a tensor of " +
                                  std::to_string(n) + " elements");
    return constant(type, shape, values.data(), detail::HostType<T>::tag(), n, debugContext);
  }

  /// A constant with every element `val`.
  template <typename T>
  typename std::enable_if<TypeTraits::isSimpleType<T>(), Tensor>::type
  addConstant(const Type &type, ArrayRef<std::size_t> shape, T val, const DebugContext &debugContext = {"<const>"}) {
    return constant(type, shape, &val, detail::HostType<T>::tag(), 1, debugContext);
  }

  /// A constant read from host memory (one value per element).
  template <typename T>
  typename std::enable_if<TypeTraits::isSimpleType<T>(), Tensor>::type
  addConstant(const Type &type, ArrayRef<std::size_t> shape, const T *values,
              const DebugContext &debugContext = {"<const>"}) {
    return constant(type, shape, values, detail::HostType<T>::tag(), numElementsOf(shape), debugContext);
  }

  /// A constant of IEEE half-precision bit patterns, every element `val`.
  Tensor addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, std::uint16_t val,
                         const DebugContext &debugContext = {"<const>"}) {
    return constant(type, shape, &val, PRS_HALF, 1, debugContext);
  }
  Tensor addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, const std::uint16_t *values,
                         const DebugContext &debugContext = {"<const>"}) {
    return constant(type, shape, values, PRS_HALF, numElementsOf(shape), debugContext);
  }

  /// A new variable of t's shape (and `type`, or t's), mapped as t is.
  Tensor clone(const Type &type, const Tensor &t, const DebugContext &debugContext = {},
               TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES) {
    (void)method;
    Tensor copy = addVariable(type, t.shape(), debugContext);
    setTileMapping(copy, getTileMapping(t, false));
    return copy;
  }
  Tensor clone(const Tensor &t, const DebugContext &debugContext = {},
               TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES) {
    return clone(t.elementType(), t, debugContext, method);
  }

  template <typename T>
  typename std::enable_if<TypeTraits::isSimpleType<T>()>::type setInitialValue(const Tensor &t, T val) {
    detail::check(prs_graph_set_initial_value(handle(), t.handle(), &val, detail::HostType<T>::tag(), 1));
  }
  template <typename T> void setInitialValue(const Tensor &t, ArrayRef<T> values) {
    detail::check(prs_graph_set_initial_value(handle(), t.handle(), values.data(), detail::HostType<T>::tag(),
                                              values.size()));
  }
  void setInitialValueHalf(const Tensor &t, std::uint16_t val) {
    detail::check(prs_graph_set_initial_value(handle(), t.handle(), &val, PRS_HALF, 1));
  }
  /// The value of a vertex's plain (non-edge) member.
  template <typename T>
  typename std::enable_if<TypeTraits::isSimpleType<T>()>::type setInitialValue(FieldRef field, T val) {
    connectValue(field, &val, detail::HostType<T>::tag());
  }

  // ---- tile mapping --------------------------------------------------------

  void setTileMapping(const Tensor &t, unsigned tileNum) {
    detail::check(prs_graph_set_tile_mapping(handle(), t.handle(), tileNum));
  }

  /// Maps each tile's intervals of the flattened tensor to that tile.
  void setTileMapping(const Tensor &t, const TileToTensorMapping &mapping) {
    Tensor flat = t.flatten();
    for (std::size_t tile = 0; tile < mapping.size(); ++tile)
      for (const Interval &region : mapping[tile])
        if (region.size() != 0)
          setTileMapping(flat.slice(region), static_cast<unsigned>(tile));
  }

  void setTileMapping(VertexRef v, unsigned tileNum) {
    detail::check(prs_graph_set_vertex_tile(handle(), v.getId(), tileNum));
  }

  /// For each tile of the target, the intervals of the flattened tensor on
  /// it. With `requireComplete`, an element without a tile is an error.
  TileToTensorMapping getTileMapping(const Tensor &t, bool requireComplete = true) const {
    size_t *triples = nullptr;
    size_t n = 0;
    detail::check(prs_graph_get_tile_mapping(handle(), t.handle(), requireComplete ? 1 : 0, &triples, &n));
    std::vector<size_t> values(triples, triples + n);
    prs_sizes_free(triples, n);
    TileToTensorMapping mapping(target_.getNumTiles());
    for (std::size_t i = 0; i + 2 < values.size(); i += 3) {
      std::size_t tile = values[i];
      if (tile >= mapping.size())
        mapping.resize(tile + 1);
      mapping[tile].push_back(Interval(values[i + 1], values[i + 2]));
    }
    return mapping;
  }

  // ---- compute sets and vertices -----------------------------------------

  ComputeSet addComputeSet(const DebugContext &debugContext = {}) {
    uint32_t id = 0;
    detail::check(prs_graph_add_compute_set(handle(), debugContext.getPathName().c_str(), &id));
    return ComputeSet(graph_, id);
  }

  VertexRef addVertex(ComputeSet cs, StringRef vertexType) {
    uint32_t id = 0;
    detail::check(prs_graph_add_vertex(handle(), cs.getId(), vertexType.cloneAsString().c_str(), &id));
    return VertexRef(graph_, id);
  }

  /// A vertex with its fields connected: `{{"in", t}, {"outs", {a, b}}}`.
  VertexRef addVertex(ComputeSet cs, StringRef vertexType, ArrayRef<ConnectionDesc> connections) {
    VertexRef v = addVertex(cs, vertexType);
    for (const ConnectionDesc &c : connections) {
      if (c.isList)
        connect(v[c.field], c.tensors);
      else
        connect(v[c.field], c.tensors.front());
    }
    return v;
  }

  void connect(FieldRef field, const Tensor &tensor) {
    if (const prs_run *run = tensor.run()) {
      detail::check(prs_graph_connect_run(handle(), field.getVertex().getId(), field.name().c_str(), run));
      return;
    }
    detail::check(prs_graph_connect(handle(), field.getVertex().getId(), field.name().c_str(), tensor.handle()));
  }

  /// A vector-list field (`Vector<Input<...>>`), one tensor per entry.
  void connect(FieldRef field, ArrayRef<Tensor> tensors) {
    std::vector<const prs_tensor *> handles;
    for (const Tensor &t : tensors)
      handles.push_back(t.handle());
    detail::check(prs_graph_connect_list(handle(), field.getVertex().getId(), field.name().c_str(), handles.data(),
                                         handles.size()));
  }

  /// A scalar on an edge field becomes a constant tensor; on a plain member
  /// it is the member's value.
  template <typename T> typename std::enable_if<TypeTraits::isSimpleType<T>()>::type connect(FieldRef field, T v) {
    connectValue(field, &v, detail::HostType<T>::tag());
  }

  void setFieldSize(FieldRef field, std::size_t size) {
    detail::check(prs_graph_set_field_size(handle(), field.getVertex().getId(), field.name().c_str(), size));
  }

  /// The cycles the IPU model charges for the vertex (flops are ignored).
  void setPerfEstimate(const VertexRef &v, std::uint64_t cycles, std::uint64_t flops = 0) {
    (void)flops;
    detail::check(prs_graph_set_perf_estimate(handle(), v.getId(), cycles));
  }

  // ---- host transfers ------------------------------------------------------

  void createHostWrite(StringRef handle, const Tensor &t, bool rearrangeOnHost = false) {
    (void)rearrangeOnHost;
    detail::check(prs_graph_create_host_write(this->handle(), handle.cloneAsString().c_str(), t.handle()));
  }

  void createHostRead(StringRef handle, const Tensor &t, bool rearrangeOnHost = false) {
    (void)rearrangeOnHost;
    detail::check(prs_graph_create_host_read(this->handle(), handle.cloneAsString().c_str(), t.handle()));
  }

  /// In a replicated graph, REPLICATE gives each replica its own stream
  /// (connected with Engine::connectStream(handle, replica, ...)) and
  /// BROADCAST one stream whose data every replica receives (connected
  /// without a replica index).
  DataStream addHostToDeviceFIFO(StringRef handle, const Type &elementType, std::size_t numElements,
                                 ReplicatedStreamMode replicatedMode = ReplicatedStreamMode::REPLICATE,
                                 const OptionFlags &options = {}) {
    (void)options;
    DataStream s = stream(handle, elementType, numElements, DataStreamType::HostToDeviceFIFO);
    if (replicatedMode == ReplicatedStreamMode::BROADCAST)
      detail::check(prs_graph_set_stream_broadcast(this->handle(), s.index()));
    return s;
  }

  DataStream addDeviceToHostFIFO(StringRef handle, const Type &elementType, std::size_t numElements,
                                 const OptionFlags &options = {}) {
    (void)options;
    return stream(handle, elementType, numElements, DataStreamType::DeviceToHostFIFO);
  }

  RemoteBuffer addRemoteBuffer(StringRef handle, const Type &elementType, std::size_t numElements,
                               std::size_t repeats = 1, bool rearrangeOnHost = false, bool optimiseMemory = false) {
    (void)rearrangeOnHost;
    (void)optimiseMemory;
    std::string name = handle.cloneAsString();
    uint32_t index = 0;
    detail::check(
        prs_graph_add_remote_buffer(this->handle(), name.c_str(), elementType.abiTag(), numElements, repeats, &index));
    return RemoteBuffer(graph_, index, name, elementType, numElements, repeats);
  }

  // ---- functions -----------------------------------------------------------

  Function addFunction(const program::Program &program) {
    uint32_t id = 0;
    detail::check(prs_graph_add_function(handle(), program.handle(), &id));
    return Function(graph_, id);
  }

  // ---- debugging -----------------------------------------------------------

  /// Writes the graph as the library's PIR text (not Poplar's format).
  void serialize(std::ostream &out, SerializationFormat format) const {
    serialize(out, ArrayRef<program::Program>(), format);
  }
  void serialize(std::ostream &out, ArrayRef<program::Program> progs, SerializationFormat format) const {
    (void)format;
    std::vector<const prs_program *> handles;
    for (const program::Program &p : progs)
      handles.push_back(p.handle());
    char *text = nullptr;
    detail::check(prs_graph_dump_pir(handle(), handles.data(), handles.size(), &text));
    out << detail::takeString(text);
  }

  /// The C ABI graph (for the project's headers).
  prs_graph *handle() { return need(); }
  const prs_graph *handle() const { return need(); }

private:
  /// A handle the library made, with the target it reports (of the kind
  /// of `like`: a device's or a model's).
  Graph(prs_graph *g, const Target &like) : graph_(g), target_(like) {
    prs_target_desc desc = like.desc();
    detail::check(prs_graph_target(graph_, &desc));
    desc.type = like.desc().type;
    target_ = Target(desc);
  }

  Graph virtualGraph(int kind, unsigned a, unsigned b, const uint32_t *tiles, std::size_t n) const {
    prs_graph *out = nullptr;
    detail::check(prs_graph_create_virtual(handle(), kind, a, b, tiles, n, &out));
    return Graph(out, target_);
  }

  prs_graph *need() const {
    if (graph_ == nullptr)
      throw poplar_error("operation on a moved-from Graph");
    return graph_;
  }

  static std::size_t numElementsOf(ArrayRef<std::size_t> shape) {
    std::size_t n = 1;
    for (std::size_t d : shape)
      n *= d;
    return n;
  }

  static void rejectUnsupported(CodeletFileType type) {
    if (type == CodeletFileType::AsmSource || type == CodeletFileType::PreprocessedAsmSource ||
        type == CodeletFileType::IrSource)
      throw graph_program_compilation_error("assembly and IR codelets are not supported (see docs/host-api.md)");
  }

  Tensor constant(const Type &type, ArrayRef<std::size_t> shape, const void *values, int32_t hostType, std::size_t n,
                  const DebugContext &debugContext) {
    prs_tensor *out = nullptr;
    detail::check(prs_graph_add_constant(handle(), type.abiTag(), shape.data(), shape.size(), values, hostType, n,
                                         debugContext.getPathName().c_str(), &out));
    return Tensor(out);
  }

  void connectValue(const FieldRef &field, const void *value, int32_t hostType) {
    detail::check(
        prs_graph_connect_value(handle(), field.getVertex().getId(), field.name().c_str(), value, hostType));
  }

  DataStream stream(StringRef handle, const Type &elementType, std::size_t numElements, DataStreamType type) {
    std::string name = handle.cloneAsString();
    uint32_t index = 0;
    int toDevice = type == DataStreamType::HostToDeviceFIFO ? 1 : 0;
    detail::check(prs_graph_add_stream(this->handle(), name.c_str(), elementType.abiTag(), numElements, toDevice,
                                       &index));
    return DataStream(graph_, index, name, elementType, numElements, type);
  }

  prs_graph *graph_;
  Target target_;
};

} // namespace poplar

#endif
