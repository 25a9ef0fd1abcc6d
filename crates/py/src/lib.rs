//! Python binding of the Rust crates: converts arguments and results, nothing else.
//! One file per area: `sim.rs` (the simulator), `delay.rs` (the testbed's delay element).
use pyo3::prelude::*;

mod capture;
mod delay;
mod sim;
mod sobas;

/// Version string of the Rust engine linked into this extension.
#[pyfunction]
fn engine_version() -> &'static str {
    bufsize_sim::ENGINE_VERSION
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    sim::register(m)?;
    delay::register(m)?;
    sobas::register(m)?;
    capture::register(m)?;
    Ok(())
}
