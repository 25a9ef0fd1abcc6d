//! Links.
