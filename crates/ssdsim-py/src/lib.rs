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

/// One simulated SSD; state persists across calls.
#[pyclass(name = "Drive", module = "ssdlab._ssdsim")]
struct PyDrive {
    inner: ssdsim::Drive,
}

#[pymethods]
impl PyDrive {
    #[new]
    #[pyo3(signature = (preset, overrides = None, seed = 1))]
    fn new(preset: &str, overrides: Option<&Bound<'_, PyDict>>, seed: u64) -> PyResult<Self> {
        let mut ov = Vec::new();
        if let Some(d) = overrides {
            for (k, v) in d.iter() {
                ov.push((k.str()?.to_string(), v.str()?.to_string()));
            }
        }
        let inner = ssdsim::Drive::new(preset, &ov, seed).map_err(value_err)?;
        Ok(PyDrive { inner })
    }

    fn identity(&self, py: Python<'_>) -> PyResult<PyObject> {
        to_py(py, &self.inner.identity())
    }

    #[getter]
    fn now_s(&self) -> f64 {
        self.inner.now_s()
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
        let drive = &mut self.inner;
        let result = py.allow_threads(|| {
            drive.run(&spec, progress_every_s, &mut |p| {
                Python::with_gil(|py| {
                    py.check_signals().map_err(|e| describe(py, e))?;
                    if let Some(cb) = &progress {
                        let arg = to_py(py, p).map_err(|e| describe(py, e))?;
                        cb.call1(py, (arg,)).map_err(|e| describe(py, e))?;
                    }
                    Ok(())
                })
            })
        });
        to_py(py, &result.map_err(value_err)?)
    }

    fn trim(&mut self, py: Python<'_>, offset_bytes: u64, length_bytes: u64) -> PyResult<PyObject> {
        let r = self
            .inner
            .trim(offset_bytes, length_bytes)
            .map_err(value_err)?;
        to_py(py, &r)
    }

    fn purge(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let r = self.inner.purge();
        to_py(py, &r)
    }

    fn idle(&mut self, py: Python<'_>, seconds: f64) -> PyResult<PyObject> {
        let r = py.allow_threads(|| self.inner.idle(seconds));
        to_py(py, &r)
    }

    fn state(&self, py: Python<'_>) -> PyResult<PyObject> {
        to_py(py, &self.inner.state())
    }

    /// An independent copy of the drive, state and all (cheap: no compression).
    fn copy(&self) -> Self {
        PyDrive {
            inner: self.inner.clone(),
        }
    }

    /// The drive's whole state as compressed bytes (`Drive.restore` makes it again).
    fn snapshot<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = py.allow_threads(|| ssdsim::snapshot(&self.inner));
        PyBytes::new(py, &bytes)
    }

    /// The drive a snapshot was taken of; ValueError for bytes that are not one.
    #[staticmethod]
    fn restore(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let inner = py
            .allow_threads(|| ssdsim::restore(data))
            .map_err(value_err)?;
        Ok(PyDrive { inner })
    }

    fn __repr__(&self) -> String {
        format!(
            "<ssdsim Drive {} at t={:.3}s>",
            self.inner.cfg.name,
            self.inner.now_s()
        )
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
