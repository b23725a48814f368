//! A refused over-provisioning names the least one the preset takes (QA: `op=0` was refused with
//! "raise op", while the docs' range starts at 0): on every preset, the op the error names is
//! accepted and a tenth of a percent less is not.

use ssdsim::config;

fn op(preset: &str, pct: f64) -> Result<config::Config, String> {
    config::resolve(preset, &[("op".to_string(), format!("{pct:.1}"))]).map_err(|e| e.to_string())
}

#[test]
fn the_least_op_an_error_names_is_the_least_accepted() {
    for preset in config::preset_names() {
        let Err(refused) = op(preset, 0.0) else {
            continue; // op 0 leaves this preset room enough
        };
        let least: f64 = refused
            .split("at least ")
            .nth(1)
            .and_then(|rest| rest.split([' ', ',']).next())
            .and_then(|figure| figure.parse().ok())
            .unwrap_or_else(|| panic!("{preset}: no least op in {refused:?}"));
        assert!(op(preset, least).is_ok(), "{preset}: op {least} refused");
        assert!(
            op(preset, least - 0.1).is_err(),
            "{preset}: op {least} - 0.1 accepted"
        );
    }
}
