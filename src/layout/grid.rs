//! The chunk grid's parts of a layout: chunk key encodings, the rectilinear grid's edges,
//! sharding's levels and index codecs, and the shapes `reshape` and `transpose` give.

use super::check_order;
use super::invalid;
use super::KeyEncoding;
use super::ShardLevel;
use crate::codec::bytes_to_bytes::BytesChain;
use crate::codec::{codec_name_and_config, parse_shape, Endian};
use crate::dtype::DataType;
use crate::error::{quoted, Error, Result};
use crate::json::Value;

/// The chunk key encoding; `None` for one this path does not know.
pub(crate) fn key_encoding(value: Option<&Value>) -> Result<Option<KeyEncoding>> {
    let Some(value) = value else {
        return Ok(Some(KeyEncoding {
            v2: false,
            separator: "/".into(),
        }));
    };
    let v2 = match value.get("name").and_then(Value::as_str) {
        Some("default") => false,
        Some("v2") => true,
        _ => return Ok(None),
    };
    let separator = match value.at(&["configuration", "separator"]) {
        None | Some(Value::Null) => if v2 { "." } else { "/" }.to_string(),
        Some(Value::String(s)) if s == "/" || s == "." => s.clone(),
        Some(other) => return Err(invalid(format!("chunk key separator {other}"))),
    };
    Ok(Some(KeyEncoding { v2, separator }))
}

/// The output shape of zarr-extensions' `reshape` for chunks of `input`: each entry of its
/// `shape` a size, a list of input dimensions (their product, which must line up with the
/// input's dimensions before and after them), or -1 (at most once: what the element count
/// leaves). A shape that cannot hold the chunk's elements is refused (INVALID_CONFIG).
pub(super) fn reshaped(config: Option<&Value>, input: &[usize]) -> Result<Vec<usize>> {
    let bad = |message: String| Error::config("reshape", message);
    let list = config
        .and_then(|c| c.get("shape"))
        .and_then(Value::as_array)
        .ok_or_else(|| bad("shape must be a list".into()))?;
    let product = |dims: &[usize]| dims.iter().try_fold(1usize, |p, &d| p.checked_mul(d));
    let total = product(input).ok_or_else(|| bad("the chunk is too large".into()))?;
    let mut out: Vec<Option<usize>> = Vec::with_capacity(list.len());
    // Each output dimension given by input dimensions: its place, the first and last of them.
    let mut spans: Vec<(usize, usize, usize)> = Vec::new();
    let mut last_dim: Option<usize> = None;
    let mut free = None;
    for (i, entry) in list.iter().enumerate() {
        match entry {
            Value::Array(dims) => {
                let mut size = 1usize;
                let mut first = None;
                for d in dims {
                    let d = d
                        .as_u64()
                        .filter(|&d| d < input.len() as u64)
                        .map(|d| d as usize)
                        .ok_or_else(|| bad(format!("{d} is not a dimension of the chunk")))?;
                    if last_dim.is_some_and(|l| d <= l) {
                        return Err(bad(
                            "the input dimensions must be in increasing order".into(),
                        ));
                    }
                    last_dim = Some(d);
                    first.get_or_insert(d);
                    size *= input[d];
                }
                if let (Some(first), Some(last)) = (first, last_dim.filter(|_| !dims.is_empty())) {
                    spans.push((i, first, last));
                }
                out.push(Some(size));
            }
            v if v.as_i64() == Some(-1) => {
                if free.replace(i).is_some() {
                    return Err(bad("-1 may be given once".into()));
                }
                out.push(None);
            }
            v => match v
                .as_u64()
                .filter(|&n| n > 0)
                .and_then(|n| usize::try_from(n).ok())
            {
                Some(n) => out.push(Some(n)),
                None => {
                    return Err(bad(format!(
                        "an entry of shape must be a positive size, a list of dimensions or -1, got {v}"
                    )))
                }
            },
        }
    }
    let known = out
        .iter()
        .flatten()
        .try_fold(1usize, |p, &d| p.checked_mul(d))
        .ok_or_else(|| bad("the shape is too large".into()))?;
    if let Some(i) = free {
        if known == 0 || total % known != 0 {
            return Err(bad(format!("no size for -1 makes {} elements", total)));
        }
        out[i] = Some(total / known);
    }
    let out: Vec<usize> = out.into_iter().flatten().collect();
    if product(&out) != Some(total) {
        return Err(bad(format!(
            "the shape holds {} elements, the chunk {total}",
            product(&out).map_or("too many".to_string(), |n| n.to_string())
        )));
    }
    for (i, first, last) in spans {
        if product(&out[..i]) != product(&input[..first])
            || product(&out[i + 1..]) != product(&input[last + 1..])
        {
            return Err(bad(format!(
                "output dimension {i} does not line up with input dimensions {first} to {last}"
            )));
        }
    }
    Ok(out)
}

/// `dims` in `order`: entry `i` is `dims[order[i]]`.
pub(super) fn in_order(dims: &[usize], order: &[usize]) -> Vec<usize> {
    order.iter().map(|&d| dims[d]).collect()
}

pub(super) fn is_identity(order: &[usize]) -> bool {
    order.iter().enumerate().all(|(i, &d)| i == d)
}

/// A transpose codec's `order` (a permutation of the dimensions); `None` for the identity,
/// which changes nothing.
pub(super) fn transpose_order(config: Option<&Value>, ndim: usize) -> Result<Option<Vec<usize>>> {
    let bad = || invalid("transpose's order must be a permutation of the dimensions");
    let list = config
        .and_then(|c| c.get("order"))
        .and_then(Value::as_array)
        .ok_or_else(bad)?;
    let order: Vec<usize> = list
        .iter()
        .map(|v| v.as_u64().map(|d| d as usize).ok_or_else(bad))
        .collect::<Result<_>>()?;
    let mut seen = vec![false; ndim];
    if order.len() != ndim
        || !order
            .iter()
            .all(|&d| d < ndim && !std::mem::replace(&mut seen[d], true))
    {
        return Err(bad());
    }
    Ok(order
        .iter()
        .enumerate()
        .any(|(i, &d)| i != d)
        .then_some(order))
}

/// One `sharding_indexed` codec's level inside chunks of `outer` (a shard, or the chunk of
/// the level above), and its codecs.
pub(super) fn shard_level<'a>(
    config: &'a Value,
    outer: &[usize],
) -> Result<(ShardLevel, &'a [Value])> {
    let inner = parse_shape(
        config
            .get("chunk_shape")
            .ok_or_else(|| invalid("sharding_indexed has no chunk_shape"))?,
    )?;
    let divides =
        inner.len() == outer.len() && inner.iter().zip(outer).all(|(&i, &g)| i > 0 && g % i == 0);
    if !divides {
        return Err(invalid(
            "sharding_indexed's chunk_shape must divide the shard shape",
        ));
    }
    let Some((index_endian, index_compressors)) = index_codecs(config.get("index_codecs"))? else {
        return Err(invalid(
            "sharding_indexed's index_codecs must begin with bytes (the index is uint64 values)",
        ));
    };
    let index_at_end = match config.get("index_location").and_then(Value::as_str) {
        None | Some("end") => true,
        Some("start") => false,
        Some(other) => return Err(invalid(format!("index_location {}", quoted(other)))),
    };
    let inner_codecs = config
        .get("codecs")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("sharding_indexed has no codecs list"))?;
    check_order(inner_codecs)?;
    let index_fallback = BytesChain::not_in_wasm(&index_compressors)?;
    let level = ShardLevel {
        chunk_shape: inner,
        index_endian,
        index_compressors,
        index_fallback,
        index_at_end,
        index_order: None,
    };
    Ok((level, inner_codecs.as_slice()))
}

/// zarr-extensions' rectilinear grid (`kind` "inline"): per dimension, its chunk edges as runs
/// of (edge, count), from an edge repeated (a regular axis) or a list of edges and `[edge,
/// count]` runs; cut at the chunk that reaches the array's end (the rest lie outside it), and
/// refused where they do not reach it.
pub(super) fn rectilinear_edges(grid: &Value, shape: &[u64]) -> Result<Vec<Vec<(usize, u64)>>> {
    let config = grid
        .get("configuration")
        .ok_or_else(|| invalid("the rectilinear chunk grid has no configuration"))?;
    match config.get("kind").and_then(Value::as_str) {
        Some("inline") => {}
        other => {
            return Err(Error::Unsupported {
                message: format!(
                    "the rectilinear chunk grid's kind {} is not read (\"inline\" is)",
                    other.map_or("(none)".to_string(), quoted)
                ),
            })
        }
    }
    let dims = config
        .get("chunk_shapes")
        .and_then(Value::as_array)
        .filter(|d| d.len() == shape.len())
        .ok_or_else(|| invalid("chunk_shapes must be a list of one entry per dimension"))?;
    let positive = |v: &Value| v.as_u64().filter(|&n| n > 0 && n <= u32::MAX as u64);
    dims.iter()
        .zip(shape)
        .enumerate()
        .map(|(d, (spec, &len))| {
            let bad = |what: &str| invalid(format!("chunk_shapes[{d}]: {what}, got {spec}"));
            let given: Vec<(u64, u64)> = match spec {
                Value::Array(entries) => entries
                    .iter()
                    .map(|e| match e {
                        Value::Array(pair) if pair.len() == 2 => {
                            let edge = positive(&pair[0])
                                .ok_or_else(|| bad("an edge must be a positive integer"))?;
                            let count = pair[1].as_u64().ok_or_else(|| {
                                bad("a run's count must be a non-negative integer")
                            })?;
                            Ok((edge, count))
                        }
                        e => Ok((
                            positive(e).ok_or_else(|| {
                                bad("an edge must be a positive integer or [edge, count]")
                            })?,
                            1,
                        )),
                    })
                    .collect::<Result<_>>()?,
                e => {
                    let edge = positive(e)
                        .ok_or_else(|| bad("an edge must be a positive integer or a list"))?;
                    vec![(edge, len.div_ceil(edge))]
                }
            };
            let mut runs = Vec::new();
            let mut reached = 0u64;
            for (edge, count) in given {
                if reached >= len {
                    break;
                }
                let needed = (len - reached).div_ceil(edge).min(count);
                if needed > 0 {
                    runs.push((edge as usize, needed));
                    reached = reached.saturating_add(edge.saturating_mul(needed));
                }
            }
            if reached < len {
                return Err(bad(&format!(
                    "the edges end at {reached}, before the array's {len}"
                )));
            }
            Ok(runs)
        })
        .collect()
}

/// The shard index's codecs: `bytes` (its endian) and then bytes -> bytes codecs.
pub(super) fn index_codecs(value: Option<&Value>) -> Result<Option<(Endian, Vec<Value>)>> {
    let default = [Value::object([
        ("name", Value::from("bytes")),
        (
            "configuration",
            Value::object([("endian", Value::from("little"))]),
        ),
    ])];
    let list = match value {
        None => &default[..],
        Some(Value::Array(list)) => list.as_slice(),
        Some(other) => return Err(invalid(format!("index_codecs must be a list, got {other}"))),
    };
    let Some((first, rest)) = list.split_first() else {
        return Err(invalid("index_codecs is empty"));
    };
    let (name, config) = codec_name_and_config(first)?;
    if name != "bytes" {
        return Ok(None);
    }
    let bytes = crate::codec::Bytes::new(config, DataType::UInt64)?;
    Ok(Some((bytes.endian(), rest.to_vec())))
}
