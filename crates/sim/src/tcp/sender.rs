//! Sender.
