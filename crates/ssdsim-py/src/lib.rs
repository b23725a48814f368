//! `ssdlab._ssdsim`: thin pyo3 binding of the ssdsim core. No simulation logic here,
//! only conversion: results cross as JSON text turned into Python objects by `json`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde::Serialize;

/// Convert any serialisable core value into plain Python objects.
fn to_py<T: Serialize>(py: Python<'_>, value: &T) -> PyResult<PyObject> {
    let text = serde_json::to_string(value)
        .map_err(|e| PyValueError::new_err(format!("cannot convert result: {e}")))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

fn value_err(e: ssdsim::SimError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Every embedded preset: name, title, whether it is the default, and its TOML text.
#[pyfunction]
fn presets(py: Python<'_>) -> PyResult<PyObject> {
    to_py(py, &ssdsim::presets())
}

#[pyfunction]
fn default_preset() -> &'static str {
    ssdsim::DEFAULT_PRESET
}

/// The revision of the simulator's model (ssdsim::MODEL_REVISION), recorded with every run.
#[pyfunction]
fn model_revision() -> u32 {
    ssdsim::MODEL_REVISION
}

/// What a Drive object simulates: one SSD, or a RAID-0 of several.
#[derive(Clone)]
enum Sim {
    One(Box<ssdsim::Drive>),
    Raid0(ssdsim::Array),
}

/// One simulated SSD (or a RAID-0 of them); state persists across calls.
#[pyclass(name = "Drive", module = "ssdlab._ssdsim")]
struct PyDrive {
    inner: Sim,
}

fn overrides_of(overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, String)>> {
    let mut ov = Vec::new();
    if let Some(d) = overrides {
        for (k, v) in d.iter() {
            ov.push((k.str()?.to_string(), v.str()?.to_string()));
        }
    }
    Ok(ov)
}

#[pymethods]
impl PyDrive {
    #[new]
    #[pyo3(signature = (preset, overrides = None, seed = 1))]
    fn new(preset: &str, overrides: Option<&Bound<'_, PyDict>>, seed: u64) -> PyResult<Self> {
        let ov = overrides_of(overrides)?;
        let inner = ssdsim::Drive::new(preset, &ov, seed).map_err(value_err)?;
        Ok(PyDrive {
            inner: Sim::One(Box::new(inner)),
        })
    }

    /// A RAID-0 of `presets` striped in `chunk_bytes`; `overrides` apply to every member.
    #[staticmethod]
    #[pyo3(signature = (presets, chunk_bytes, overrides = None, seed = 1))]
    fn raid0(
        presets: Vec<String>,
        chunk_bytes: u64,
        overrides: Option<&Bound<'_, PyDict>>,
        seed: u64,
    ) -> PyResult<Self> {
        let ov = overrides_of(overrides)?;
        let inner = ssdsim::Array::new(&presets, &ov, seed, chunk_bytes).map_err(value_err)?;
        Ok(PyDrive {
            inner: Sim::Raid0(inner),
        })
    }

    /// `Drive(preset, overrides, seed).identity()` without building the drive
    /// (`ssdsim::Drive::describe`): the same refusals, none of the mapping tables.
    #[staticmethod]
    #[pyo3(signature = (preset, overrides = None, seed = 1))]
    fn describe(
        py: Python<'_>,
        preset: &str,
        overrides: Option<&Bound<'_, PyDict>>,
        seed: u64,
    ) -> PyResult<PyObject> {
        let ov = overrides_of(overrides)?;
        to_py(
            py,
            &ssdsim::Drive::describe(preset, &ov, seed).map_err(value_err)?,
        )
    }

    /// `Drive.raid0(…).identity()` without building the members (`ssdsim::Array::describe`).
    #[staticmethod]
    #[pyo3(signature = (presets, chunk_bytes, overrides = None, seed = 1))]
    fn describe_raid0(
        py: Python<'_>,
        presets: Vec<String>,
        chunk_bytes: u64,
        overrides: Option<&Bound<'_, PyDict>>,
        seed: u64,
    ) -> PyResult<PyObject> {
        let ov = overrides_of(overrides)?;
        let identity =
            ssdsim::Array::describe(&presets, &ov, seed, chunk_bytes).map_err(value_err)?;
        to_py(py, &identity)
    }

    fn identity(&self, py: Python<'_>) -> PyResult<PyObject> {
        match &self.inner {
            Sim::One(d) => to_py(py, &d.identity()),
            Sim::Raid0(a) => to_py(py, &a.identity()),
        }
    }

    #[getter]
    fn now_s(&self) -> f64 {
        match &self.inner {
            Sim::One(d) => d.now_s(),
            Sim::Raid0(a) => a.now_s(),
        }
    }

    /// Run one job. Progress callback errors and Ctrl-C end the run early; the
    /// partial result comes back with "interrupted": True instead of raising.
    #[pyo3(signature = (job, progress = None, progress_every_s = 1.0))]
    fn run(
        &mut self,
        py: Python<'_>,
        job: &Bound<'_, PyDict>,
        progress: Option<PyObject>,
        progress_every_s: f64,
    ) -> PyResult<PyObject> {
        let text: String = py
            .import("json")?
            .call_method1("dumps", (job,))?
            .extract()?;
        let spec = ssdsim::JobSpec::from_json(&text).map_err(value_err)?;
        let mut report = |p: &ssdsim::Progress| {
            Python::with_gil(|py| {
                py.check_signals().map_err(|e| describe(py, e))?;
                if let Some(cb) = &progress {
                    let arg = to_py(py, p).map_err(|e| describe(py, e))?;
                    cb.call1(py, (arg,)).map_err(|e| describe(py, e))?;
                }
                Ok(())
            })
        };
        match &mut self.inner {
            Sim::One(d) => {
                let r = py.allow_threads(|| d.run(&spec, progress_every_s, &mut report));
                to_py(py, &r.map_err(value_err)?)
            }
            Sim::Raid0(a) => {
                let r = py.allow_threads(|| a.run(&spec, progress_every_s, &mut report));
                to_py(py, &r.map_err(value_err)?)
            }
        }
    }

    fn trim(&mut self, py: Python<'_>, offset_bytes: u64, length_bytes: u64) -> PyResult<PyObject> {
        let r = match &mut self.inner {
            Sim::One(d) => d.trim(offset_bytes, length_bytes),
            Sim::Raid0(a) => a.trim(offset_bytes, length_bytes),
        };
        to_py(py, &r.map_err(value_err)?)
    }

    fn purge(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let r = match &mut self.inner {
            Sim::One(d) => d.purge(),
            Sim::Raid0(a) => a.purge(),
        };
        to_py(py, &r)
    }

    fn idle(&mut self, py: Python<'_>, seconds: f64) -> PyResult<PyObject> {
        let inner = &mut self.inner;
        let r = py.allow_threads(|| match inner {
            Sim::One(d) => d.idle(seconds),
            Sim::Raid0(a) => a.idle(seconds),
        });
        to_py(py, &r)
    }

    /// Open-loop replay of a trace given as little-endian column buffers (u64 ts_ns,
    /// u8 op, u64 offset, u64 length, u8 flags). Returns (summary, issue_ns, done_ns),
    /// the last two as u64 little-endian buffers relative to the replay's start.
    #[pyo3(signature = (ts_ns, op, offset, length, flags, idle_cap_ns = None))]
    #[allow(clippy::too_many_arguments)]
    fn replay<'py>(
        &mut self,
        py: Python<'py>,
        ts_ns: &[u8],
        op: &[u8],
        offset: &[u8],
        length: &[u8],
        flags: &[u8],
        idle_cap_ns: Option<u64>,
    ) -> PyResult<(PyObject, Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let ios = replay_ios(ts_ns, op, offset, length, flags)?;
        let (mut issue, mut done) = (vec![0u64; ios.len()], vec![0u64; ios.len()]);
        let drive = &mut self.inner;
        let summary = py
            .allow_threads(|| match drive {
                Sim::One(d) => ssdsim::replay(d.as_mut(), &ios, idle_cap_ns, &mut issue, &mut done),
                Sim::Raid0(a) => ssdsim::replay(a, &ios, idle_cap_ns, &mut issue, &mut done),
            })
            .map_err(value_err)?;
        Ok((
            to_py(py, &summary)?,
            le_bytes(py, &issue),
            le_bytes(py, &done),
        ))
    }

    fn state(&self, py: Python<'_>) -> PyResult<PyObject> {
        use ssdsim::Device;
        match &self.inner {
            Sim::One(d) => to_py(py, &d.state()),
            Sim::Raid0(a) => to_py(py, &a.state()),
        }
    }

    /// An independent copy of the drive, state and all (cheap: no compression).
    fn copy(&self) -> Self {
        PyDrive {
            inner: self.inner.clone(),
        }
    }

    /// The drive's whole state as compressed bytes (`Drive.restore` makes it again).
    fn snapshot<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = py.allow_threads(|| match &self.inner {
            Sim::One(d) => ssdsim::snapshot(d.as_ref()),
            Sim::Raid0(a) => ssdsim::snapshot(a),
        });
        PyBytes::new(py, &bytes)
    }

    /// The drive a snapshot was taken of; ValueError for bytes that are not one.
    #[staticmethod]
    fn restore(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let inner = py
            .allow_threads(|| match ssdsim::snapshot::kind(data)? {
                <ssdsim::Array as ssdsim::snapshot::Snapshot>::KIND => {
                    ssdsim::restore::<ssdsim::Array>(data).map(Sim::Raid0)
                }
                _ => ssdsim::restore::<ssdsim::Drive>(data).map(|d| Sim::One(Box::new(d))),
            })
            .map_err(value_err)?;
        Ok(PyDrive { inner })
    }

    fn __repr__(&self) -> String {
        match &self.inner {
            Sim::One(d) => format!("<ssdsim Drive {} at t={:.3}s>", d.cfg.name, d.now_s()),
            Sim::Raid0(a) => format!("<ssdsim {} at t={:.3}s>", a.identity().preset, a.now_s()),
        }
    }
}

fn u64s(name: &str, raw: &[u8], n: usize) -> PyResult<Vec<u64>> {
    if raw.len() != n * 8 {
        return Err(PyValueError::new_err(format!(
            "replay: {name} holds {} bytes, expected {} (u64 per I/O)",
            raw.len(),
            n * 8
        )));
    }
    // Indexed rather than chunks_exact(8): clippy 1.99 asks for as_chunks there, which needs Rust
    // 1.88, above what the extension otherwise needs (Makefile, rust-version).
    Ok((0..n)
        .map(|i| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().expect("8 bytes")))
        .collect())
}

/// The trace columns as replay records; every column must have one entry per I/O.
fn replay_ios(
    ts: &[u8],
    op: &[u8],
    offset: &[u8],
    length: &[u8],
    flags: &[u8],
) -> PyResult<Vec<ssdsim::ReplayIo>> {
    let n = op.len();
    if flags.len() != n {
        return Err(PyValueError::new_err(
            "replay: flags and op differ in length",
        ));
    }
    let (ts, off, len) = (
        u64s("ts_ns", ts, n)?,
        u64s("offset", offset, n)?,
        u64s("length", length, n)?,
    );
    Ok((0..n)
        .map(|i| ssdsim::ReplayIo {
            ts_ns: ts[i],
            op: op[i],
            offset: off[i],
            length: len[i],
            flags: flags[i],
        })
        .collect())
}

fn le_bytes<'py>(py: Python<'py>, values: &[u64]) -> Bound<'py, PyBytes> {
    let mut raw = Vec::with_capacity(values.len() * 8);
    for v in values {
        raw.extend_from_slice(&v.to_le_bytes());
    }
    PyBytes::new(py, &raw)
}

/// "ExceptionType: message" for an error raised in Python code.
fn describe(py: Python<'_>, e: PyErr) -> String {
    let name = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    let msg = e.value(py).to_string();
    if msg.is_empty() {
        name
    } else {
        format!("{name}: {msg}")
    }
}

#[pymodule]
fn _ssdsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(default_preset, m)?)?;
    m.add_function(wrap_pyfunction!(model_revision, m)?)?;
    m.add_class::<PyDrive>()?;
    // The bundle records the simulator version beside fio's, so runs stay comparable.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
