//! `ssdlab._ssdsim`: thin pyo3 binding of the ssdsim core. No simulation logic here,
//! only conversion: results cross as JSON text turned into Python objects by `json`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
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

/// What a Drive object simulates: one SSD, or a RAID-0 of several.
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

    fn state(&self, py: Python<'_>) -> PyResult<PyObject> {
        use ssdsim::Device;
        match &self.inner {
            Sim::One(d) => to_py(py, &d.state()),
            Sim::Raid0(a) => to_py(py, &a.state()),
        }
    }

    fn __repr__(&self) -> String {
        match &self.inner {
            Sim::One(d) => format!("<ssdsim Drive {} at t={:.3}s>", d.cfg.name, d.now_s()),
            Sim::Raid0(a) => format!("<ssdsim {} at t={:.3}s>", a.identity().preset, a.now_s()),
        }
    }
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
    m.add_class::<PyDrive>()?;
    // The bundle records the simulator version beside fio's, so runs stay comparable.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
