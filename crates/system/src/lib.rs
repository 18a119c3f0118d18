//! The system layer: [`os`], every system call beyond std, and
//! [`sandbox`], what a bot process may touch. They are one concern split
//! at the system call: `os::sandbox` is the sandbox's machinery and takes
//! the sandbox's values.

#![warn(missing_docs)]

pub mod os;
pub mod sandbox;
