//! Prints the codec table (src/codec/table.rs) as JSON: scripts/build.mjs writes it into the
//! package for the JavaScript side, which takes its codec names from it.

fn main() {
    println!("{}", zarr_wasm_codecs::codec::table::to_json());
}
