//! Execution of engine-neutral jobs: closed-loop I/O generators (each job keeps
//! `iodepth` commands outstanding) driving the drive model in virtual time.
//!
//! - [`spec`]: what to run ([`JobSpec`]) and its validation against a drive;
//! - [`runner`]: the generators and the event loop ([`Drive::run`](crate::Drive::run));
//! - [`result`]: what comes back ([`RunResult`], [`Progress`]);
//! - [`split`]: the host's split of a request above the device's maximum transfer.

mod result;
mod runner;
mod spec;
pub(crate) mod split;

pub use result::{OpSummary, Progress, RunResult, Series, Telemetry};
pub(crate) use runner::run_on;
pub use spec::{JobSpec, Pattern, SyncMode};
