//! gribberish's two options of its zarr codec, applied to a decoded field as gribberish 1.9.0
//! applies them: `adjust_longitude_range` turns a global latitude/longitude grid whose columns
//! run over [0, 360) into one over [-180, 180) (each row rotated left to the column nearest the
//! antimeridian from the east), and `north_up` reverses the rows of a grid whose rows run south
//! to north. gribberish decides both from Section 3 alone, with its own reading of the octets
//! (degrees as micro-degrees times 10^-6, the axis as start + step * i); so does this file, so
//! that the same grids are turned. Read for latitude/longitude grids (3.0) and Lambert
//! conformal ones (3.30, where only `north_up` applies); any other grid with an option set is
//! refused.

use super::section::{corrupt, unsupported, Section};
use crate::error::Result;

/// What gribberish's options ask of a field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    pub adjust_longitude_range: bool,
    pub north_up: bool,
}

impl Options {
    pub fn any(self) -> bool {
        self.adjust_longitude_range || self.north_up
    }
}

/// gribberish's micro-degrees: the octets as an unsigned integer times 10^-6.
fn micro(v: u32) -> f64 {
    v as f64 * 10f64.powf(-6.0)
}

/// Reorders `values` (the grid's points, rows of `nx`) as gribberish's options ask.
pub(super) fn apply(s3: &Section, options: Options, values: &mut [f64]) -> Result<()> {
    if !options.any() {
        return Ok(());
    }
    let template = s3.u16(13)?;
    let (nx, ny, scanning, row_step, columns) = match template {
        0 => {
            s3.require(72, "grid definition template 3.0")?;
            let scanning = s3.u8(72)?;
            let di = micro(s3.u32(64)?);
            let di = if scanning & 0x80 != 0 { -di } else { di };
            let dj = micro(s3.u32(68)?);
            let dj = if scanning & 0x40 == 0 { -dj } else { dj };
            (
                s3.u32(31)? as usize,
                s3.u32(35)? as usize,
                scanning,
                dj,
                Some((micro(s3.u32(51)?), di)),
            )
        }
        30 => {
            s3.require(65, "grid definition template 3.30")?;
            let scanning = s3.u8(65)?;
            let dy = s3.u32(60)? as f64;
            let dy = if scanning & 0x40 == 0 { -dy } else { dy };
            (
                s3.u32(31)? as usize,
                s3.u32(35)? as usize,
                scanning,
                dy,
                None,
            )
        }
        n => {
            return Err(unsupported(format!(
                "gribberish's adjust_longitude_range and north_up on grid definition template \
                 3.{n} (read for 3.0 and 3.30)"
            )))
        }
    };
    if scanning & 0x20 != 0 {
        return Err(unsupported(
            "gribberish's adjust_longitude_range and north_up on a grid stored column by column",
        ));
    }
    if nx.checked_mul(ny) != Some(values.len()) {
        return Err(corrupt(format!(
            "a grid of {nx} x {ny} points holding {} values",
            values.len()
        )));
    }
    if options.adjust_longitude_range {
        if let Some(roll) = columns.and_then(|(start, step)| wrap_roll(start, step, nx)) {
            for row in values.chunks_exact_mut(nx) {
                row.rotate_left(roll);
            }
        }
    }
    if options.north_up && row_step > 0.0 {
        let rows = values.len() / nx.max(1);
        for j in 0..rows / 2 {
            let (top, bottom) = values.split_at_mut((rows - 1 - j) * nx);
            top[j * nx..(j + 1) * nx].swap_with_slice(&mut bottom[..nx]);
        }
    }
    Ok(())
}

/// For a grid whose `nx` columns run from `start` by `step` (gribberish's axis, wrapped into
/// [0, 360) as it wraps it), the columns to rotate each row left so that the longitudes,
/// wrapped into [-180, 180), ascend; `None` where gribberish leaves the grid alone (fewer than
/// two columns, a descending axis, or columns that do not cover the globe to within a quarter
/// of a step).
fn wrap_roll(start: f64, step: f64, nx: usize) -> Option<usize> {
    if nx < 2 {
        return None;
    }
    let lon = |i: usize| {
        let lon = start + step * i as f64;
        if lon >= 360.0 {
            lon - 360.0
        } else if lon < 0.0 && start >= 0.0 {
            lon + 360.0
        } else {
            lon
        }
    };
    let dx = lon(1) - lon(0);
    if dx <= 0.0 || (dx * nx as f64 - 360.0).abs() >= dx / 4.0 {
        return None;
    }
    let wrapped = |lon: f64| if lon >= 180.0 { lon - 360.0 } else { lon };
    let mut roll = 0;
    let mut least = f64::INFINITY;
    for i in 0..nx {
        let w = wrapped(lon(i));
        if w < least {
            least = w;
            roll = i;
        }
    }
    Some(roll)
}

#[cfg(test)]
mod tests {
    use super::wrap_roll;

    #[test]
    fn rolls_a_global_axis_to_the_antimeridian() {
        // 0, 4, ..., 356: the first column at or past 180 (index 45) leads.
        assert_eq!(wrap_roll(0.0, 4.0, 90), Some(45));
        // Already from -180: nothing to move.
        assert_eq!(wrap_roll(180.0, 4.0, 90), Some(0));
        // Regional, descending, or one column: left alone.
        assert_eq!(wrap_roll(0.0, 4.0, 45), None);
        assert_eq!(wrap_roll(356.0, -4.0, 90), None);
        assert_eq!(wrap_roll(0.0, 4.0, 1), None);
    }
}
