//! js/tables.json, which scripts/build.mjs puts into the package as its codec table and data
//! type table, is the library's (`codec::table::javascript_tables`): a change to either table
//! fails here until the file is written again (`cargo run --example tables > js/tables.json`).

use zarr_wasm_codecs::codec::table::javascript_tables;

#[test]
fn the_committed_tables_are_the_librarys() {
    let committed: serde_json::Value =
        serde_json::from_str(include_str!("../js/tables.json")).expect("js/tables.json is JSON");
    let library: serde_json::Value =
        serde_json::from_str(&javascript_tables().to_string()).expect("the library writes JSON");
    assert_eq!(
        committed, library,
        "js/tables.json is not the library's tables: run `cargo run --example tables > js/tables.json`"
    );
    assert!(library["codecs"].as_array().is_some_and(|c| c.len() > 20));
}
