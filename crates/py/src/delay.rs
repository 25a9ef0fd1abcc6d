//! Binding of bufsize-delay, the testbed's userspace delay element: argument conversion only.
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;

/// Run the delay element in this process until SIGTERM/SIGINT (or `max_runtime_s`).
///
/// `entries` maps IPv4 addresses (host-order integers) to delays in nanoseconds. Returns the final
/// statistics as a JSON string. The GIL is released while the element runs.
#[pyfunction]
#[pyo3(signature = (tun_name, default_delay_ns, entries, capacity=16384, rt_priority=50,
                    lock_memory=true, stats_path=None, stats_interval_s=0.5, max_runtime_s=0.0))]
#[allow(clippy::too_many_arguments)]
fn delay_run(
    py: Python<'_>,
    tun_name: String,
    default_delay_ns: u64,
    entries: Vec<(u32, u64)>,
    capacity: usize,
    rt_priority: i32,
    lock_memory: bool,
    stats_path: Option<String>,
    stats_interval_s: f64,
    max_runtime_s: f64,
) -> PyResult<String> {
    let cfg = bufsize_delay::Config {
        tun_name,
        default_delay_ns,
        entries,
        capacity,
        rt_priority,
        lock_memory,
        stats_path,
        stats_interval_ns: (stats_interval_s.max(0.0) * 1e9) as u64,
        max_runtime_ns: (max_runtime_s.max(0.0) * 1e9) as u64,
    };
    let res = py.detach(|| bufsize_delay::run(&cfg));
    match res {
        Ok(stats) => Ok(stats.to_json("stopped")),
        Err(e) => Err(PyOSError::new_err(e)),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(delay_run, m)?)?;
    Ok(())
}
