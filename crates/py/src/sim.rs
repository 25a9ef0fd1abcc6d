//! Binding of bufsize-sim: a scenario goes in as JSON, results come out as JSON. No logic here;
//! the Python side (`bufsize.scenario`, `bufsize.simulate`) builds the JSON and reads the results.
//!
//! A panic inside the engine (a bug) must not reach the user as a Rust backtrace: every call into
//! the engine runs under `catch_unwind`, and the panic becomes `EngineError` with one line saying
//! what the engine was doing, the panic's message and where it happened. The engine is dropped after
//! a panic (its state is no longer trustworthy).
use bufsize_sim::{Scenario, Simulation as Engine};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Mutex, Once};

pyo3::create_exception!(
    _engine,
    EngineError,
    PyRuntimeError,
    "The engine failed inside (a bug, not a bad scenario); the message is one line."
);

thread_local! {
    /// The message and place of the last panic on this thread, recorded by the hook.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replace the default panic hook (which prints the message and a backtrace hint on stderr) with
/// one that records the message for `guarded`; with `BUFSIZE_ENGINE_BACKTRACE` set, the default hook runs
/// too (for whoever debugs the engine).
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let text = format!("{}{at}", payload_text(info.payload()));
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
            if std::env::var_os("BUFSIZE_ENGINE_BACKTRACE").is_some() {
                previous(info);
            }
        }));
    });
}

fn payload_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// The one-line message of a panic caught while the engine was `doing` something.
fn panic_message(doing: &str, payload: Box<dyn Any + Send>) -> String {
    let detail = LAST_PANIC
        .with(|p| p.borrow_mut().take())
        .unwrap_or_else(|| payload_text(&*payload));
    let detail = detail.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("the simulator failed while {doing}: {detail} (an engine bug: please report it with the scenario)")
}

/// Run `f`, turning a panic into the message of an `EngineError`.
fn guarded<T>(doing: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    LAST_PANIC.with(|p| p.borrow_mut().take());
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(doing, payload))
}

/// One run of the engine, advanced step by step.
///
/// `Simulation(scenario_json)` raises `ValueError("field: reason")` for a bad scenario.
/// `run_until(t_ns)` advances simulated time without holding the GIL; `finish()` runs to the
/// end if needed and returns the results as a JSON string (after which the object is spent).
/// A panic inside the engine raises `EngineError` (one line) and spends the object.
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
        let built = guarded("reading the scenario", || {
            let scenario = Scenario::from_json(scenario_json).map_err(|e| e.to_string())?;
            Engine::new(&scenario).map_err(|e| e.to_string())
        })
        .map_err(EngineError::new_err)?;
        let engine = built.map_err(PyValueError::new_err)?;
        let (now_ns, end_ns) = (engine.now_ns(), engine.end_ns());
        Ok(Simulation {
            inner: Mutex::new(Some(engine)),
            end_ns,
            now_ns,
        })
    }

    /// Advance simulated time to `t_ns` (nanoseconds; capped at the end). Releases the GIL.
    fn run_until(&mut self, py: Python<'_>, t_ns: u64) -> PyResult<()> {
        let inner = &self.inner;
        let now = py.detach(|| {
            let mut guard = inner.lock().unwrap_or_else(|e| e.into_inner());
            let engine = guard.as_mut()?;
            let r = guarded("simulating", || {
                engine.run_until(t_ns);
                engine.now_ns()
            });
            if r.is_err() {
                *guard = None; // half-updated state: never run it again
            }
            Some(r)
        });
        match now {
            None => Err(spent()),
            Some(Ok(now)) => {
                self.now_ns = now;
                Ok(())
            }
            Some(Err(msg)) => Err(EngineError::new_err(msg)),
        }
    }

    /// The bottleneck's counters over the measurement window so far, as a dict: `now_ns`,
    /// `window_s`, `bits`, `rate_bps`, `arrivals`, `drops`, `queue_area_packet_s`.
    fn window_so_far<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let w = {
            let mut guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            let engine = guard.as_mut().ok_or_else(spent)?;
            guarded("reading the window's counters", || engine.window_so_far())
                .map_err(EngineError::new_err)?
        };
        let d = pyo3::types::PyDict::new(py);
        d.set_item("now_ns", w.now_ns)?;
        d.set_item("window_s", w.window_s)?;
        d.set_item("bits", w.bits)?;
        d.set_item("rate_bps", w.rate_bps)?;
        d.set_item("arrivals", w.arrivals)?;
        d.set_item("drops", w.drops)?;
        d.set_item("queue_area_packet_s", w.queue_area_packet_s)?;
        Ok(d)
    }

    /// End the run at the current time: `finish()` then reports the window [warm-up, now).
    /// Does nothing during the warm-up.
    fn end_now(&mut self) -> PyResult<()> {
        let mut guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let engine = guard.as_mut().ok_or_else(spent)?;
        guarded("ending the run early", || engine.end_now()).map_err(EngineError::new_err)?;
        self.end_ns = engine.end_ns();
        Ok(())
    }

    /// Change the bottleneck's limit that follows the scenario's `warm_buffer` (packets), before
    /// the warm buffer's end: the run then goes on exactly as the same scenario with that buffer
    /// would. A search warms one run up and continues a copy of it (a forked process) at each
    /// size. ValueError without a warm buffer still ahead.
    fn set_buffer(&mut self, packets: u64) -> PyResult<()> {
        let mut guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let engine = guard.as_mut().ok_or_else(spent)?;
        engine.set_buffer(packets).map_err(PyValueError::new_err)
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
        let engine = self
            .inner
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(spent)?;
        self.now_ns = self.end_ns;
        py.detach(move || guarded("finishing the run", move || engine.finish().to_json()))
            .map_err(EngineError::new_err)
    }
}

/// Names of the congestion controls the engine knows.
#[pyfunction]
fn congestion_controls() -> Vec<&'static str> {
    bufsize_sim::tcp::cc::names()
}

/// Panic inside the binding on purpose, under the same guard as the engine's calls: lets the
/// tests check that a panic reaches Python as one line (`EngineError`), not a backtrace.
#[pyfunction]
fn _panic_for_test(message: &str) -> PyResult<()> {
    guarded("testing the panic guard", || -> () {
        panic!("{}", message)
    })
    .map_err(EngineError::new_err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_panic_hook();
    m.add_class::<Simulation>()?;
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add_function(wrap_pyfunction!(congestion_controls, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
