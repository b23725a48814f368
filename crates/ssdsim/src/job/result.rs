//! What a run returns: totals per direction, per-period series and telemetry, and
//! what the progress callback sees. Field names are those of the binding's dicts.

use serde::Serialize;

use crate::hist::OpStats;

/// Latency and volume per direction, in the shape of the binding's dict.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct OpSummary {
    pub ios: u64,
    pub bytes: u64,
    pub lat_min_ns: u64,
    pub lat_max_ns: u64,
    pub lat_sum_ns: u128,
    pub lat_hist: Vec<(u64, u64)>,
}

impl From<&OpStats> for OpSummary {
    fn from(s: &OpStats) -> Self {
        OpSummary {
            ios: s.ios,
            bytes: s.bytes,
            lat_min_ns: s.lat_min_ns,
            lat_max_ns: s.lat_max_ns,
            lat_sum_ns: s.lat_sum_ns,
            lat_hist: s.sparse(),
        }
    }
}

/// A per-period table, stored (and serialised) column by column as the binding
/// hands it to Python, with `t_s` (end of each period after the ramp) first, plus
/// its row type. Each column is named once here, for both.
macro_rules! table {
    ($(#[$doc:meta])* $table:ident, $row:ident { $($field:ident: $ty:ty,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, Serialize, PartialEq)]
        pub struct $table {
            pub t_s: Vec<f64>,
            $(pub $field: Vec<$ty>,)*
        }

        /// One entry of the table, without its time.
        #[derive(Debug, Clone, Copy, Default, PartialEq)]
        pub(crate) struct $row {
            $(pub $field: $ty,)*
        }

        impl $table {
            pub(crate) fn push(&mut self, t_s: f64, row: $row) {
                self.t_s.push(t_s);
                $(self.$field.push(row.$field);)*
            }

            /// Take off the last entry.
            pub(crate) fn pop(&mut self) -> Option<(f64, $row)> {
                let t_s = self.t_s.pop()?;
                let row = $row {
                    $($field: self.$field.pop().expect("columns have equal lengths"),)*
                };
                Some((t_s, row))
            }
        }
    };
}

table!(
    /// Host I/O per log period.
    Series, Period {
        read_ios: u64,
        write_ios: u64,
        read_bytes: u64,
        write_bytes: u64,
        read_lat_sum_ns: u64,
        write_lat_sum_ns: u64,
    }
);

impl Period {
    /// Both periods' I/O as one.
    pub(crate) fn merged(self, o: Period) -> Period {
        Period {
            read_ios: self.read_ios + o.read_ios,
            write_ios: self.write_ios + o.write_ios,
            read_bytes: self.read_bytes + o.read_bytes,
            write_bytes: self.write_bytes + o.write_bytes,
            read_lat_sum_ns: self.read_lat_sum_ns + o.read_lat_sum_ns,
            write_lat_sum_ns: self.write_lat_sum_ns + o.write_lat_sum_ns,
        }
    }
}

table!(
    /// Drive state at the end of each log period; `gc_pages_moved` and `power_w`
    /// cover the period.
    Telemetry, Sample {
        temp_c: f64,
        throttle_level: u32,
        wa: f64,
        free_blocks: u64,
        gc_pages_moved: u64,
        slc_used_bytes: u64,
        host_bytes_written: u64,
        nand_bytes_written: u64,
        power_w: f64,
    }
);

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunResult {
    pub elapsed_s: f64,
    pub interrupted: bool,
    pub error: Option<String>,
    pub read: OpSummary,
    pub write: OpSummary,
    pub trim: OpSummary,
    pub series: Series,
    pub telemetry: Telemetry,
}

/// What the progress callback sees.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Progress {
    pub sim_time_s: f64,
    pub job_elapsed_s: f64,
    pub fraction: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_mb_s: f64,
    pub write_mb_s: f64,
    pub host_bytes_written: u64,
    pub temp_c: f64,
}
