//! Prints the tables the JavaScript side takes from the library, as JSON
//! (`codec::table::javascript_tables`): the codec table and each data type's typed array and
//! item size. Its output is committed as js/tables.json, which scripts/build.mjs puts into the
//! package; after changing either table, run `cargo run --example tables > js/tables.json`
//! (tests/tables.rs fails until then).

fn main() {
    println!("{}", zarr_wasm_codecs::codec::table::javascript_tables());
}
