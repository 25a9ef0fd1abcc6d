//! Binding of bufsize-sim: a scenario goes in as JSON, results come out as JSON. No logic here;
//! the Python side (`bufsize.scenario`, `bufsize.simulate`) builds the JSON and reads the results.
use bufsize_sim::{Scenario, Simulation as Engine};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Mutex;

/// One run of the engine, advanced step by step.
///
/// `Simulation(scenario_json)` raises `ValueError("field: reason")` for a bad scenario.
/// `run_until(t_ns)` advances simulated time without holding the GIL; `finish()` runs to the
/// end if needed and returns the results as a JSON string (after which the object is spent).
/// The engine is `Send` but not `Sync`; the mutex makes the Python object shareable (Python
/// holds `&mut self` anyway, so the lock is never contended).
#[pyclass(name = "Simulation", module = "bufsize._engine")]
pub struct Simulation {
    inner: Mutex<Option<Engine>>,
    end_ns: u64,
    now_ns: u64,
}

fn spent() -> PyErr {
    PyRuntimeError::new_err("this Simulation has already finished")
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(scenario_json: &str) -> PyResult<Self> {
        let scenario = Scenario::from_json(scenario_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let engine = Engine::new(&scenario).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let (now_ns, end_ns) = (engine.now_ns(), engine.end_ns());
        Ok(Simulation { inner: Mutex::new(Some(engine)), end_ns, now_ns })
    }

    /// Advance simulated time to `t_ns` (nanoseconds; capped at the end). Releases the GIL.
    fn run_until(&mut self, py: Python<'_>, t_ns: u64) -> PyResult<()> {
        let inner = &self.inner;
        let now = py.detach(|| {
            let mut guard = inner.lock().unwrap_or_else(|e| e.into_inner());
            guard.as_mut().map(|engine| {
                engine.run_until(t_ns);
                engine.now_ns()
            })
        });
        self.now_ns = now.ok_or_else(spent)?;
        Ok(())
    }

    /// Current simulated time, nanoseconds.
    fn now_ns(&self) -> u64 {
        self.now_ns
    }

    /// Simulated time at which the run ends (the scenario's duration), nanoseconds.
    fn end_ns(&self) -> u64 {
        self.end_ns
    }

    /// Run to the end (GIL released) and return the results as JSON.
    fn finish(&mut self, py: Python<'_>) -> PyResult<String> {
        let engine = self.inner.get_mut().unwrap_or_else(|e| e.into_inner()).take().ok_or_else(spent)?;
        self.now_ns = self.end_ns;
        Ok(py.detach(move || engine.finish().to_json()))
    }
}

/// Names of the congestion controls the engine knows.
#[pyfunction]
fn congestion_controls() -> Vec<&'static str> {
    bufsize_sim::tcp::cc::names()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(congestion_controls, m)?)?;
    Ok(())
}
