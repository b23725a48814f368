//! The job description the Python side sends, and its validation against a drive.

use serde::{Deserialize, Serialize};

use crate::error::SimError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    Read,
    Write,
    Randread,
    Randwrite,
    Randrw,
    Rw,
    Trim,
}

impl Pattern {
    /// Random offsets over the whole span (else sequential, one region per job).
    pub(crate) fn random(self) -> bool {
        matches!(
            self,
            Pattern::Randread | Pattern::Randwrite | Pattern::Randrw
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SyncMode {
    None,
    Dsync,
    Fsync,
}

/// One job as the Python side sends it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct JobSpec {
    pub pattern: Pattern,
    pub block_size_bytes: u64,
    pub iodepth: u32,
    pub jobs: u32,
    pub read_pct: f64,
    pub offset_bytes: u64,
    /// 0 means "from offset to the end of the drive".
    pub span_bytes: u64,
    pub runtime_s: Option<f64>,
    pub size_bytes: Option<u64>,
    pub ramp_s: f64,
    pub sync: SyncMode,
    pub fsync_every: u32,
    pub log_period_s: f64,
    pub seed: u64,
}

fn job_err(m: String) -> SimError {
    SimError::Job(m)
}

impl JobSpec {
    pub fn from_json(text: &str) -> Result<Self, SimError> {
        serde_json::from_str(text).map_err(|e| SimError::Job(format!("bad job description: {e}")))
    }

    /// A job with the usual defaults, for tests and benchmarks.
    pub fn simple(pattern: Pattern, bs: u64, iodepth: u32) -> Self {
        JobSpec {
            pattern,
            block_size_bytes: bs,
            iodepth,
            jobs: 1,
            read_pct: 50.0,
            offset_bytes: 0,
            span_bytes: 0,
            runtime_s: None,
            size_bytes: None,
            ramp_s: 0.0,
            sync: SyncMode::None,
            fsync_every: 0,
            log_period_s: 1.0,
            seed: 1,
        }
    }

    /// Check that the job can run on a drive of `capacity_bytes`; the error says
    /// which field is wrong and why.
    pub fn validate(&self, capacity_bytes: u64) -> Result<(), SimError> {
        self.check_shape()?;
        self.check_range(capacity_bytes)?;
        self.check_mix_and_times()?;
        let per_job = self.region_bytes(capacity_bytes);
        let bs = self.block_size_bytes;
        if per_job < bs {
            return Err(job_err(format!(
                "span per job ({per_job} B) is smaller than the block size {bs}"
            )));
        }
        Ok(())
    }

    /// Bytes from the offset that the job covers (call after validation).
    pub(crate) fn span(&self, capacity_bytes: u64) -> u64 {
        if self.span_bytes == 0 {
            capacity_bytes - self.offset_bytes
        } else {
            self.span_bytes
        }
    }

    /// Each job's region: the whole span for random patterns, a 1/jobs slice of it
    /// for sequential ones (call after validation).
    pub(crate) fn region_bytes(&self, capacity_bytes: u64) -> u64 {
        let span = self.span(capacity_bytes);
        if self.pattern.random() {
            span
        } else {
            span / self.jobs as u64
        }
    }

    fn check_shape(&self) -> Result<(), SimError> {
        let bs = self.block_size_bytes;
        if bs == 0 || !bs.is_multiple_of(512) {
            return Err(job_err(format!(
                "block_size_bytes={bs}: must be a positive multiple of 512"
            )));
        }
        if self.iodepth == 0 || self.jobs == 0 {
            return Err(job_err("iodepth and jobs must be at least 1".into()));
        }
        Ok(())
    }

    fn check_range(&self, cap: u64) -> Result<(), SimError> {
        if self.offset_bytes >= cap {
            return Err(job_err(format!(
                "offset_bytes={} is beyond the capacity {cap}",
                self.offset_bytes
            )));
        }
        let end = self.offset_bytes + self.span(cap);
        if end > cap {
            return Err(job_err(format!(
                "offset_bytes+span_bytes={end} exceeds the capacity {cap}"
            )));
        }
        Ok(())
    }

    fn check_mix_and_times(&self) -> Result<(), SimError> {
        if !(0.0..=100.0).contains(&self.read_pct) {
            return Err(job_err(format!(
                "read_pct={} must be within 0..100",
                self.read_pct
            )));
        }
        if self.runtime_s.is_some_and(|r| !(r >= 0.0 && r.is_finite()))
            || self.ramp_s.is_nan()
            || self.ramp_s < 0.0
        {
            return Err(job_err("runtime_s and ramp_s must be non-negative".into()));
        }
        Ok(())
    }
}
