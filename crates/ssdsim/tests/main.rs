//! The simulator's integration tests, one binary: each file is a module. One binary links once
//! and runs every test on every core (27 binaries ran one after another, a single long test
//! holding one core while the other idled). `cargo test --release -p ssdsim --test sim MODULE::`
//! runs one file's tests, `-- --nocapture` prints their tables.

mod array;
mod behaviour;
mod common;
mod data_path;
mod describe;
mod gc_cost;
mod gc_policy;
mod heldout_figures;
mod host_split;
mod least_op;
mod map_journal;
mod mapping_props;
mod nand_energy;
mod page_register;
mod partial_writes;
mod qd1_latency;
mod read_power;
mod readahead;
mod result_digest;
mod slc_cache;
mod snapshot_props;
mod spare_area;
mod spec_table;
mod suspend;
mod thermal_power;
mod thermal_scale;
mod transfer_sweep;
mod ubx_gc;
mod write_amp;
