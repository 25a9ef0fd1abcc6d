//! Binding of bufsize-capture (the pcap/pcapng flow reader): argument conversion only.
//! `CaptureReader(path).step(budget_bytes)` reads on; `take_records()` returns the flows finished
//! so far as columns (a dict of lists); `info()` the capture-wide counts and load bins.
use bufsize_capture::{CaptureReader, Config, FlowRecord};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pyclass(name = "CaptureReader", module = "bufsize._engine")]
pub struct PyCaptureReader {
    // a Mutex only to make the class Sync (the reader is Send); Python holds it from one thread
    inner: std::sync::Mutex<CaptureReader>,
}

impl PyCaptureReader {
    fn get(&self) -> std::sync::MutexGuard<'_, CaptureReader> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn col<'py, T, F>(d: &Bound<'py, PyDict>, name: &str, recs: &[FlowRecord], f: F) -> PyResult<()>
where
    F: Fn(&FlowRecord) -> T,
    T: IntoPyObject<'py>,
    Vec<T>: IntoPyObject<'py>,
{
    let v: Vec<T> = recs.iter().map(f).collect();
    d.set_item(name, v)
}

#[pymethods]
impl PyCaptureReader {
    #[new]
    #[pyo3(signature = (path, *, idle_timeout_s=60.0, bin_s=0.1, linger_s=1.0))]
    fn new(py: Python<'_>, path: &str, idle_timeout_s: f64, bin_s: f64, linger_s: f64) -> PyResult<Self> {
        if !(idle_timeout_s > 0.0 && idle_timeout_s.is_finite()) {
            return Err(PyValueError::new_err(
                "idle_timeout_s: must be a finite number > 0",
            ));
        }
        if !(bin_s > 0.0 && bin_s.is_finite()) {
            return Err(PyValueError::new_err("bin_s: must be a finite number > 0"));
        }
        if !(linger_s >= 0.0 && linger_s.is_finite()) {
            return Err(PyValueError::new_err(
                "linger_s: must be a finite number >= 0",
            ));
        }
        let cfg = Config {
            idle_timeout_s,
            bin_s,
            linger_s,
        };
        // the GIL is released while the header is read: from a pipe, a Python thread may be the
        // one writing it
        py.detach(|| CaptureReader::open(path, cfg))
            .map(|r| PyCaptureReader {
                inner: std::sync::Mutex::new(r),
            })
            .map_err(|e| PyValueError::new_err(e.0))
    }

    /// Read about `budget` more bytes (the GIL is released meanwhile); False once the file is done.
    fn step(&self, py: Python<'_>, budget: u64) -> PyResult<bool> {
        let inner = &self.inner;
        py.detach(|| inner.lock().unwrap_or_else(|e| e.into_inner()).step(budget))
            .map_err(|e| PyValueError::new_err(e.0))
    }

    /// Bytes of the file consumed so far.
    #[getter]
    fn position(&self) -> u64 {
        self.get().position()
    }
    #[getter]
    fn file_size(&self) -> u64 {
        self.get().file_size
    }
    #[getter]
    fn live_flows(&self) -> usize {
        self.get().st.tracker.live_flows()
    }

    /// Flow records finished since the last call, as a dict of equal-length lists.
    fn take_records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let recs = self.get().st.tracker.take_records();
        let d = PyDict::new(py);
        col(&d, "proto", &recs, |r| r.proto as u32)?;
        col(&d, "src", &recs, |r| r.src.to_string())?;
        col(&d, "sport", &recs, |r| r.sport)?;
        col(&d, "dst", &recs, |r| r.dst.to_string())?;
        col(&d, "dport", &recs, |r| r.dport)?;
        col(&d, "start_s", &recs, |r| r.start_s)?;
        col(&d, "end_s", &recs, |r| r.end_s)?;
        col(&d, "packets_fwd", &recs, |r| r.packets[0])?;
        col(&d, "packets_rev", &recs, |r| r.packets[1])?;
        col(&d, "bytes_fwd", &recs, |r| r.ip_bytes[0])?;
        col(&d, "bytes_rev", &recs, |r| r.ip_bytes[1])?;
        col(&d, "payload_fwd", &recs, |r| r.payload_bytes[0])?;
        col(&d, "payload_rev", &recs, |r| r.payload_bytes[1])?;
        col(&d, "unique_fwd", &recs, |r| r.unique_bytes[0])?;
        col(&d, "unique_rev", &recs, |r| r.unique_bytes[1])?;
        col(&d, "retrans_packets_fwd", &recs, |r| r.retrans_packets[0])?;
        col(&d, "retrans_packets_rev", &recs, |r| r.retrans_packets[1])?;
        col(&d, "retrans_bytes_fwd", &recs, |r| r.retrans_bytes[0])?;
        col(&d, "retrans_bytes_rev", &recs, |r| r.retrans_bytes[1])?;
        col(&d, "syn_seen", &recs, |r| r.syn_seen)?;
        col(&d, "fin_fwd", &recs, |r| r.fin_seen[0])?;
        col(&d, "fin_rev", &recs, |r| r.fin_seen[1])?;
        col(&d, "rst_seen", &recs, |r| r.rst_seen)?;
        col(&d, "complete", &recs, |r| r.complete)?;
        col(&d, "rtt_handshake_s", &recs, |r| r.rtt_handshake_s)?;
        col(&d, "rtt_min_s", &recs, |r| r.rtt_min_s)?;
        col(&d, "rtt_mean_s", &recs, |r| r.rtt_mean_s)?;
        col(&d, "rtt_leg_init_s", &recs, |r| r.rtt_leg_min_s[0])?;
        col(&d, "rtt_leg_resp_s", &recs, |r| r.rtt_leg_min_s[1])?;
        col(&d, "rtt_leg_init_mean_s", &recs, |r| r.rtt_leg_mean_s[0])?;
        col(&d, "rtt_leg_resp_mean_s", &recs, |r| r.rtt_leg_mean_s[1])?;
        col(&d, "rtt_samples", &recs, |r| r.rtt_samples)?;
        col(&d, "mss", &recs, |r| r.mss)?;
        col(&d, "timestamps", &recs, |r| r.timestamps)?;
        col(&d, "limit", &recs, |r| r.limit.as_str())?;
        col(&d, "rwnd_limited_frac", &recs, |r| r.rwnd_limited_frac)?;
        col(&d, "idle_frac", &recs, |r| r.idle_frac)?;
        col(&d, "end_reason", &recs, |r| r.end_reason.as_str())?;
        Ok(d)
    }

    /// Capture-wide facts: format, link types, first-frame time, duration, counts, truncation or
    /// corruption (`truncated` says where and what was used; `corrupt` tells which), frames not used
    /// (`time_outliers`, `bad_lengths`),
    /// and the frame bytes per time bin in each direction (from initiators / from responders).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let guard = self.get();
        let r = &*guard;
        let s = &r.st.tracker.stats;
        let d = PyDict::new(py);
        d.set_item("format", r.format)?;
        d.set_item("linktypes", r.st.linktypes.clone())?;
        d.set_item("t0_s", r.st.t0_s)?;
        d.set_item("duration_s", r.duration_s())?;
        d.set_item("file_size", r.file_size)?;
        d.set_item("position", r.position())?;
        d.set_item("truncated", r.truncated.clone())?;
        d.set_item("corrupt", r.corrupt)?;
        d.set_item("records", r.records)?;
        d.set_item("time_outliers", r.st.time_outliers)?;
        d.set_item("bad_lengths", r.st.bad_lengths)?;
        d.set_item("unbinned_bytes", s.unbinned_bytes)?;
        d.set_item("frames", s.frames)?;
        d.set_item("frame_bytes", s.frame_bytes)?;
        d.set_item("not_ip", s.not_ip)?;
        d.set_item("malformed", s.malformed)?;
        d.set_item("fragments", s.fragments)?;
        d.set_item("fragment_bytes", s.fragment_bytes)?;
        d.set_item("fragments_unmatched", s.fragments_unmatched)?;
        d.set_item("unsupported_frames", r.st.unsupported_frames)?;
        d.set_item("tcp_packets", s.tcp_packets)?;
        d.set_item("udp_packets", s.udp_packets)?;
        d.set_item("other_packets", s.other_packets)?;
        d.set_item("snapped", s.snapped)?;
        d.set_item("out_of_order", s.out_of_order)?;
        d.set_item("flows", s.flows_emitted)?;
        d.set_item("max_concurrent_flows", s.max_concurrent_flows)?;
        d.set_item("bin_s", r.st.tracker.config().bin_s)?;
        let bins = &r.st.tracker.bins;
        d.set_item(
            "bin_bytes_fwd",
            bins.iter().map(|b| b[0]).collect::<Vec<u64>>(),
        )?;
        d.set_item(
            "bin_bytes_rev",
            bins.iter().map(|b| b[1]).collect::<Vec<u64>>(),
        )?;
        Ok(d)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCaptureReader>()?;
    Ok(())
}
