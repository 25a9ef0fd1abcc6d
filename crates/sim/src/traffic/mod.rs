//! Traffic sources. Long-lived and finite bulk transfers live in `bulk`.
pub mod bulk;
