//! Prints the tables the JavaScript side takes from the library, as JSON: the codec table
//! (src/codec/table.rs) and, for each data type, the typed array a read returns
//! (`DataType::typed_arrays`). scripts/build.mjs writes them into the package.

use zarr_wasm_codecs::dtype::ALL_DATA_TYPES;
use zarr_wasm_codecs::json::{Map, Value};

fn main() {
    let mut data_types = Map::new();
    for dt in ALL_DATA_TYPES {
        data_types.insert(dt.name().to_string(), Value::from(dt.typed_arrays()[0]));
    }
    let data_types = Value::Object(data_types);
    let tables = Value::object([
        ("codecs", zarr_wasm_codecs::codec::table::to_json()),
        ("data_types", data_types),
    ]);
    println!("{tables}");
}
