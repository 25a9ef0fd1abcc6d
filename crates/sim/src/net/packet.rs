//! Packets.
