//! `Drive::describe` and `Array::describe`: a drive's identity (and its refusals) without
//! building it, exactly what building it and asking gives.

use ssdsim::{presets, Array, Drive};

fn pairs(raw: &[(&str, &str)]) -> Vec<(String, String)> {
    raw.iter()
        .map(|&(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Overrides that change what a drive says of itself (size, spare area, cache, heat sink,
/// a NAND fact), each on every preset, small so the drive built to compare is quick to build.
const OVERRIDES: &[&[(&str, &str)]] = &[
    &[("capacity_gib", "2")],
    &[("scale", "0.01"), ("op", "25")],
    &[
        ("capacity_gib", "4"),
        ("write_cache", "false"),
        ("heatsink", "1"),
    ],
    &[("capacity_gib", "2"), ("nand.page_bytes", "16384")],
];

#[test]
fn a_description_is_the_built_drives_identity_on_every_preset() {
    for preset in presets() {
        for (i, raw) in OVERRIDES.iter().enumerate() {
            let overrides = pairs(raw);
            let seed = 7 + i as u64;
            let built = Drive::new(&preset.name, &overrides, seed).expect("builds");
            let said = Drive::describe(&preset.name, &overrides, seed).expect("described");
            assert_eq!(said, built.identity(), "{} {raw:?}", preset.name);
        }
    }
}

#[test]
fn the_default_drive_at_its_full_size_is_described_as_built() {
    let preset = ssdsim::DEFAULT_PRESET;
    let built = Drive::new(preset, &[], 3).expect("builds").identity();
    assert_eq!(Drive::describe(preset, &[], 3).expect("described"), built);
}

#[test]
fn what_a_build_refuses_a_description_refuses_in_the_same_words() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("no-such-drive", &[]),
        (ssdsim::DEFAULT_PRESET, &[("no_such_key", "1")]),
        (ssdsim::DEFAULT_PRESET, &[("capacity_gib", "many")]),
        (ssdsim::DEFAULT_PRESET, &[("scale", "-1")]),
        (ssdsim::DEFAULT_PRESET, &[("op", "x")]),
        (ssdsim::DEFAULT_PRESET, &[("nand.channels", "0")]),
    ];
    for &(preset, raw) in cases {
        let overrides = pairs(raw);
        let refused = Drive::new(preset, &overrides, 1).expect_err("refused");
        let said = Drive::describe(preset, &overrides, 1).expect_err("refused");
        assert_eq!(said.to_string(), refused.to_string(), "{preset} {raw:?}");
    }
}

#[test]
fn an_array_is_described_as_built_and_refused_alike() {
    let overrides = pairs(&[("capacity_gib", "2")]);
    let names: Vec<String> = presets().into_iter().map(|p| p.name).take(3).collect();
    for chunk in [4096, 64 * 1024, 1 << 20] {
        let built = Array::new(&names, &overrides, 5, chunk).expect("builds");
        let said = Array::describe(&names, &overrides, 5, chunk).expect("described");
        assert_eq!(said, built.identity(), "chunk {chunk}");
    }
    let one = vec![names[0].clone()];
    let bad: &[(&[String], u64)] = &[(&one, 4096), (&names, 3000), (&names, 2048)];
    for &(members, chunk) in bad {
        let refused = Array::new(members, &overrides, 1, chunk).expect_err("refused");
        let said = Array::describe(members, &overrides, 1, chunk).expect_err("refused");
        assert_eq!(said.to_string(), refused.to_string());
    }
    let unknown = vec![names[0].clone(), "no-such-drive".to_string()];
    let refused = Array::new(&unknown, &overrides, 1, 4096).expect_err("refused");
    let said = Array::describe(&unknown, &overrides, 1, 4096).expect_err("refused");
    assert_eq!(said.to_string(), refused.to_string());
}
