//! Exact zarr v3 `scale_offset` and `cast_value` codecs, zarr v3 numeric data types and their
//! JSON scalars, for JavaScript zarr clients through WebAssembly.
//!
//! All semantics live here and are tested natively, with no JavaScript in sight; the wasm
//! modules are thin crates under `crates/` (one per module) that only move metadata and
//! chunks across the JavaScript boundary.
//!
//! - [`dtype`]: data types, scalars and their JSON (fill values, "NaN", "Infinity", hex bits).
//! - [`types`]: the data type registry: every data type's names, item layout and JSON scalars.
//! - [`array`]: a chunk's typed values.
//! - [`codec`]: `scale_offset`, `cast_value`, `bytes`, and the [`codec::Chain`] that runs them.
//! - [`missing`]: decoded reads of missing values and CF packing (scale_factor, add_offset).
//! - [`plan`]: choosing target type, scale, offset and sentinels for packing data.

pub mod array;
pub mod base64;
pub mod codec;
pub mod decimal;
pub mod dtype;
pub mod error;
pub mod float;
#[doc(hidden)]
pub mod fuzzing;
pub mod json;
pub mod layout;
pub mod missing;
pub mod plan;
pub mod times;
pub mod types;
pub mod widths;

pub use array::ArrayData;
pub use codec::Chain;
pub use dtype::{DataType, Scalar};
pub use error::{Error, Result};
