//! Binding of bufsize-delay, the testbed's userspace delay element (filled in by the testbed work).
use pyo3::prelude::*;

pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
