//! Bulk sources.
