//! Drive configs: presets load, `--set` overrides reach every parameter, bad input lists every problem.

use crate::common::*;
use ssdlab_core::DriveConfig;

#[test]
fn presets_round_trip_through_their_printed_toml() {
    for name in ["bg4-1tb", "generic-tlc-dram"] {
        let cfg = DriveConfig::from_toml_str(&preset_text(name), &[]).unwrap();
        let again = DriveConfig::from_toml_str(&cfg.to_toml_string(), &[]).unwrap();
        assert_eq!(cfg, again);
    }
}

#[test]
fn every_bad_override_is_reported_and_a_near_miss_named() {
    let o = |k: &str, v: &str| (k.to_string(), v.to_string());
    let sets = [o("nand.tRR_us", "5"), o("nand.tR_us", "abc"), o("nand.channels", "4"), o("nand.zzz", "1")];
    let err = DriveConfig::from_toml_str(&preset_text("bg4-1tb"), &sets).unwrap_err();
    let paths: Vec<&str> = err.problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["nand.tRR_us", "nand.tR_us", "nand.zzz"]);
    assert!(err.problems[0].message.starts_with("unknown parameter (did you mean tR_us?);"));
    assert!(err.problems[2].message.starts_with("unknown parameter; this section has"), "nothing near zzz");
}

#[test]
fn a_drive_files_misspelt_key_is_named_with_its_near_miss_as_set_names_it() {
    let text = preset_text("bg4-1tb").replace("\ntR_us =", "\ntR_uss =");
    let err = DriveConfig::from_toml_str(&text, &[]).unwrap_err();
    assert_eq!(err.problems[0].path, "nand.tR_uss");
    let message = &err.problems[0].message;
    assert!(message.starts_with("unknown parameter (did you mean tR_us?); this section has: "), "{message}");
    assert!(message.contains("slc_tR_us, suspension"), "the keys in order, as --set lists them: {message}");
}

#[test]
fn overrides_reach_nested_parameters_and_keep_types() {
    let o = |k: &str, v: &str| (k.to_string(), v.to_string());
    let cfg = DriveConfig::from_toml_str(
        &preset_text("bg4-1tb"),
        &[
            o("nand.tR_us", "61"),
            o("controller.map_cache.lookup_ns", "250"),
            o("link.kind", "sata"),
            o("link.gen", "3"),
            o("link.lanes", "1"),
            o("link.max_payload_bytes", "8192"),
            o("link.queue_depth_limit", "32"),
        ],
    )
    .unwrap();
    assert_eq!(cfg.nand.tR_us, vec![61.0]);
    assert_eq!(cfg.controller.map_cache.lookup_ns, 250);
}

#[test]
fn a_list_parameter_takes_one_value_or_a_list() {
    let o = |v: &str| vec![("nand.tR_us".to_string(), v.to_string())];
    let text = preset_text("bg4-1tb");
    assert_eq!(
        DriveConfig::from_toml_str(&text, &o("[40, 50.5, 60]")).unwrap().nand.tR_us,
        vec![40.0, 50.5, 60.0]
    );
    let e = DriveConfig::from_toml_str(&text, &o("[40, 50]")).unwrap_err();
    assert_eq!(e.problems[0].path, "nand.tR_us", "TLC needs one value or three: {e}");
    assert!(DriveConfig::from_toml_str(&text, &o("fast")).is_err());
    // a drive file takes the same two spellings
    let file =
        |v: &str| DriveConfig::from_toml_str(&text.replace("tR_us = [50.0]", &format!("tR_us = {v}")), &[]);
    assert_eq!(file("60").unwrap().nand.tR_us, vec![60.0]);
    assert_eq!(file("[60, 65, 70]").unwrap().nand.tR_us, vec![60.0, 65.0, 70.0]);
    let e = file("\"fast\"").unwrap_err();
    assert!(e.to_string().contains("a number or a list of numbers"), "{e}");
}

#[test]
fn a_drive_file_value_of_the_wrong_type_is_named_in_the_files_terms() {
    let text = preset_text("bg4-1tb");
    let e = DriveConfig::from_toml_str(&text.replace("channels = 4", "channels = -1"), &[]).unwrap_err();
    assert_eq!(e.problems[0].path, "nand.channels");
    assert!(e.to_string().contains("expected a whole number >= 0"), "not Rust's u32: {e}");
    let e = DriveConfig::from_toml_str(&text.replace("gen = 3", "gen = \"3\""), &[]).unwrap_err();
    assert!(!e.to_string().contains("u8") && !e.to_string().contains("u32"), "{e}");
}

#[test]
fn a_bad_override_names_the_path_and_value() {
    let o = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    let text = preset_text("bg4-1tb");
    let e = DriveConfig::from_toml_str(&text, &o("nand.tR_uss", "61")).unwrap_err();
    assert_eq!(e.problems[0].path, "nand.tR_uss");
    assert!(e.to_string().contains("tR_us"), "lists the keys that exist: {e}");
    let e = DriveConfig::from_toml_str(&text, &o("nand.channels", "four")).unwrap_err();
    assert_eq!((e.problems[0].path.as_str(), e.problems[0].value.as_str()), ("nand.channels", "four"));
    let e = DriveConfig::from_toml_str(&text, &o("link.kind", "usb")).unwrap_err();
    assert!(e.to_string().contains("usb"), "{e}");
}

#[test]
fn validation_reports_every_problem_with_its_path() {
    let o = |k: &str, v: &str| (k.to_string(), v.to_string());
    let e = DriveConfig::from_toml_str(
        &preset_text("bg4-1tb"),
        &[
            o("nand.channels", "0"),
            o("link.lanes", "3"),
            o("ftl.user_capacity_gb", "-1"),
            o("ftl.slc_cache.dynamic_fraction", "1.5"),
            o("ftl.slc_cache.fold_above_fill", "-0.1"),
        ],
    )
    .unwrap_err();
    let paths: Vec<&str> = e.problems.iter().map(|p| p.path.as_str()).collect();
    for path in [
        "nand.channels",
        "link.lanes",
        "ftl.user_capacity_gb",
        "ftl.slc_cache.dynamic_fraction",
        "ftl.slc_cache.fold_above_fill",
    ] {
        assert!(paths.contains(&path), "{path} missing from {paths:?}");
    }
    // a capacity that fits a sound geometry is not blamed for the bound a broken one gives
    let e = DriveConfig::from_toml_str(&preset_text("bg4-1tb"), &[o("nand.channels", "0")]).unwrap_err();
    let paths: Vec<&str> = e.problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["nand.channels"]);
}

#[test]
fn unknown_keys_are_errors_not_silently_ignored() {
    let text = preset_text("bg4-1tb").replace("tR_us = ", "tR_uss = ");
    let e = DriveConfig::from_toml_str(&text, &[]).unwrap_err();
    assert!(e.to_string().contains("tR_uss"), "{e}");
    assert!(e.problems[0].path.starts_with("nand"), "the path names the section: {e}");
}

#[test]
fn an_sram_map_cache_must_leave_room_for_the_write_buffer() {
    let o = |k: &str, v: &str| (k.to_string(), v.to_string());
    let text = preset_text("bg4-1tb");
    let ok = [o("controller.map_cache.location", "sram"), o("controller.write_buffer_kib", "1408")];
    assert!(DriveConfig::from_toml_str(&text, &ok).is_ok());
    let tight = [o("controller.map_cache.location", "sram"), o("controller.write_buffer_kib", "1024")];
    let e = DriveConfig::from_toml_str(&text, &tight).unwrap_err();
    assert_eq!(e.problems[0].path, "controller.write_buffer_kib", "{e}");
    assert!(e.to_string().contains("SRAM map cache"), "{e}");
    // with HMB the same buffer is fine: the SRAM is the write buffer's alone
    let hmb = [o("controller.map_cache.location", "hmb"), o("controller.write_buffer_kib", "1024")];
    assert!(DriveConfig::from_toml_str(&text, &hmb).is_ok());
}

#[test]
fn host_and_ftl_keys_without_a_natural_bound_are_range_checked() {
    let text = preset_text("bg4-1tb");
    for (path, bad, good) in [
        ("host.submit_ns", "9223372036854775807", "2000"),
        ("host.complete_ns", "1000000000", "2000"),
        ("ftl.idle_after_ms", "1e12", "50"),
        ("ftl.idle_after_ms", "-1", "0"),
        ("ftl.background_gc_free_blocks", "4000000000", "8"),
        ("ftl.wear_leveling_threshold", "4000000000", "100"),
        ("ftl.pe_cycle_limit", "4000000000", "3000"),
        ("ftl.factory_bad_block_pct", "100", "2"),
        ("controller.compression.engine_mbps", "1e-9", "0"),
        ("controller.compression.engine_mbps", "0.5", "1"),
    ] {
        let e = DriveConfig::from_toml_str(&text, &[(path.into(), bad.into())]).unwrap_err();
        assert!(e.problems.iter().any(|p| p.path == path), "{path}={bad}: {e}");
        assert!(DriveConfig::from_toml_str(&text, &[(path.into(), good.into())]).is_ok(), "{path}={good}");
    }
}

#[test]
fn a_calibration_table_is_carried_round_trips_and_is_checked() {
    let text = preset_text("bg4-128gb");
    let cfg = DriveConfig::from_toml_str(&text, &[]).unwrap();
    let cal = cfg.calibration.as_ref().expect("bg4-128gb marks its fitted values");
    assert_eq!(cal.free["nand.slc_tPROG_us"], [100.0, 400.0]);
    assert!(cal.figures.contains(&"bg4-128gb.fill.curve".to_string()));
    assert_eq!(DriveConfig::from_toml_str(&cfg.to_toml_string(), &[]).unwrap(), cfg);
    // a drive without the table has none, and prints none
    let plain = DriveConfig::from_toml_str(&preset_text("bg4-1tb"), &[]).unwrap();
    assert!(plain.calibration.is_none() && !plain.to_toml_string().contains("calibration"));

    // bad tables, on a preset without one
    let plain_text = preset_text("bg4-1tb");
    let bad = |free: &str| {
        let t = format!(
            "{plain_text}\n[calibration]\nfigures = [\"x.fill.curve\"]\n[calibration.free]\n{free}\n"
        );
        DriveConfig::from_toml_str(&t, &[]).unwrap_err()
    };
    for (free, value) in [
        ("\"nand.slc_tPROG\" = [1.0, 2.0]", "nand.slc_tPROG"),
        ("\"nand\" = [1.0, 2.0]", "nand"),
        ("\"nand.bus_mode\" = [1.0, 2.0]", "nand.bus_mode"),
        ("\"calibration.figures\" = [1.0, 2.0]", "calibration.figures"),
        ("\"nand.slc_tPROG_us\" = [400.0, 100.0]", "[400, 100]"),
        ("\"nand.slc_tPROG_us\" = [100.0, 100.0]", "[100, 100]"),
        ("\"nand.slc_tPROG_us\" = [100.0, inf]", "[100, inf]"),
        ("\"nand.slc_tPROG_us\" = [100.0]", "[100.0]"),
        ("\"nand.slc_tPROG_us\" = [1.0, 2.0, 3.0]", "[1.0, 2.0, 3.0]"),
    ] {
        let e = bad(free);
        assert_eq!(e.problems.len(), 1, "{free}: {e}");
        assert!(e.problems[0].path.starts_with("calibration.free."), "{free}: {e}");
        assert_eq!(e.problems[0].value, value, "{free}: {e}");
    }
    // [] takes a parameter back: not free, and a table of such alone needs no figures
    let back = format!(
        "{plain_text}\n[calibration]\nfigures = []\n[calibration.free]\n\"nand.slc_tPROG_us\" = []\n"
    );
    let cfg = DriveConfig::from_toml_str(&back, &[]).unwrap();
    assert!(cfg.calibration.as_ref().unwrap().free["nand.slc_tPROG_us"].is_empty());
    assert_eq!(DriveConfig::from_toml_str(&cfg.to_toml_string(), &[]).unwrap(), cfg);
    // an integer parameter is a number too
    let ok = format!("{plain_text}\n[calibration]\nfigures = [\"x.a.b\"]\n[calibration.free]\n\"controller.cores\" = [1, 4]\n");
    assert!(DriveConfig::from_toml_str(&ok, &[]).is_ok());
}
