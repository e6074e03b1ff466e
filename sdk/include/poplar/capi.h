/* The C ABI of libpoplar (the `capi` crate): what the header-only C++ API
 * under sdk/include calls. Opaque handles, a status code per call and the
 * message of the last failure on the calling thread. Nothing here throws or
 * aborts; a Rust panic inside a call comes back as PRS_INTERNAL.
 *
 * Ownership: every `prs_x **out` handle belongs to the caller until it is
 * passed to the matching `prs_x_free`. Strings and arrays the library
 * returns are freed with `prs_string_free` / `prs_sizes_free`. Input
 * strings are NUL-terminated UTF-8 and are copied.
 *
 * This is the project's own ABI, not Poplar's: user programs use the C++
 * classes, which are compiled into the user's program from the headers. */
#ifndef POPLAR_RS_CAPI_H
#define POPLAR_RS_CAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PRS_ABI_VERSION 3

/* Status codes: 0 is success, the others name the Poplar exception class
 * the C++ side throws (poplar/exceptions.hpp). */
enum prs_status {
  PRS_OK = 0,
  PRS_POPLAR_ERROR = 1,
  PRS_INDEX_ERROR = 2,
  PRS_UNKNOWN_FIELD = 3,
  PRS_UNKNOWN_VERTEX_TYPE = 4,
  PRS_GRAPH_CONNECTION_ERROR = 5,
  PRS_STREAM_CONNECTION_ERROR = 6,
  PRS_INVALID_OPTION = 7,
  PRS_GRAPH_PROGRAM_COMPILATION_ERROR = 8,
  PRS_TYPE_ERROR = 9,
  PRS_INVALID_TILE_MAPPING = 10,
  PRS_TENSOR_CREATION_ERROR = 11,
  PRS_GRAPH_CYCLE_ERROR = 12,
  PRS_LINK_ERROR = 13,
  PRS_RUNTIME_ERROR = 14, /* a run failed: trap, timeout, unconnected stream */
  PRS_STREAM_MEMORY_ALLOCATION_ERROR = 15,
  PRS_PARSE_ERROR = 16,    /* bad serialized executable */
  PRS_NO_SIZE_SPECIFIED = 17,
  PRS_SYMBOL_ERROR = 18,
  PRS_INTERNAL = 19        /* a bug in the library (a caught panic) */
};

/* Element types (poplar::Type). Also used as host data types for values
 * passed by pointer (addConstant<T>, setInitialValue<T>, connect(f, T)). */
enum prs_type {
  PRS_BOOL = 0,
  PRS_CHAR = 1,
  PRS_UNSIGNED_CHAR = 2,
  PRS_SHORT = 3,
  PRS_UNSIGNED_SHORT = 4,
  PRS_INT = 5,
  PRS_UNSIGNED_INT = 6,
  PRS_LONGLONG = 7,
  PRS_UNSIGNED_LONGLONG = 8,
  PRS_HALF = 9,
  PRS_FLOAT = 10,
  PRS_DOUBLE = 11, /* host data only (addConstant<double>): not a tensor type */
  PRS_SIGNED_CHAR = 12,
  PRS_QUARTER = 13
};

/* Target kinds (poplar::TargetType). */
enum prs_target_type { PRS_TARGET_IPU = 0, PRS_TARGET_IPU_MODEL = 1, PRS_TARGET_CPU = 2 };

/* A target's figures. `arch` is "ipu1", "ipu2", "ipu21" or "cpu". */
typedef struct prs_target_desc {
  int32_t type; /* enum prs_target_type */
  char arch[16];
  uint32_t num_ipus;
  uint32_t tiles_per_ipu;
  uint32_t bytes_per_tile;
  uint32_t workers;
  uint32_t exchange_bytes_per_cycle;
  uint32_t sync_cycles;
  double clock_hz;
  /* The IPU-Links, each in the order of Poplar's documented values:
   * ipuLinkTopology (0 mesh, 1 torus, 2 line), ipuLinkConfiguration
   * (-1 Poplar's choice by IPU count, 0 fixedWindow, 1 slidingWindow,
   * 2 barleyTwist), syncConfiguration (0 intraReplicaAndAll, 1 ipuAndAll). */
  int32_t link_topology;
  int32_t link_configuration;
  int32_t sync_configuration;
} prs_target_desc;

typedef struct prs_graph prs_graph;
typedef struct prs_tensor prs_tensor;

/* A view that is one contiguous run of one tensor's elements, of rank 1:
 * elements offset .. offset + len - 1 (len >= 1) of the graph's tensor
 * number `tensor`, of element type `type` (enum prs_type). Plain data,
 * nothing to free: the C++ Tensor holds its commonest slice as a run
 * rather than a handle. A run stands for the handle prs_tensor_from_run
 * makes of it, and is valid where that handle would be. */
typedef struct prs_run {
  uint32_t tensor;
  int32_t type;
  uint64_t offset;
  uint64_t len;
} prs_run;
typedef struct prs_program prs_program;
typedef struct prs_engine prs_engine;
typedef struct prs_executable prs_executable;
typedef struct prs_device prs_device;

/* ---- errors and memory ---------------------------------------------- */

/* The message of the last failed call on this thread ("" if none). */
const char *prs_last_error(void);
void prs_string_free(char *s);
void prs_sizes_free(size_t *p, size_t n);
uint32_t prs_abi_version(void);

/* ---- targets and devices --------------------------------------------- */

/* The figures of an architecture ("ipu1", "ipu2", "ipu21", "cpu"). */
int prs_target_preset(const char *arch, prs_target_desc *out);
/* Sets one of Poplar's target options (ipuLinkTopology,
 * ipuLinkConfiguration, syncConfiguration); another key is PRS_INVALID_OPTION. */
int prs_target_set_option(prs_target_desc *desc, const char *key, const char *value);
/* Applies POPLAR_TARGET_OPTIONS, when set (a JSON object of target keys). */
int prs_target_env_options(prs_target_desc *desc);

/* A device on which engines run: sim (IPU model and the simulated IPUs of
 * the device manager) or cpu (Target::createCPUTarget). */
int prs_device_new_model(const prs_target_desc *target, prs_device **out);
int prs_device_new_cpu(prs_device **out);
/* The simulated IPU system of the device manager (docs/host-api.md): how
 * many devices there are, and device `id`'s target. */
int prs_device_manager_count(size_t *out);
int prs_device_manager_get(uint32_t id, prs_device **out);
/* The ids of the devices with `num_ipus` IPUs, in id order. */
int prs_device_manager_find(uint32_t num_ipus, size_t **ids, size_t *n);
void prs_device_free(prs_device *d);
int prs_device_target(const prs_device *d, prs_target_desc *out);
uint32_t prs_device_id(const prs_device *d);
/* Takes the device for this process: *ok = 0 when another process holds
 * it. Released by detach, by prs_device_free, or when the process ends. */
int prs_device_attach(prs_device *d, int *ok);
int prs_device_detach(prs_device *d);
int prs_device_is_attached(const prs_device *d);

/* ---- graphs ---------------------------------------------------------- */

int prs_graph_new(const prs_target_desc *target, uint32_t replication_factor, prs_graph **out);
void prs_graph_free(prs_graph *g);
int prs_graph_target(const prs_graph *g, prs_target_desc *out);
uint32_t prs_graph_replication_factor(const prs_graph *g);
/* A new handle of the same graph (freed with prs_graph_free; the graph
 * lives while any handle does) that sees some of `g`'s tiles, numbered
 * from 0: kind 0 is tiles a to b - 1 (createVirtualGraph(lowerTile,
 * upperTile)); 1 is the first a tiles of each IPU (numTilesPerIPU); 2 is
 * the n tiles at `tiles` of each IPU, in that order (perIpuTiles). Its
 * target is prs_graph_target's. */
int prs_graph_create_virtual(const prs_graph *g, int kind, uint32_t a, uint32_t b, const uint32_t *tiles, size_t n,
                             prs_graph **out);
/* createReplicatedGraph: the graph, still empty but for codelets, split
 * into `replication_factor` replicas; `g` can no longer add to it. */
int prs_graph_create_replicated(const prs_graph *g, uint32_t replication_factor, prs_graph **out);

/* Compiles codelets now (so fields are known at connect): a `.cpp`/`.gp`
 * path (relative to the working directory), or C++ text when is_source
 * is non-zero. `flags` is popc's command-line syntax ("-O3 -I dir -DX=1"). */
int prs_graph_add_codelets(prs_graph *g, const char *path_or_source, int is_source, const char *flags);
/* The library codelets (popops, poplin, ...): accepted, nothing to load. */
int prs_graph_has_vertex_type(const prs_graph *g, const char *vertex_type, int *out);

/* A scalar unsigned int holding each replica's own index. */
int prs_graph_add_replication_index_constant(prs_graph *g, const char *name, prs_tensor **out);
int prs_graph_add_variable(prs_graph *g, int32_t type, const size_t *shape, size_t rank, const char *name,
                           prs_tensor **out);
/* `values` holds `n` host elements of `host_type` (n = 1: every element). */
int prs_graph_add_constant(prs_graph *g, int32_t type, const size_t *shape, size_t rank, const void *values,
                           int32_t host_type, size_t n, const char *name, prs_tensor **out);
int prs_graph_set_initial_value(prs_graph *g, const prs_tensor *t, const void *values, int32_t host_type,
                                size_t n);
int prs_graph_set_tile_mapping(prs_graph *g, const prs_tensor *t, uint32_t tile);
/* poputil::mapTensorLinearly: regions of `grain` elements, at least
 * `min_per_tile` elements on a tile (0: the library's defaults). */
int prs_graph_map_linearly(prs_graph *g, const prs_tensor *t, size_t min_per_tile, size_t grain);
/* Triples (tile, begin, end) of flattened element intervals, by tile then
 * begin; `*n` is the number of size_t values (3 per interval). */
int prs_graph_get_tile_mapping(const prs_graph *g, const prs_tensor *t, int require_complete, size_t **out,
                               size_t *n);

int prs_graph_add_compute_set(prs_graph *g, const char *name, uint32_t *out);
int prs_graph_compute_set_name(const prs_graph *g, uint32_t cs, char **out);
int prs_graph_add_vertex(prs_graph *g, uint32_t cs, const char *vertex_type, uint32_t *out);
/* `field` is a field's name, or "name[i]" for entry i of a vector-list field
 * (FieldRef::operator[] in C++), here and in the other field calls. */
int prs_graph_connect(prs_graph *g, uint32_t vertex, const char *field, const prs_tensor *t);
/* prs_graph_connect of a run's view, without its handle. */
int prs_graph_connect_run(prs_graph *g, uint32_t vertex, const char *field, const prs_run *run);
int prs_graph_connect_list(prs_graph *g, uint32_t vertex, const char *field, const prs_tensor *const *ts,
                           size_t n);
/* connect(field, value) on an edge (an implicit constant) or
 * setInitialValue on a plain member: one value of host_type. */
int prs_graph_connect_value(prs_graph *g, uint32_t vertex, const char *field, const void *value,
                            int32_t host_type);
int prs_graph_set_field_size(prs_graph *g, uint32_t vertex, const char *field, size_t size);
int prs_graph_set_vertex_tile(prs_graph *g, uint32_t vertex, uint32_t tile);
int prs_graph_set_perf_estimate(prs_graph *g, uint32_t vertex, uint64_t cycles);

int prs_graph_create_host_write(prs_graph *g, const char *handle, const prs_tensor *t);
int prs_graph_create_host_read(prs_graph *g, const char *handle, const prs_tensor *t);
/* A FIFO; to_device != 0 for addHostToDeviceFIFO. Returns its index. */
int prs_graph_add_stream(prs_graph *g, const char *handle, int32_t type, size_t num_elements, int to_device,
                         uint32_t *out);
/* addHostToDeviceFIFO with ReplicatedStreamMode::BROADCAST: the
 * host-to-device stream sends every replica the same data, from one host
 * end connected without a replica index. */
int prs_graph_set_stream_broadcast(prs_graph *g, uint32_t stream);
int prs_graph_add_remote_buffer(prs_graph *g, const char *handle, int32_t type, size_t num_elements,
                                size_t repeats, uint32_t *out);
int prs_graph_add_function(prs_graph *g, const prs_program *body, uint32_t *out);
/* The graph with these programs as PIR text (debugging: POPLAR_RS_DUMP_PIR). */
int prs_graph_dump_pir(const prs_graph *g, const prs_program *const *progs, size_t n, char **out);

/* ---- tensors (views; no graph needed) -------------------------------- */

int prs_tensor_clone(const prs_tensor *t, prs_tensor **out);
void prs_tensor_free(prs_tensor *t);
int32_t prs_tensor_type(const prs_tensor *t);
size_t prs_tensor_rank(const prs_tensor *t);
/* Writes min(rank, cap) dimensions. */
size_t prs_tensor_shape(const prs_tensor *t, size_t *dims, size_t cap);
size_t prs_tensor_num_elements(const prs_tensor *t);
int prs_tensor_index(const prs_tensor *t, size_t i, prs_tensor **out);
int prs_tensor_slice(const prs_tensor *t, size_t begin, size_t end, uint32_t dim, prs_tensor **out);
/* prs_tensor_slice, giving the slice as a run in `*run` (and `*out` NULL)
 * when it is one, else as a handle in `*out`. */
int prs_tensor_slice_run(const prs_tensor *t, size_t begin, size_t end, uint32_t dim, prs_run *run,
                         prs_tensor **out);
/* The handle of a run's view. */
int prs_tensor_from_run(const prs_run *run, prs_tensor **out);
int prs_tensor_slice_multi(const prs_tensor *t, const size_t *begin, const size_t *end, size_t n,
                           prs_tensor **out);
int prs_tensor_reshape(const prs_tensor *t, const size_t *shape, size_t rank, prs_tensor **out);
int prs_tensor_dimshuffle(const prs_tensor *t, const uint32_t *perm, size_t n, prs_tensor **out);
int prs_tensor_reverse(const prs_tensor *t, uint32_t dim, prs_tensor **out);
/* broadcast(n, dim): the dimension repeated n times. */
int prs_tensor_broadcast(const prs_tensor *t, size_t n, uint32_t dim, prs_tensor **out);
int prs_tensor_subsample(const prs_tensor *t, size_t stride, uint32_t dim, prs_tensor **out);
int prs_tensor_concat(const prs_tensor *const *ts, size_t n, uint32_t dim, prs_tensor **out);
/* Whether two views share an element; whether a view repeats one. */
int prs_tensor_intersects(const prs_tensor *a, const prs_tensor *b, int *out);
int prs_tensor_contains_aliases(const prs_tensor *t, int *out);
/* Whether two handles are the same view (Tensor::operator==). */
int prs_tensor_equal(const prs_tensor *a, const prs_tensor *b);
/* A short description for messages. */
int prs_tensor_describe(const prs_tensor *t, char **out);

/* ---- programs (values: a sequence of steps) -------------------------- */

int prs_program_new(prs_program **out); /* empty Sequence */
int prs_program_clone(const prs_program *p, prs_program **out);
void prs_program_free(prs_program *p);
int prs_program_add(prs_program *seq, const prs_program *p);
int prs_program_execute(const prs_graph *g, uint32_t cs, prs_program **out);
int prs_program_copy(const prs_tensor *src, const prs_tensor *dst, prs_program **out);
int prs_program_copy_from_stream(const prs_graph *g, uint32_t stream, const prs_tensor *dst, prs_program **out);
int prs_program_copy_to_stream(const prs_graph *g, const prs_tensor *src, uint32_t stream, prs_program **out);
int prs_program_copy_from_remote(const prs_graph *g, uint32_t buffer, size_t repeat, const prs_tensor *dst,
                                 prs_program **out);
int prs_program_copy_to_remote(const prs_graph *g, const prs_tensor *src, uint32_t buffer, size_t repeat,
                               prs_program **out);
/* Copy(buffer, dst, offset) and Copy(src, buffer, offset): the tensor in
 * rows of one repeat, row i from or to repeat offset[i] (an integer tensor),
 * chosen when the program runs; an offset past the repeats copies nothing. */
int prs_program_copy_from_remote_offset(const prs_graph *g, uint32_t buffer, const prs_tensor *dst,
                                        const prs_tensor *offset, prs_program **out);
int prs_program_copy_to_remote_offset(const prs_graph *g, const prs_tensor *src, uint32_t buffer,
                                      const prs_tensor *offset, prs_program **out);
int prs_program_repeat(uint32_t count, const prs_program *body, prs_program **out);
/* RepeatWhileTrue (negate = 0) / RepeatWhileFalse (negate = 1). */
int prs_program_repeat_while(const prs_program *cond, const prs_tensor *pred, const prs_program *body, int negate,
                             prs_program **out);
int prs_program_if(const prs_tensor *pred, const prs_program *then_, const prs_program *else_, prs_program **out);
int prs_program_switch(const prs_tensor *selector, const int32_t *values, const prs_program *const *bodies,
                       size_t n, const prs_program *default_, prs_program **out);
/* PrintTensor in Poplar's layout (`title: [1.0000000 2.0000000]`); an empty
 * title stands for the tensor's name (PrintTensor(t) without a title). */
int prs_program_print_tensor(const char *title, const prs_tensor *t, prs_program **out);
int prs_program_write_undef(const prs_tensor *t, prs_program **out);
int prs_program_sync(prs_program **out);
int prs_program_call(uint32_t function, prs_program **out);
int prs_program_block(const prs_program *body, const char *name, prs_program **out);

/* ---- PopLibs operations (append to `seq`, return the output) ---------- */

/* A popops::expr tree in postfix order. */
enum prs_expr_kind {
  PRS_EXPR_PLACEHOLDER = 0, /* index: 1-based (_1, _2, ...) */
  PRS_EXPR_CONST = 1,       /* value, type (PRS_FLOAT when untyped) */
  PRS_EXPR_UNARY = 2,       /* op: enum prs_unary_op */
  PRS_EXPR_BINARY = 3,      /* op: enum prs_binary_op */
  PRS_EXPR_CAST = 4,        /* type */
  PRS_EXPR_SELECT = 5       /* after its operands a, b, c (pushed in Select(a, b, c)'s order):
                               c ? a : b, as popops::expr::Select and popops::select (the third
                               operand is the condition) */
};
enum prs_unary_op {
  PRS_U_NEG = 0, PRS_U_ABS, PRS_U_EXP, PRS_U_LOG, PRS_U_SQRT, PRS_U_TANH, PRS_U_SIGMOID, PRS_U_RELU,
  PRS_U_SQUARE, PRS_U_RSQRT, PRS_U_INV, PRS_U_NOT, PRS_U_SIGNUM, PRS_U_FLOOR, PRS_U_CEIL, PRS_U_GELU_ERF,
  PRS_U_ERF, PRS_U_SIN, PRS_U_COS, PRS_U_TAN, PRS_U_ASIN, PRS_U_CBRT, PRS_U_EXPM1, PRS_U_EXP2, PRS_U_LOG1P,
  PRS_U_IS_FINITE, PRS_U_IS_INF, PRS_U_IS_NAN, PRS_U_NEARBYINT, PRS_U_ROUND, PRS_U_TRUNC,
  PRS_U_BITWISE_NOT, PRS_U_POPCOUNT, PRS_U_CLZ
};
enum prs_binary_op {
  PRS_B_ADD = 0, PRS_B_SUB, PRS_B_MUL, PRS_B_DIV, PRS_B_MIN, PRS_B_MAX, PRS_B_POW,
  PRS_B_LT, PRS_B_LE, PRS_B_GT, PRS_B_GE, PRS_B_EQ, PRS_B_NE, PRS_B_AND, PRS_B_OR, PRS_B_REM,
  PRS_B_ATAN2, PRS_B_BITWISE_AND, PRS_B_BITWISE_OR, PRS_B_BITWISE_XOR, PRS_B_BITWISE_XNOR,
  PRS_B_SHL, PRS_B_SHR, PRS_B_SHR_SE, PRS_B_VARIANCE_TO_INV_STD_DEV, PRS_B_INV_STD_DEV_TO_VARIANCE
};
typedef struct prs_expr_node {
  int32_t kind;
  int32_t op;
  uint32_t index;
  int32_t type;
  double value;
} prs_expr_node;

/* popops::map (in_place = 0: a new tensor in *out) / mapInPlace (the
 * first input is written; *out may be NULL). */
int prs_op_map(prs_graph *g, prs_program *seq, const prs_expr_node *expr, size_t n_nodes,
               const prs_tensor *const *inputs, size_t n_inputs, int in_place, const char *name, prs_tensor **out);
int prs_op_fill(prs_graph *g, prs_program *seq, const prs_tensor *t, double value);
/* popops::reduce: into a new tensor (out_tensor NULL) or into out_tensor
 * (update != 0 adds to it); scale multiplies the result. With seq NULL the
 * reduction becomes a compute set whose id is written to *cs. */
enum prs_reduce_op { PRS_R_ADD = 0, PRS_R_MUL, PRS_R_MIN, PRS_R_MAX, PRS_R_AND, PRS_R_OR, PRS_R_SQUARE_ADD };
int prs_op_reduce(prs_graph *g, prs_program *seq, const prs_tensor *in, const prs_tensor *out_tensor,
                  const size_t *dims, size_t n_dims, int32_t op, int32_t out_type, float scale, int update,
                  const char *name, uint32_t *cs, prs_tensor **out);
int prs_op_matmul(prs_graph *g, prs_program *seq, const prs_tensor *a, const prs_tensor *b, int32_t out_type,
                  const char *name, prs_tensor **out);
/* popnn::nonLinearity: 0 relu, 1 sigmoid, 2 tanh, 3 softmax, 4 softmax_stable, 5 gelu (tanh form),
 * 6 gelu_erf. */
int prs_op_nonlinearity(prs_graph *g, prs_program *seq, int32_t kind, const prs_tensor *t, int in_place,
                        const char *name, prs_tensor **out);
/* gcl cross-replica collectives: kind 0 all-reduce, 1 reduce-scatter,
 * 2 all-gather, 3 all-to-all, 4 broadcast (from group member `root`); op
 * 0 add, 1 mean, 2 mul, 3 min, 4 max, 5 logical and, 6 logical or,
 * 7 square add (reducing kinds only); group_type 0 all, 1 consecutive,
 * 2 orthogonal, of group_size replicas. */
int prs_op_collective(prs_graph *g, prs_program *seq, int32_t kind, const prs_tensor *t, int32_t op,
                      int32_t group_type, uint32_t group_size, uint32_t root, const char *name, prs_tensor **out);
/* poprand: dist 0 uniform(a = min, b = max), 1 normal(a = mean, b = stddev),
 * 2 bernoulli(a = probability), 3 truncated normal(a = mean, b = stddev,
 * c = alpha), 4 log-uniform(a = min, b = max, c = base), 5 dropout of
 * `input` (a = keep probability, b = scale; out_type ignored). A new tensor
 * of `reference`'s shape and mapping. `seed` (two unsigned ints) with
 * `modifier`, or NULL: the graph's state that prs_op_set_seed sets and each
 * such call advances. Bad parameters: PRS_POPLAR_ERROR (the C++ header
 * throws poputil::poplibs_error); a type the distribution cannot give:
 * PRS_TYPE_ERROR. */
int prs_op_random(prs_graph *g, prs_program *seq, int32_t dist, const prs_tensor *seed, uint32_t modifier,
                  const prs_tensor *reference, const prs_tensor *input, int32_t out_type, double a, double b,
                  double c, const char *name, prs_tensor **out);
/* poprand::shapedDropout: a bernoulli(keep) mask of `reference`'s shape
 * (each dimension input's or 1), broadcast over `input`; kept elements
 * times `scale`, in input's type. Errors as prs_op_random's. */
int prs_op_shaped_dropout(prs_graph *g, prs_program *seq, const prs_tensor *seed, uint32_t modifier,
                          const prs_tensor *input, const prs_tensor *reference, double keep, double scale,
                          const char *name, prs_tensor **out);
/* poprand::setSeed: seed-less calls that follow draw as if seeded with
 * `master` (two unsigned ints) and modifiers modifier, modifier + 1, .... */
int prs_op_set_seed(prs_graph *g, prs_program *seq, const prs_tensor *master, uint32_t modifier, const char *name);

/* ---- engines --------------------------------------------------------- */

typedef void (*prs_progress_fn)(void *ctx, int step, int total);
/* Text a running program prints, handed to the host program's stdout. */
typedef void (*prs_output_fn)(void *ctx, const char *text, size_t len);

int prs_compile(const prs_graph *g, const prs_program *const *progs, size_t n, const char *const *keys,
                const char *const *values, size_t n_opts, prs_progress_fn progress, void *progress_ctx,
                prs_executable **out);
void prs_executable_free(prs_executable *e);
int prs_executable_serialize(const prs_executable *e, char **bytes, size_t *len);
void prs_bytes_free(char *bytes, size_t len);
int prs_executable_deserialize(const char *bytes, size_t len, prs_executable **out);

/* Takes the executable (it is freed by the call, on success or not). */
int prs_engine_new(prs_executable *exe, const char *const *keys, const char *const *values, size_t n_opts,
                   prs_engine **out);
void prs_engine_free(prs_engine *e);
int prs_engine_load(prs_engine *e, const prs_device *d);
int prs_engine_run(prs_engine *e, uint32_t prog, prs_output_fn output, void *output_ctx);
int prs_engine_num_programs(const prs_engine *e, size_t *out);
int prs_engine_write_tensor(prs_engine *e, const char *handle, const void *data, size_t bytes);
int prs_engine_read_tensor(prs_engine *e, const char *handle, void *data, size_t bytes);
/* Binds a stream to live host memory, used circularly: each copy from the
 * host reads it at that moment, each copy to the host writes into it. In a
 * replicated graph only a broadcast stream (prs_graph_set_stream_broadcast)
 * is connected without a replica index. */
int prs_engine_connect_stream(prs_engine *e, const char *handle, void *begin, size_t bytes);
/* The same for replica `replica`'s stream (Engine::connectStream(handle,
 * index, ...)): PRS_INDEX_ERROR past the replication factor; index 0 is the
 * stream of a graph of one replica and the one end of a broadcast stream.
 * PRS_ALL_REPLICAS as `replica` is prs_engine_connect_stream. */
#define PRS_ALL_REPLICAS 0xffffffffu
int prs_engine_connect_stream_replica(prs_engine *e, const char *handle, uint32_t replica, void *begin,
                                      size_t bytes);
/* One repeat of a remote buffer of replica `replica`, written from or read
 * into `bytes` bytes (Engine::copyToRemoteBuffer, copyFromRemoteBuffer);
 * PRS_INDEX_ERROR for a repeat or replica that does not exist. */
int prs_engine_copy_to_remote_buffer(prs_engine *e, const char *handle, uint64_t repeat, uint32_t replica,
                                     const void *data, size_t bytes);
int prs_engine_copy_from_remote_buffer(prs_engine *e, const char *handle, uint64_t repeat, uint32_t replica,
                                       void *data, size_t bytes);
/* The size in bytes of what `handle` moves: one transfer of a stream
 * (elements x element size), the whole tensor of a host read/write
 * handle, or one repeat of a remote buffer. For Engine::connectStream(handle, p) and the two-argument
 * readTensor/writeTensor. PRS_SYMBOL_ERROR for an unknown handle (as every
 * engine call taking a handle). */
int prs_engine_handle_bytes(const prs_engine *e, const char *handle, size_t *out);

/* A polymorphic StreamCallback seen from Rust. prefetch returns 1 when it
 * filled the buffer (StreamCallback::Success), 0 otherwise. */
typedef struct prs_stream_callback {
  void *self;
  int (*prefetch)(void *self, void *buffer);
  void (*fetch)(void *self, void *buffer);
  void (*complete)(void *self);
  void (*destroy)(void *self);
} prs_stream_callback;
/* Takes ownership of the callback object (destroy is called when it is
 * replaced or the engine is freed, or on failure). */
int prs_engine_connect_stream_callback(prs_engine *e, const char *handle, prs_stream_callback cb);
/* The same for replica `replica`'s stream, as prs_engine_connect_stream_replica. */
int prs_engine_connect_stream_callback_replica(prs_engine *e, const char *handle, uint32_t replica,
                                               prs_stream_callback cb);

/* printProfileSummary's text, with its options. */
int prs_engine_profile_summary(const prs_engine *e, const char *const *keys, const char *const *values,
                               size_t n_opts, char **out);

/* ---- profile reports (libpva's subset) ------------------------------ */

/* What pva::openReport answers: from `path` if it names a .json graph
 * profile, else from graph.json in the folder of `path` (where autoReport
 * writes it beside where Poplar writes profile.pop). */
typedef struct prs_report_info {
  uint64_t num_compute_sets;
  uint64_t num_vertices;
  uint32_t num_tiles;
  uint32_t num_ipus;
  char version[64];
} prs_report_info;
int prs_report_open(const char *path, prs_report_info *out);

/* What Engine::getReport() answers: a snapshot of a loaded engine's graph
 * profile and of the lightweight profiler's blocks so far (owned by the
 * caller: prs_report_free). */
typedef struct prs_report prs_report;
int prs_engine_report(const prs_engine *e, prs_report **out);
void prs_report_free(prs_report *r);
int prs_report_graph(const prs_report *r, prs_report_info *out);

/* One block: cycles of the simulator's clock, the tile that recorded it,
 * its kind, and its program's type (pva::Program::Type's order) and name
 * (valid while the report lives). */
enum {
  PRS_BLOCK_COMMON = 0,
  PRS_BLOCK_STREAM_COPY = 1,
  PRS_BLOCK_FLUSH = 2,
  PRS_BLOCK_OVERFLOW = 3
};
typedef struct prs_block {
  uint64_t cycles_from;
  uint64_t cycles_to;
  uint32_t tile;
  uint32_t kind;
  uint32_t program_type;
  const char *name;
} prs_block;
/* A tile's blocks, by the cycle they began (an enclosing block before those
 * within it). Fails on a cpu engine (it records no cycles) and for a tile
 * outside the target. */
int prs_report_num_blocks(const prs_report *r, uint32_t tile, size_t *out);
int prs_report_block(const prs_report *r, uint32_t tile, size_t index, prs_block *out);

#ifdef __cplusplus
}
#endif

#endif
