//! Binding of bufsize-sobas, the SOBAS controller: argument conversion only. Times are integer
//! nanoseconds (e.g. `time.monotonic_ns()`), sizes bytes, rates bytes/s, RTTs seconds.
use bufsize_sobas::{Config, Sobas};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pyclass(name = "Sobas", module = "bufsize._engine")]
pub struct PySobas {
    inner: Sobas,
}

#[pymethods]
impl PySobas {
    #[new]
    #[pyo3(signature = (mss, max_buffer, *, min_buffer=None, trains=5, train_deadline_s=5.0,
                        sample_period_s=1.0, slope_samples=5, slope_tolerance=0.5, window_reached=0.9,
                        probe_memory=1000, increase_segments=2, rtt_gain=0.125, readjust=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        mss: u32,
        max_buffer: u64,
        min_buffer: Option<u64>,
        trains: usize,
        train_deadline_s: f64,
        sample_period_s: f64,
        slope_samples: usize,
        slope_tolerance: f64,
        window_reached: f64,
        probe_memory: usize,
        increase_segments: u32,
        rtt_gain: f64,
        readjust: bool,
    ) -> PyResult<Self> {
        let mut cfg = Config::new(mss, max_buffer);
        if let Some(m) = min_buffer {
            cfg.min_buffer = m;
        }
        if !(train_deadline_s.is_finite() && train_deadline_s >= 0.0) {
            return Err(PyValueError::new_err(
                "train_deadline_s: must be a finite number ≥ 0",
            ));
        }
        if !(sample_period_s.is_finite() && sample_period_s > 0.0) {
            return Err(PyValueError::new_err(
                "sample_period_s: must be a finite number > 0",
            ));
        }
        cfg.trains = trains;
        cfg.train_deadline_ns = (train_deadline_s * 1e9) as u64;
        cfg.sample_period_ns = (sample_period_s * 1e9) as u64;
        cfg.slope_samples = slope_samples;
        cfg.slope_tolerance = slope_tolerance;
        cfg.window_reached = window_reached;
        cfg.probe_memory = probe_memory;
        cfg.increase_segments = increase_segments;
        cfg.rtt_gain = rtt_gain;
        cfg.readjust = readjust;
        Sobas::new(cfg)
            .map(|inner| PySobas { inner })
            .map_err(PyValueError::new_err)
    }

    /// The receive-buffer limit to apply now (bytes).
    #[getter]
    fn limit(&self) -> u64 {
        self.inner.limit()
    }
    #[getter]
    fn phase(&self) -> &'static str {
        self.inner.phase().name()
    }
    #[getter]
    fn srtt(&self) -> Option<f64> {
        self.inner.srtt()
    }
    #[getter]
    fn capacity_estimate(&self) -> Option<f64> {
        self.inner.capacity_estimate().filter(|c| c.is_finite())
    }
    #[getter]
    fn initial_limit(&self) -> Option<u64> {
        self.inner.initial_limit()
    }
    #[getter]
    fn samples(&self) -> Vec<f64> {
        self.inner.samples()
    }
    /// (forward-path losses, probes remembered)
    #[getter]
    fn probe_losses(&self) -> (usize, usize) {
        self.inner.probe_losses()
    }
    /// The rate-saturation decisions so far, as dicts.
    fn decisions<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.inner
            .decisions()
            .iter()
            .map(|d| {
                let o = PyDict::new(py);
                o.set_item("t_ns", d.t_ns)?;
                o.set_item("rate", d.rate)?;
                o.set_item("rtt", d.rtt)?;
                o.set_item("slope", d.slope)?;
                o.set_item("threshold", d.threshold)?;
                o.set_item("probes_lost", d.probes_lost)?;
                o.set_item("congested", d.congested)?;
                o.set_item("limit", d.limit)?;
                Ok(o)
            })
            .collect()
    }
    /// Each event returns the new limit when it changed, else None.
    fn tick(&mut self, now_ns: u64) -> Option<u64> {
        self.inner.tick(now_ns)
    }
    fn on_bytes(&mut self, now_ns: u64, nbytes: u64) -> Option<u64> {
        self.inner.on_bytes(now_ns, nbytes)
    }
    fn on_rtt(&mut self, now_ns: u64, rtt_s: f64) -> Option<u64> {
        self.inner.on_rtt(now_ns, rtt_s)
    }
    fn on_train(&mut self, now_ns: u64, nbytes: u64, dispersion_ns: u64) -> Option<u64> {
        self.inner.on_train(now_ns, nbytes, dispersion_ns)
    }
    #[pyo3(signature = (now_ns, lost_forward, rtt_s=None))]
    fn on_probe(&mut self, now_ns: u64, lost_forward: bool, rtt_s: Option<f64>) -> Option<u64> {
        self.inner.on_probe(now_ns, lost_forward, rtt_s)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySobas>()?;
    Ok(())
}
