//! Receiver.
