//! Compiling and running: `Engine(graph, programs)` compiles in process as
//! the C++ API's `Engine` does; `compile_pir` compiles PIR. Data moves as
//! numpy arrays, checked against each handle's dtype and shape; a stream
//! reads and writes a connected array in place (no copy) or calls a Python
//! function per transfer. A run releases the GIL, and Ctrl-C stops it at
//! its next step (or a codelet's next loop back edge). A compile tells
//! `poplar._progress` each pass's name, which draws the progress bar.
//!
//! Trust: an executable holds native code, like a shared library; load
//! only executables you would run.

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use runtime::HostStream;
use vocab::ElemType;

use crate::device::Device;
use crate::dtype::numpy_name;
use crate::errors::{CompileError, OrRaise, StreamError};
use crate::graph::Graph;

/// A compiled graph: save it, load it, or give it to an `Engine`.
#[pyclass(module = "poplar")]
pub struct Executable {
    exe: Option<capi::engine::Executable>,
}

impl Executable {
    fn take(&mut self) -> PyResult<capi::engine::Executable> {
        self.exe.take().ok_or_else(|| PyValueError::new_err("this Executable was given to an Engine already"))
    }

    fn get(&self) -> PyResult<&capi::engine::Executable> {
        self.exe
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("this Executable was given to an Engine already"))
    }
}

#[pymethods]
impl Executable {
    /// `Executable::serialize`: bytes `Executable.deserialize` reads back.
    fn serialize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.get()?.to_bytes()))
    }

    /// Reads serialized bytes (checked; they hold native code: load only
    /// what you would run).
    #[staticmethod]
    fn deserialize(data: &[u8]) -> PyResult<Executable> {
        Ok(Executable { exe: Some(capi::engine::Executable::from_bytes(data).or_raise()?) })
    }
}

/// The compiler's progress for a `progress=` argument: `poplar._progress`
/// turns it into a function of each pass's name (`None` at the end), or
/// into nothing. An exception that function raises is reported as
/// unraisable; the compile goes on.
fn compile_progress(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<report::progress::Progress> {
    let sink = py.import("poplar._progress")?.call_method1("for_compile", (progress,))?;
    if sink.is_none() {
        return Ok(report::progress::Progress::default());
    }
    let sink = sink.unbind();
    Ok(report::progress::Progress::calling(Arc::new(move |step| {
        Python::attach(|py| {
            if let Err(e) = sink.call1(py, (step,)) {
                e.write_unraisable(py, Some(sink.bind(py)));
            }
        })
    })))
}

/// Compiles PIR: a `.pir` file's path, or PIR text (named `<pir>` in
/// diagnostics; its codelet paths resolve against the current directory).
#[pyfunction]
#[pyo3(signature = (pir, progress = None))]
pub fn compile_pir(py: Python<'_>, pir: &str, progress: Option<&Bound<'_, PyAny>>) -> PyResult<Executable> {
    let is_path = !pir.contains('\n') && std::path::Path::new(pir).is_file();
    let progress = compile_progress(py, progress)?;
    let compiled = py.detach(|| {
        let (name, bytes) = if is_path {
            let bytes = std::fs::read(pir).map_err(|source| {
                compiler::CompileError::Read { path: pir.to_string(), source }.to_string()
            })?;
            (pir, bytes)
        } else {
            ("<pir>", pir.as_bytes().to_vec())
        };
        compiler::driver::compile_source_for_run_with(name, bytes, std::path::Path::new(name), true, progress)
    });
    let (image, warnings, report) = compiled.map_err(CompileError::new_err)?;
    for w in warnings {
        py.import("warnings")?.call_method1("warn", (w,))?;
    }
    Ok(Executable {
        exe: Some(capi::engine::Executable {
            image,
            graph_profile: report,
            options: Vec::new(),
            broadcast: Vec::new(),
        }),
    })
}

/// A stream that reads or writes a numpy array's memory in place, round
/// the array circularly as the C++ API's `connectStream(name, begin, end)`.
struct ArrayStream {
    /// Keeps the array alive while the engine holds the stream.
    _array: Py<PyAny>,
    base: *mut u8,
    len: usize,
    pos: usize,
}

// SAFETY: the pointer is into the array this struct keeps alive; numpy
// refuses to resize an array that others reference, and the engine uses
// the stream on the thread that runs its replica's program only.
unsafe impl Send for ArrayStream {}

impl HostStream for ArrayStream {
    fn fill(&mut self, block: &mut [u8]) -> Result<(), String> {
        for b in block.iter_mut() {
            // SAFETY: pos < len, within the array's bytes.
            *b = unsafe { *self.base.add(self.pos) };
            self.pos = (self.pos + 1) % self.len;
        }
        Ok(())
    }

    fn drain(&mut self, block: &[u8]) -> Result<(), String> {
        for &b in block {
            // SAFETY: as in fill; the array was checked writeable.
            unsafe { *self.base.add(self.pos) = b };
            self.pos = (self.pos + 1) % self.len;
        }
        Ok(())
    }
}

/// A stream that calls a Python function per transfer: with no argument
/// for data to the device (it returns an array of the block's dtype and
/// size), with the block as an array for data to the host.
struct CallbackStream {
    f: Py<PyAny>,
    dtype: &'static str,
    shape: Vec<u64>,
}

impl CallbackStream {
    fn call(&self, block: &mut [u8], to_device: bool) -> PyResult<()> {
        Python::attach(|py| {
            let np = py.import("numpy")?;
            if to_device {
                let got = self.f.call0(py)?;
                let a = np.getattr("ascontiguousarray")?.call1((got, self.dtype))?;
                let bytes: Vec<u8> = a.call_method0("tobytes")?.extract()?;
                if bytes.len() != block.len() {
                    return Err(PyValueError::new_err(format!(
                        "the callback returned {} bytes for a transfer of {} ({} {:?})",
                        bytes.len(),
                        block.len(),
                        self.dtype,
                        self.shape
                    )));
                }
                block.copy_from_slice(&bytes);
            } else {
                let a = np.getattr("frombuffer")?.call1((PyBytes::new(py, block), self.dtype))?;
                self.f.call1(py, (a.call_method1("reshape", (self.shape.clone(),))?,))?;
            }
            Ok(())
        })
    }
}

impl HostStream for CallbackStream {
    fn fill(&mut self, block: &mut [u8]) -> Result<(), String> {
        self.call(block, true).map_err(|e| e.to_string())
    }

    fn drain(&mut self, block: &[u8]) -> Result<(), String> {
        let mut copy = block.to_vec();
        self.call(&mut copy, false).map_err(|e| e.to_string())
    }
}

/// Compiles (or takes) an executable and runs its programs on a device.
/// Used from the thread that made it (streams may hold Python objects).
#[pyclass(module = "poplar", unsendable)]
pub struct Engine {
    e: capi::engine::Engine,
}

/// `options` as (name, value) text pairs, as the C++ `OptionFlags`.
fn option_pairs(options: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, String)>> {
    let Some(d) = options else { return Ok(Vec::new()) };
    d.iter()
        .map(|(k, v)| {
            let value = match v.extract::<bool>() {
                Ok(b) => b.to_string(),
                Err(_) => v.str()?.to_string(),
            };
            Ok((k.str()?.to_string(), value))
        })
        .collect()
}

impl Engine {
    /// The element type and shape of a host handle or stream.
    fn handle_info(&self, name: &str) -> PyResult<(ElemType, Vec<u64>)> {
        let image = &self.e.executable().image;
        if let Some(h) = image.handles.iter().find(|h| h.name == name) {
            return Ok((h.elem, h.shape.clone()));
        }
        if let Some(s) = image.streams.iter().find(|s| s.name == name) {
            return Ok((s.elem, s.shape.clone()));
        }
        if let Some(b) = image.remote_buffers.iter().find(|b| b.name == name) {
            let mut shape = vec![u64::from(b.repeats)];
            shape.extend_from_slice(&b.shape);
            return Ok((b.elem, shape));
        }
        let mut known: Vec<&str> = image.handles.iter().map(|h| h.name.as_str()).collect();
        known.extend(image.streams.iter().map(|s| s.name.as_str()));
        known.extend(image.remote_buffers.iter().map(|b| b.name.as_str()));
        Err(PyValueError::new_err(format!(
            "no host handle, stream or remote buffer called '{name}' (known: {})",
            known.join(", ")
        )))
    }

    /// A remote buffer's element type and `[repeats, shape…]`, or a
    /// ValueError naming the remote buffers there are.
    fn remote_info(&self, name: &str) -> PyResult<(ElemType, Vec<u64>)> {
        let buffers = &self.e.executable().image.remote_buffers;
        if !buffers.iter().any(|b| b.name == name) {
            let known: Vec<&str> = buffers.iter().map(|b| b.name.as_str()).collect();
            return Err(PyValueError::new_err(format!(
                "no remote buffer called '{name}' (remote buffers: {})",
                known.join(", ")
            )));
        }
        self.handle_info(name)
    }

    /// The replication factor of the executable.
    fn replicas(&self) -> u32 {
        self.e.executable().image.target.replicas.max(1)
    }

    /// `array` as a C-contiguous numpy array of `name`'s dtype and shape
    /// (a view when it is one already), or a TypeError/ValueError naming it.
    fn checked_array<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        array: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (elem, shape) = self.handle_info(name)?;
        let want = numpy_name(elem)?;
        let np = py.import("numpy")?;
        let a = np.getattr("asarray")?.call1((array,))?;
        let got: String = a.getattr("dtype")?.getattr("name")?.extract()?;
        if got != want {
            return Err(PyTypeError::new_err(format!(
                "'{name}' holds {want} ({}); the array is {got} (convert it with .astype(numpy.{want}))",
                elem.cpp_name()
            )));
        }
        let got_shape: Vec<u64> = a.getattr("shape")?.extract()?;
        let n: u64 = shape.iter().product();
        let got_n: u64 = got_shape.iter().product();
        let r = u64::from(self.replicas());
        // A replicated graph's handle takes one copy for every replica, or
        // one per replica.
        let per_replica = r > 1 && got_n == n * r;
        if got_shape != shape && got_n != n && !per_replica {
            let also = match r {
                1 => String::new(),
                _ => format!(" (or {r} copies, one per replica)"),
            };
            return Err(PyValueError::new_err(format!(
                "'{name}' has shape {shape:?} ({n} elements){also}; the array has shape {got_shape:?}"
            )));
        }
        np.getattr("ascontiguousarray")?.call1((a,))
    }
}

/// The address and byte length of a C-contiguous array.
fn memory(a: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
    let iface = a.getattr("__array_interface__")?;
    let (addr, _readonly): (usize, bool) = iface.get_item("data")?.extract()?;
    Ok((addr, a.getattr("nbytes")?.extract()?))
}

#[pymethods]
impl Engine {
    /// `Engine(graph, programs, options)` compiles the graph with these
    /// programs (numbered in order); `Engine(executable, options=...)`
    /// takes a compiled one. With `device`, it is loaded there too.
    /// Unlike the C++ API, the execution profile is recorded unless
    /// `options` sets `debug.instrument` to false. `progress` draws a
    /// progress bar of the compile (see `poplar._progress`).
    #[new]
    #[pyo3(signature = (graph, programs = None, options = None, device = None, progress = None))]
    fn new(
        py: Python<'_>,
        graph: &Bound<'_, PyAny>,
        programs: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
        device: Option<PyRef<'_, Device>>,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Engine> {
        let mut pairs = option_pairs(options)?;
        if !pairs.iter().any(|(k, _)| k == "debug.instrument") {
            pairs.insert(0, ("debug.instrument".into(), "true".into()));
        }
        let exe = if let Ok(g) = graph.cast::<Graph>() {
            let named = crate::program::named_programs(programs)?;
            let g = g.borrow();
            let graph = &g.g;
            let passes = compile_progress(py, progress)?;
            // Other Python threads run while it compiles.
            py.detach(|| capi::engine::compile_named(graph, named, pairs.clone(), &|_, _| {}, passes))
                .or_raise()?
        } else if let Ok(x) = graph.cast::<Executable>() {
            x.borrow_mut().take()?
        } else {
            return Err(PyTypeError::new_err("Engine(graph, programs) or Engine(executable)"));
        };
        let mut e = Engine { e: capi::engine::Engine::new(exe, &pairs).or_raise()? };
        if let Some(d) = device {
            e.e.load(&d.inner).or_raise()?;
        }
        Ok(e)
    }

    /// `load(device)`.
    fn load(&mut self, device: &Device) -> PyResult<()> {
        self.e.load(&device.inner).or_raise()
    }

    #[getter]
    fn num_programs(&self) -> usize {
        self.e.executable().image.programs.len()
    }

    /// The executable, serialized (`Executable.deserialize` reads it).
    fn serialize_executable<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.e.executable().to_bytes())
    }

    /// `run(index)`, by number or name: what the program prints goes to
    /// `sys.stdout`. The GIL is released while it runs; Ctrl-C stops it
    /// (KeyboardInterrupt).
    #[pyo3(signature = (index = None))]
    fn run(&mut self, py: Python<'_>, index: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let programs = &self.e.executable().image.programs;
        let index = match index {
            None => 0,
            Some(i) => match i.extract::<usize>() {
                Ok(n) => n,
                Err(_) => {
                    let name: String = i.extract()?;
                    programs.iter().position(|p| p.name == name).ok_or_else(|| {
                        let known: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
                        PyValueError::new_err(format!(
                            "no program called '{name}' (programs: {})",
                            known.join(", ")
                        ))
                    })?
                }
            },
        };
        let interrupter = self.e.runtime().map(runtime::Engine::interrupter);
        let mut out: Vec<u8> = Vec::new();
        let e = &mut self.e;
        let result = {
            let _sigint = crate::sigint::Guard::install(interrupter);
            py.detach(|| e.run(index, &mut out))
        };
        if !out.is_empty() {
            let stdout = py.import("sys")?.getattr("stdout")?;
            stdout.call_method1("write", (String::from_utf8_lossy(&out),))?;
            stdout.call_method0("flush")?;
        }
        // Ctrl-C: Python's handler recorded it; raise KeyboardInterrupt.
        py.check_signals()?;
        result.or_raise()
    }

    /// `writeTensor(name, array)`: the array's dtype and shape are checked.
    fn write(&mut self, py: Python<'_>, name: &str, array: &Bound<'_, PyAny>) -> PyResult<()> {
        let a = self.checked_array(py, name, array)?;
        let (addr, len) = memory(&a)?;
        // SAFETY: `a` is a live C-contiguous array of `len` bytes at `addr`.
        let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, len) };
        self.e.write_tensor(name, bytes).or_raise()
    }

    /// `readTensor(name)` as a new numpy array of the handle's dtype and shape.
    fn read<'py>(&mut self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let (elem, mut shape) = self.handle_info(name)?;
        if self.replicas() > 1 {
            shape.insert(0, u64::from(self.replicas()));
        }
        let bytes = self.e.read_tensor(name).or_raise()?;
        let np = py.import("numpy")?;
        let buf = pyo3::types::PyByteArray::new(py, &bytes);
        np.getattr("frombuffer")?.call1((buf, numpy_name(elem)?))?.call_method1("reshape", (shape,))
    }

    /// `copyToRemoteBuffer`: writes repeat `repeat` of remote buffer `name`
    /// of replica `replica` from `array` (one repeat's elements, of the
    /// buffer's dtype).
    #[pyo3(signature = (name, array, repeat, replica = 0))]
    fn copy_to_remote_buffer(
        &mut self,
        py: Python<'_>,
        name: &str,
        array: &Bound<'_, PyAny>,
        repeat: u64,
        replica: u32,
    ) -> PyResult<()> {
        let (elem, shape) = self.remote_info(name)?;
        let want = numpy_name(elem)?;
        let a = py.import("numpy")?.getattr("ascontiguousarray")?.call1((array,))?;
        let got: String = a.getattr("dtype")?.getattr("name")?.extract()?;
        if got != want {
            return Err(PyTypeError::new_err(format!(
                "remote buffer '{name}' holds {want} ({}); the array is {got} (convert it with .astype(numpy.{want}))",
                elem.cpp_name()
            )));
        }
        let n: u64 = shape[1..].iter().product();
        let got_n: u64 = a.getattr("size")?.extract()?;
        if got_n != n {
            let got_shape: Vec<u64> = a.getattr("shape")?.extract()?;
            return Err(PyValueError::new_err(format!(
                "a repeat of remote buffer '{name}' has {n} elements; the array has shape {got_shape:?}"
            )));
        }
        let (addr, len) = memory(&a)?;
        // SAFETY: `a` is a live C-contiguous array of `len` bytes at `addr`.
        let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, len) };
        self.e.write_remote(name, repeat, replica, bytes).or_raise()
    }

    /// `copyFromRemoteBuffer`: repeat `repeat` of remote buffer `name` of
    /// replica `replica`, as a new array of one repeat's elements.
    #[pyo3(signature = (name, repeat, replica = 0))]
    fn copy_from_remote_buffer<'py>(
        &mut self,
        py: Python<'py>,
        name: &str,
        repeat: u64,
        replica: u32,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (elem, shape) = self.remote_info(name)?;
        let bytes = self.e.read_remote(name, repeat, replica).or_raise()?;
        let buf = pyo3::types::PyByteArray::new(py, &bytes);
        py.import("numpy")?
            .getattr("frombuffer")?
            .call1((buf, numpy_name(elem)?))?
            .call_method1("reshape", (shape[1..].to_vec(),))
    }

    /// `connectStream(name, array)`: the stream reads (or writes) the
    /// array in place, round it circularly; or `connectStreamToCallback`
    /// with a Python function. In a replicated graph each replica's stream
    /// is connected with its index, `replica=i`; a broadcast stream once,
    /// without one.
    #[pyo3(signature = (name, target, replica = None))]
    fn connect_stream(
        &mut self,
        py: Python<'_>,
        name: &str,
        target: &Bound<'_, PyAny>,
        replica: Option<i64>,
    ) -> PyResult<()> {
        let (elem, shape) = self.handle_info(name)?;
        let replica = match replica {
            None => None,
            Some(i) => Some(u32::try_from(i).ok().filter(|&i| i != u32::MAX).ok_or_else(|| {
                PyIndexError::new_err(format!(
                    "stream '{name}': replica {i} does not exist (the graph has {} replicas, indices 0 to {})",
                    self.replicas(),
                    self.replicas() - 1
                ))
            })?),
        };
        if target.is_callable() {
            let s = CallbackStream { f: target.clone().unbind(), dtype: numpy_name(elem)?, shape };
            return self.e.connect(name, replica, Box::new(s)).or_raise();
        }
        let np = py.import("numpy")?;
        let a = np.getattr("asarray")?.call1((target,))?;
        let got: String = a.getattr("dtype")?.getattr("name")?.extract()?;
        let want = numpy_name(elem)?;
        if got != want {
            return Err(PyTypeError::new_err(format!("stream '{name}' moves {want}; the array is {got}")));
        }
        let contiguous: bool = a.getattr("flags")?.getattr("c_contiguous")?.extract()?;
        let writeable: bool = a.getattr("flags")?.getattr("writeable")?.extract()?;
        if !contiguous || !writeable {
            return Err(StreamError::new_err(format!(
                "stream '{name}': the array must be C-contiguous and writeable (it is read and written in place)"
            )));
        }
        let (addr, len) = memory(&a)?;
        let block = self.e.handle_bytes(name).or_raise()?;
        if len == 0 || len < block {
            return Err(StreamError::new_err(format!(
                "stream '{name}': the array of {len} bytes cannot hold its transfers of {block} bytes"
            )));
        }
        let s = ArrayStream { _array: a.unbind(), base: addr as *mut u8, len, pos: 0 };
        self.e.connect(name, replica, Box::new(s)).or_raise()
    }

    /// The execution profile (cycles per program step, compute set, tile
    /// and vertex type) as parsed JSON; the `sim` device records it.
    fn execution_profile<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let r =
            self.e.runtime().ok_or_else(|| PyValueError::new_err("the engine is not loaded on a device"))?;
        let text = serde_json::to_string(&r.profile_json()).unwrap_or_default();
        py.import("json")?.call_method1("loads", (text,))
    }

    /// `Engine::getReport()`: the compilation's counts and the lightweight
    /// profiler's blocks so far, as a snapshot (`PoplarError` before the
    /// engine is loaded on a device).
    fn get_report(&self) -> PyResult<crate::report::PvaReport> {
        Ok(crate::report::PvaReport { r: capi::report::Report::of_engine(&self.e).or_raise()? })
    }

    /// The graph profile (memory per tile, vertices, compute sets) as parsed JSON.
    fn graph_profile<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = self.e.executable().graph_profile.clone().unwrap_or_else(|| "null".into());
        py.import("json")?.call_method1("loads", (text,))
    }

    /// `printProfileSummary`'s text.
    fn summary(&self) -> PyResult<String> {
        let r =
            self.e.runtime().ok_or_else(|| PyValueError::new_err("the engine is not loaded on a device"))?;
        Ok(r.summary())
    }

    /// The report page (what `poplar-report` writes) as HTML text.
    #[pyo3(signature = (title = "poplar"))]
    fn report_html(&self, title: &str) -> PyResult<String> {
        let r =
            self.e.runtime().ok_or_else(|| PyValueError::new_err("the engine is not loaded on a device"))?;
        let graph =
            r.graph_profile().ok_or_else(|| PyValueError::new_err("the executable has no graph profile"))?;
        // A device without a cycle model (`cpu`) records steps only: the
        // page then shows the graph profile alone, as poplar-report does
        // when it has no execution profile.
        let profile = r.profile_json();
        let exec: Option<report::schema::ExecutionProfile> = match serde_json::from_value(profile.clone()) {
            Ok(exec) => Some(exec),
            Err(_) if serde_json::from_value::<report::schema::StepsOnlyProfile>(profile).is_ok() => None,
            Err(e) => {
                return Err(PyValueError::new_err(format!("the execution profile cannot be read: {e}")))
            }
        };
        Ok(report::render(title, &graph, exec.as_ref()))
    }
}
