//! The one error type of the simulator.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// Bad preset, override or resolved configuration.
    Config(String),
    /// A job or command that does not fit the drive.
    Job(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Config(m) | SimError::Job(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SimError {}
