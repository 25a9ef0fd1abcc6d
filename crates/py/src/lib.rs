//! Python binding of the engine: converts arguments and results, nothing else.
use pyo3::prelude::*;

/// Version string of the Rust engine linked into this extension.
#[pyfunction]
fn engine_version() -> &'static str {
    bufsize_sim::ENGINE_VERSION
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    Ok(())
}
