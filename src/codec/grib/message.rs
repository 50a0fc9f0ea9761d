//! One GRIB2 message: its sections located and checked, then its values (Sections 5, 6 and 7)
//! or its grid's coordinates (Section 3), as ecCodes 2.50 gives `values`, `latitudes` and
//! `longitudes` from `codes_new_from_message`.
//!
//! A message may repeat Sections 2-7 (or 3-7, or 4-7) to hold several fields; ecCodes'
//! handle on such a message is its first field, and so is this reader's (the rest is only
//! checked to chain up to "7777").

use super::bitmap;
use super::grid::{self, Axis};
use super::scaling::Scaling;
use super::section::{corrupt, unsupported, Section};
use super::{ccsds, complex, ieee, jpeg2000, png, simple};
use crate::error::Result;

/// ecCodes' default `missingValue`, which it gives for a missing point.
pub const MISSING_VALUE: f64 = 9999.0;

/// The most values a message may claim before any is decoded (2 GiB of f64), so that a
/// damaged count cannot ask for more memory than a wasm module has.
const MAX_VALUES: usize = 1 << 28;

/// A GRIB2 message, its sections located and checked.
pub struct Message<'a> {
    grid: Section<'a>,
    representation: Section<'a>,
    bitmap: Section<'a>,
    data: Section<'a>,
}

impl<'a> Message<'a> {
    /// Locates and checks the sections of one whole GRIB2 message: `bytes` must be exactly the
    /// message ("GRIB", edition 2, its total length, "7777"), its sections 1 to 7 present in
    /// order and each within the message.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        if bytes.len() < 16 || &bytes[..4] != b"GRIB" {
            return Err(corrupt("not a GRIB message (no \"GRIB\" at its start)"));
        }
        match bytes[7] {
            2 => {}
            1 => return Err(unsupported("GRIB edition 1 messages (edition 2 is read)")),
            e => return Err(corrupt(format!("GRIB edition {e}"))),
        }
        let total = u64::from_be_bytes(bytes[8..16].try_into().expect("8 octets"));
        if total != bytes.len() as u64 {
            return Err(corrupt(format!(
                "the message says it is {total} octets long, the chunk is {}",
                bytes.len()
            )));
        }
        let end = bytes.len() - 4;
        if bytes.len() < 20 || &bytes[end..] != b"7777" {
            return Err(corrupt("the message does not end with \"7777\""));
        }

        let mut sections = Vec::new();
        let mut at = 16;
        while at < end {
            let header = bytes
                .get(at..at + 5)
                .filter(|_| at + 5 <= end)
                .ok_or_else(|| {
                    corrupt(format!(
                        "a section header at octet {} runs into \"7777\"",
                        at + 1
                    ))
                })?;
            let length = u32::from_be_bytes(header[..4].try_into().expect("4 octets")) as usize;
            let number = header[4];
            if length < 5 || length > end - at {
                return Err(corrupt(format!(
                    "section {number} at octet {} claims {length} octets, {} are left before \"7777\"",
                    at + 1,
                    end - at
                )));
            }
            sections.push(Section {
                number,
                bytes: &bytes[at..at + length],
            });
            at += length;
        }
        Self::first_field(&sections)
    }

    /// Sections 1, (2), 3, 4, 5, 6, 7 of the first field; then only repeats of 2-7 may follow.
    fn first_field(sections: &[Section<'a>]) -> Result<Self> {
        let numbers: Vec<u8> = sections.iter().map(|s| s.number).collect();
        let mut next = 0;
        let mut take = |number: u8| -> Result<Section<'a>> {
            match sections.get(next) {
                Some(s) if s.number == number => {
                    next += 1;
                    Ok(*s)
                }
                _ => Err(corrupt(format!(
                    "section {number} missing (the message's sections are {numbers:?})"
                ))),
            }
        };
        take(1)?;
        if sections.get(1).is_some_and(|s| s.number == 2) {
            take(2)?;
        }
        let grid = take(3)?;
        take(4)?;
        let representation = take(5)?;
        let bitmap = take(6)?;
        let data = take(7)?;
        if let Some(s) = sections[next..]
            .iter()
            .find(|s| !(2..=7).contains(&s.number))
        {
            return Err(corrupt(format!(
                "section {} after the first field (the message's sections are {numbers:?})",
                s.number
            )));
        }
        representation.require(11, "its header")?;
        bitmap.require(6, "its header")?;
        grid.require(14, "its header")?;
        Ok(Self {
            grid,
            representation,
            bitmap,
            data,
        })
    }

    /// Section 5's number of coded values.
    fn coded_count(&self) -> Result<usize> {
        Ok(self.representation.u32(6)? as usize)
    }

    /// Section 3's number of grid points.
    fn number_of_points(&self) -> Result<usize> {
        grid::number_of_points(&self.grid)
    }

    /// Section 6's bitmap, if the field has one.
    fn bitmap(&self) -> Result<Option<&'a [u8]>> {
        match self.bitmap.u8(6)? {
            0 => Ok(Some(self.bitmap.rest(7))),
            255 => Ok(None),
            254 => Err(unsupported(
                "a bitmap \"previously defined\" (indicator 254) in another field: a chunk is one field",
            )),
            n => Err(unsupported(format!("predefined bitmap {n} (section 6 indicator)"))),
        }
    }

    /// Section 3, the grid's definition.
    pub(super) fn grid(&self) -> &Section<'a> {
        &self.grid
    }

    /// How many values [`Message::values`] gives: the grid's points where a bitmap spreads the
    /// coded values over them, else the coded values (as ecCodes' `values` key counts them).
    pub fn values_len(&self) -> Result<usize> {
        if self.bitmap()?.is_some() {
            self.number_of_points()
        } else {
            self.coded_count()
        }
    }

    /// How many coordinates [`Message::latitudes`] and [`Message::longitudes`] give: the grid's
    /// points.
    pub fn points_len(&self) -> Result<usize> {
        self.number_of_points()
    }

    /// The grid's values as ecCodes gives `values` (missing points NaN).
    pub fn values(&self) -> Result<Vec<f64>> {
        let bitmap = self.bitmap()?;
        let coded = self.coded_count()?;
        let len = self.values_len()?;
        if bitmap.is_some() && coded > len {
            return Err(corrupt(format!(
                "section 5 codes {coded} values for a bitmap of {len} points"
            )));
        }
        for n in [coded, len] {
            if n > MAX_VALUES {
                return Err(unsupported(format!(
                    "a field of {n} values (at most {MAX_VALUES} are read)"
                )));
            }
        }
        let mut out = Vec::new();
        out.try_reserve_exact(coded.max(len))
            .map_err(|_| unsupported(format!("a field of {len} values does not fit in memory")))?;
        if coded > 0 {
            self.coded_values(coded, &mut out)?;
        }
        if let Some(bits) = bitmap {
            bitmap::apply(bits, len, &mut out, 0)?;
        }
        Ok(out)
    }

    /// Section 7's `count` values, decoded by Section 5's template.
    fn coded_values(&self, count: usize, out: &mut Vec<f64>) -> Result<()> {
        let s5 = &self.representation;
        let data = self.data.rest(6);
        let template = s5.u16(10)?;
        match template {
            0 => {
                s5.require(21, "template 5.0")?;
                simple::decode(data, s5.u8(20)? as u32, count, Scaling::read(s5)?, out)
            }
            2 | 3 => complex::decode(s5, template, data, count, Scaling::read(s5)?, out),
            4 => ieee::decode(s5, data, count, out),
            40 | 40000 => {
                s5.require(21, "template 5.40")?;
                let bits = s5.u8(20)? as u32;
                let scaling = Scaling::read(s5)?;
                integers(bits, count, scaling, out, || jpeg2000::decode(data, count))
            }
            41 => {
                s5.require(21, "template 5.41")?;
                let bits = s5.u8(20)?;
                let scaling = Scaling::read(s5)?;
                integers(bits as u32, count, scaling, out, || png::decode(data, bits, count))
            }
            42 => {
                s5.require(25, "template 5.42")?;
                let params = ccsds::Params {
                    bits: s5.u8(20)?,
                    flags: s5.u8(22)?,
                    block_size: s5.u8(23)?,
                    rsi: s5.u16(24)?,
                };
                let scaling = Scaling::read(s5)?;
                integers(params.bits as u32, count, scaling, out, || {
                    ccsds::decode(data, params, count)
                })
            }
            n => Err(unsupported(format!(
                "data representation template 5.{n} (5.0, 5.2, 5.3, 5.4, 5.40, 5.41 and 5.42 are read)"
            ))),
        }
    }

    /// The grid points' latitudes as ecCodes gives `latitudes`.
    pub fn latitudes(&self) -> Result<Vec<f64>> {
        self.coordinates(Axis::Latitude)
    }

    /// The grid points' longitudes as ecCodes gives `longitudes`.
    pub fn longitudes(&self) -> Result<Vec<f64>> {
        self.coordinates(Axis::Longitude)
    }

    fn coordinates(&self, axis: Axis) -> Result<Vec<f64>> {
        let points = self.number_of_points()?;
        if points > MAX_VALUES {
            return Err(unsupported(format!(
                "a grid of {points} points (at most {MAX_VALUES} are read)"
            )));
        }
        // ecCodes sizes the coordinates by `values` first, so a field whose values cannot be
        // counted has no coordinates either.
        self.values_len()?;
        grid::coordinates(&self.grid, axis)
    }
}

/// Templates 5.40, 5.41 and 5.42: the coded integers come from an image or entropy coder and
/// are scaled as simple packing's are (ecCodes' `data_jpeg2000_packing`, `data_png_packing`,
/// `data_ccsds_packing`). Bits per value 0 is a constant field, with no stream decoded.
fn integers(
    bits: u32,
    count: usize,
    scaling: Scaling,
    out: &mut Vec<f64>,
    decode: impl FnOnce() -> Result<Vec<u32>>,
) -> Result<()> {
    if bits == 0 {
        out.resize(out.len() + count, scaling.reference);
        return Ok(());
    }
    if bits > 32 {
        return Err(corrupt(format!("{bits} bits per value (at most 32)")));
    }
    let integers = decode()?;
    if integers.len() != count {
        return Err(corrupt(format!(
            "the coded stream holds {} values, section 5 counts {count}",
            integers.len()
        )));
    }
    out.extend(integers.iter().map(|&x| scaling.apply(x as f64)));
    Ok(())
}
