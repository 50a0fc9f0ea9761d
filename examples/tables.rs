//! Prints the tables the JavaScript side takes from the library, as JSON: the codec table
//! (src/codec/table.rs) and, for each data type, the typed array a read returns
//! (`DataType::typed_arrays`) and its item size. scripts/build.mjs writes them into the package.

use zarr_wasm_codecs::dtype::ALL_DATA_TYPES;
use zarr_wasm_codecs::json::{Map, Value};

fn main() {
    let mut data_types = Map::new();
    let mut sizes = Map::new();
    for dt in ALL_DATA_TYPES {
        data_types.insert(dt.name().to_string(), Value::from(dt.typed_arrays()[0]));
        sizes.insert(dt.name().to_string(), Value::from(dt.size() as u64));
    }
    let tables = Value::object([
        ("codecs", zarr_wasm_codecs::codec::table::to_json()),
        ("data_types", Value::Object(data_types)),
        ("data_type_sizes", Value::Object(sizes)),
    ]);
    println!("{tables}");
}
