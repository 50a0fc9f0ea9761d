//! Section 3: the grid points' coordinates, as ecCodes' geoiterator gives them (the
//! `latitudes` and `longitudes` keys), for the grid definition templates read here: 3.0
//! (regular latitude/longitude), 3.1 (rotated latitude/longitude), 3.10 (Mercator), 3.20 (polar stereographic) and 3.30 (Lambert
//! conformal).
//!
//! Every step is ecCodes' own, in its order: the octets read as its keys read them (a value of
//! 0x7FFFFFFF is "missing" wherever it stands), degrees as micro-degrees divided by 10^6, the
//! latitudes and longitudes of a regular grid accumulated by repeated addition from the first
//! point, and the projection's formulas as its iterator writes them. The points come in the
//! order the values are stored; ecCodes does not reorder for the scanning mode.

use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

use super::scaling::reference_value;
use super::section::{corrupt, unsupported, Section, MISSING_DOUBLE, MISSING_LONG};
use crate::error::Result;

/// Which coordinate to give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Axis {
    Latitude,
    Longitude,
}

/// ecCodes' `DEG2RAD` and `RAD2DEG`, as written there (their doubles are what count).
#[allow(clippy::excessive_precision)]
const DEG2RAD: f64 = 0.01745329251994329576;
#[allow(clippy::excessive_precision)]
const RAD2DEG: f64 = 57.29577951308232087684;

/// The grid's number of points (Section 3, octets 7-10), the length of the coordinates.
pub(super) fn number_of_points(s3: &Section) -> Result<usize> {
    Ok(s3.u32(7)? as usize)
}

/// The coordinate `axis` of every grid point.
pub(super) fn coordinates(s3: &Section, axis: Axis) -> Result<Vec<f64>> {
    s3.require(14, "its header")?;
    let points = number_of_points(s3)?;
    if points == 0 {
        return Err(corrupt("section 3 defines a grid of 0 points"));
    }
    match s3.u16(13)? {
        0 => regular_latlon(s3, points, axis, false),
        1 => regular_latlon(s3, points, axis, true),
        10 => mercator(s3, points, axis),
        20 => polar_stereographic(s3, points, axis),
        30 => lambert_conformal(s3, points, axis),
        n => Err(unsupported(format!(
            "grid definition template 3.{n}: only the values are read (latitudes and longitudes \
             are computed for templates 3.0, 3.1, 3.10, 3.20 and 3.30)"
        ))),
    }
}

/// A projected grid's two sizes (octets 31-34 and 35-38, named `names` in messages), checked to
/// make its `points` points.
fn projected_size(s3: &Section, points: usize, names: (&str, &str)) -> Result<(i64, i64)> {
    let (x, y) = (s3.u32(31)? as i64, s3.u32(35)? as i64);
    if x.checked_mul(y) != Some(points as i64) {
        return Err(corrupt(format!(
            "{} x {} = {x} x {y} differs from the grid's {points} points",
            names.0, names.1
        )));
    }
    Ok((x, y))
}

/// A `g2grid` angle: micro-degrees, or units of the basic angle's subdivisions.
fn g2_degrees(value: i64, basic: i64, subdivisions: i64) -> f64 {
    if value == MISSING_LONG {
        MISSING_DOUBLE
    } else {
        value as f64 / subdivisions as f64 * basic as f64
    }
}

/// ecCodes' `normalise_longitude_in_degrees`: into [0, 360] by whole turns, one at a time.
/// A longitude so far out that this would take more than a thousand turns (or forever) is
/// refused.
fn normalise_longitude(mut lon: f64) -> Result<f64> {
    if lon.is_infinite() || lon.abs() > 360.0 * 1000.0 {
        return Err(corrupt(format!("a longitude of {lon} degrees")));
    }
    while lon < 0.0 {
        lon += 360.0;
    }
    while lon > 360.0 {
        lon -= 360.0;
    }
    Ok(lon)
}

fn allocate(points: usize) -> Result<Vec<f64>> {
    let mut v = Vec::new();
    v.try_reserve_exact(points)
        .map_err(|_| unsupported(format!("a grid of {points} points does not fit in memory")))?;
    Ok(v)
}

/// Templates 3.0 and 3.1, as ecCodes' `latlon` iterator (over its `regular` one): the rows'
/// latitudes and the columns' longitudes, each accumulated from the first by repeated steps
/// and the last forced to the grid's last, then each point taken from them (and, in a rotated
/// grid, turned back to geographic coordinates).
fn regular_latlon(s3: &Section, points: usize, axis: Axis, rotated: bool) -> Result<Vec<f64>> {
    let template = if rotated { "3.1" } else { "3.0" };
    s3.require(
        if rotated { 84 } else { 72 },
        &format!("grid definition template {template}"),
    )?;
    let ni = s3.u32_or_missing(31)?;
    let nj = s3.u32(35)? as i64;
    if ni == MISSING_LONG {
        return Err(if s3.u8(11)? != 0 {
            unsupported(format!(
                "grid definition template {template} as a reduced latitude/longitude grid"
            ))
        } else {
            corrupt("a regular latitude/longitude grid whose Ni is missing")
        });
    }
    if ni.checked_mul(nj) != Some(points as i64) {
        return Err(corrupt(format!(
            "Ni x Nj = {ni} x {nj} differs from the grid's {points} points"
        )));
    }
    let basic = match s3.u32(39)? as i64 {
        0 => 1,
        b => b,
    };
    let subdivisions = match s3.u32_or_missing(43)? {
        MISSING_LONG | 0 => 1_000_000,
        s => s,
    };
    let degrees = |v| g2_degrees(v, basic, subdivisions);
    let flags = s3.u8(55)?;
    let scanning = s3.u8(72)?;
    let i_negative = scanning & 0x80 != 0;
    let j_positive = scanning & 0x40 != 0;
    let j_consecutive = scanning & 0x20 != 0;
    let (ni, nj) = (ni as usize, nj as usize);

    // The columns' longitudes: the step is computed from the first and last (the coded one is
    // used only for a single column, where it does not matter).
    let mut lon1 = degrees(s3.i32(51)?);
    let mut lon2 = degrees(s3.i32(60)?);
    let mut step = if flags & 0x20 != 0 {
        degrees(s3.u32_or_missing(64)?)
    } else {
        MISSING_DOUBLE
    };
    if ni > 1 {
        let span = if i_negative {
            if lon1 > lon2 {
                lon1 - lon2
            } else {
                lon1 + 360.0 - lon2
            }
        } else if lon2 > lon1 {
            lon2 - lon1
        } else {
            lon2 + 360.0 - lon1
        };
        step = span / (ni as i64 - 1) as f64;
    }
    if i_negative {
        step = -step;
    } else if lon1 + (ni as i64 - 2) as f64 * step > 360.0 {
        lon1 -= 360.0;
    }
    let mut lons = Vec::with_capacity(ni);
    for _ in 0..ni {
        lons.push(lon1);
        lon1 += step;
    }
    if lon2 > 0.0 {
        lon2 = normalise_longitude(lon2)?;
    }
    lons[ni - 1] = lon2;

    // The rows' latitudes: the coded step, or one computed from the first and last.
    let mut lat1 = degrees(s3.i32(47)?);
    let lat2 = degrees(s3.i32(56)?);
    let mut step = if flags & 0x10 != 0 {
        degrees(s3.u32_or_missing(68)?)
    } else {
        MISSING_DOUBLE
    };
    if step == MISSING_DOUBLE {
        let span = if lat1 > lat2 {
            lat1 - lat2
        } else {
            lat2 - lat1
        };
        step = span / (nj as i64 - 1) as f64;
    }
    let (north, south) = if j_positive {
        step = -step;
        (lat2, lat1)
    } else {
        (lat1, lat2)
    };
    if south > north {
        return Err(corrupt(format!(
            "first and last latitudes {lat1} and {lat2} contradict the scanning mode"
        )));
    }
    let mut lats = Vec::with_capacity(nj);
    for _ in 0..nj {
        lats.push(lat1);
        lat1 -= step;
    }
    lats[nj - 1] = lat2;

    let mut out = allocate(points)?;
    if rotated {
        let pole = Rotation {
            pole_lat: scale(s3.i32(73)?, 1e6),
            pole_lon: scale(s3.u32(77)? as i64, 1e6),
            angle: reference_value(s3.u32(81)?),
        };
        for e in 0..points {
            let (lat, lon) = if j_consecutive {
                (lats[e % nj], lons[e / nj])
            } else {
                (lats[e / ni], lons[e % ni])
            };
            let (lat, lon) = pole.unrotate(lat, lon);
            out.push(match axis {
                Axis::Latitude => lat,
                Axis::Longitude => lon,
            });
        }
        return Ok(out);
    }
    match (axis, j_consecutive) {
        (Axis::Longitude, false) => (0..nj).for_each(|_| out.extend_from_slice(&lons)),
        (Axis::Longitude, true) => {
            out.extend(lons.iter().flat_map(|&x| std::iter::repeat_n(x, nj)))
        }
        (Axis::Latitude, false) => {
            out.extend(lats.iter().flat_map(|&y| std::iter::repeat_n(y, ni)))
        }
        (Axis::Latitude, true) => (0..ni).for_each(|_| out.extend_from_slice(&lats)),
    }
    Ok(out)
}

/// A rotated grid's southern pole and rotation (template 3.1's octets 73-84).
struct Rotation {
    pole_lat: f64,
    pole_lon: f64,
    angle: f64,
}

impl Rotation {
    /// ecCodes' `unrotate`: the point through the rotation's matrix, back to degrees, then
    /// rounded to 6 decimals in single precision (its `roundf`, which keeps only 24 bits of
    /// the scaled value), less the angle of rotation. Longitudes are not normalised.
    fn unrotate(&self, lat: f64, lon: f64) -> (f64, f64) {
        let (latr, lonr) = (lat * DEG2RAD, lon * DEG2RAD);
        let xd = lonr.cos() * latr.cos();
        let yd = lonr.sin() * latr.cos();
        let zd = latr.sin();
        let t = -(90.0 + self.pole_lat);
        let o = -self.pole_lon;
        let (sin_t, cos_t) = ((DEG2RAD * t).sin(), (DEG2RAD * t).cos());
        let (sin_o, cos_o) = ((DEG2RAD * o).sin(), (DEG2RAD * o).cos());
        let x = cos_t * cos_o * xd + sin_o * yd + sin_t * cos_o * zd;
        let y = -cos_t * sin_o * xd + cos_o * yd - sin_t * sin_o * zd;
        let z = (-sin_t * xd + cos_t * zd).clamp(-1.0, 1.0);
        let lat = z.asin() * RAD2DEG;
        let lon = y.atan2(x) * RAD2DEG;
        let round6 = |v: f64| ((v * 1_000_000.0) as f32).round() as f64 / 1_000_000.0;
        (round6(lat), round6(lon) - self.angle)
    }
}

/// The earth's shape (template 3.2's octets 15-30), as ecCodes' keys give it.
enum Earth {
    Sphere { radius: f64 },
    Spheroid { major: f64, minor: f64 },
}

/// ecCodes' `from_scale_factor_scaled_value`: the scaled value divided by 10 as many times as
/// the scale factor says (a missing factor counts as 0).
fn scaled(s3: &Section, factor_at: usize, value_at: usize) -> Result<f64> {
    let value = s3.u32(value_at)?;
    if value == u32::MAX {
        return Err(corrupt("the earth's dimension is missing from section 3"));
    }
    let mut factor = match s3.u8(factor_at)? {
        255 => 0,
        f => f,
    };
    let mut v = value as f64;
    while factor > 0 {
        v /= 10.0;
        factor -= 1;
    }
    Ok(v)
}

fn earth(s3: &Section) -> Result<Earth> {
    let shape = s3.u8(15)?;
    Ok(match shape {
        0 => Earth::Sphere {
            radius: 6_367_470.0,
        },
        1 => Earth::Sphere {
            radius: scaled(s3, 16, 17)?,
        },
        6 => Earth::Sphere {
            radius: 6_371_229.0,
        },
        8 => Earth::Sphere {
            radius: 6_371_200.0,
        },
        2 => Earth::Spheroid {
            major: 6_378_160.0,
            minor: 6_356_775.0,
        },
        3 => Earth::Spheroid {
            major: scaled(s3, 21, 22)? * 1000.0,
            minor: scaled(s3, 26, 27)? * 1000.0,
        },
        4 | 5 => Earth::Spheroid {
            major: 6_378_137.0,
            minor: 6_356_752.314,
        },
        7 => Earth::Spheroid {
            major: scaled(s3, 21, 22)?,
            minor: scaled(s3, 26, 27)?,
        },
        9 => Earth::Spheroid {
            major: 6_377_563.396,
            minor: 6_356_256.909,
        },
        s => {
            return Err(unsupported(format!(
                "shape of the earth {s} (code table 3.2) in a projected grid"
            )))
        }
    })
}

/// ecCodes' `scale` keys: micro-degrees (and millimetres) divided once.
fn scale(v: i64, divisor: f64) -> f64 {
    if v == MISSING_LONG {
        MISSING_DOUBLE
    } else {
        v as f64 / divisor
    }
}

/// Template 3.20, as ecCodes' `polar_stereographic` iterator (Snyder's formulas for the
/// sphere): the projection's centre at LaD, its points laid out from the first one by steps
/// added one at a time, whatever the scanning mode says.
fn polar_stereographic(s3: &Section, points: usize, axis: Axis) -> Result<Vec<f64>> {
    s3.require(65, "grid definition template 3.20")?;
    let radius =
        match earth(s3)? {
            Earth::Sphere { radius } => radius,
            Earth::Spheroid { .. } => return Err(unsupported(
                "a polar stereographic grid on an ellipsoid (ecCodes computes it on a sphere only)",
            )),
        };
    let (nx, ny) = projected_size(s3, points, ("Nx", "Ny"))?;
    let lat_first = scale(s3.i32(39)?, 1e6) * DEG2RAD;
    let lon_first = scale(s3.u32(43)? as i64, 1e6) * DEG2RAD;
    let centre_lat = scale(s3.i32(48)?, 1e6) * DEG2RAD;
    let centre_lon = scale(s3.i32(52)?, 1e6) * DEG2RAD;
    let dx = scale(s3.u32(56)? as i64, 1e3);
    let dy = scale(s3.u32(60)? as i64, 1e3);

    let sign = if centre_lat < 0.0 { -1.0 } else { 1.0 };
    // Away from the pole the scale is true at the centre's latitude.
    let secant = (centre_lat.abs() - FRAC_PI_2).abs() > 1e-10;
    let (mcs, tcs) = if secant {
        let c = sign * centre_lat;
        (c.cos(), (0.5 * (FRAC_PI_2 - c)).tan())
    } else {
        (0.0, 0.0)
    };
    // The first point, projected forward, places the grid.
    let angle = sign * (lon_first - centre_lon);
    let ts = (0.5 * (FRAC_PI_2 - sign * lat_first)).tan();
    let height = if secant {
        radius * mcs * ts / tcs
    } else {
        2.0 * radius * ts
    };
    // (The added zeros are ecCodes' false easting and northing: they turn -0 into +0.)
    let false_easting = -(sign * height * angle.sin() + 0.0);
    let false_northing = -(-sign * height * angle.cos() + 0.0);

    let mut out = allocate(points)?;
    let mut y = 0.0;
    for _ in 0..ny {
        let mut x = 0.0;
        for _ in 0..nx {
            let px = (x - false_easting) * sign;
            let py = (y - false_northing) * sign;
            let rh = (px * px + py * py).sqrt();
            out.push(match axis {
                Axis::Latitude => {
                    let ts = if secant {
                        rh * tcs / (radius * mcs)
                    } else {
                        rh / (radius * 2.0)
                    };
                    sign * (FRAC_PI_2 - 2.0 * ts.atan()) * RAD2DEG
                }
                Axis::Longitude => {
                    let lon = if rh == 0.0 {
                        sign * centre_lon
                    } else {
                        sign * px.atan2(-py) + centre_lon
                    };
                    normalise_longitude(lon * RAD2DEG)?
                }
            });
            x += dx;
        }
        y += dy;
    }
    Ok(out)
}

/// Template 3.10, as ecCodes' `mercator` iterator (Snyder's formulas, on the ellipsoid or the
/// sphere). Latitudes and longitudes are computed together, as there, so that a point whose
/// latitude cannot be found fails either request.
fn mercator(s3: &Section, points: usize, axis: Axis) -> Result<Vec<f64>> {
    s3.require(72, "grid definition template 3.10")?;
    let (major, minor) = match earth(s3)? {
        Earth::Sphere { radius } => (radius, radius),
        Earth::Spheroid { major, minor } => (major, minor),
    };
    let (ni, nj) = projected_size(s3, points, ("Ni", "Nj"))?;
    let lat_first = scale(s3.i32(39)?, 1e6) * DEG2RAD;
    let lon_first = scale(s3.i32(43)?, 1e6) * DEG2RAD;
    let lad = scale(s3.i32(48)?, 1e6) * DEG2RAD;
    let orientation = scale(s3.u32(61)? as i64, 1e6) * DEG2RAD;
    let di = scale(s3.u32(65)? as i64, 1e3);
    let dj = scale(s3.u32(69)? as i64, 1e3);

    let t = minor / major;
    let es = 1.0 - t * t;
    let e = es.sqrt();
    let m1 = lad.cos() / (1.0 - es * lad.sin() * lad.sin()).sqrt();
    if (lat_first.abs() - FRAC_PI_2).abs() <= 1e-10 {
        return Err(corrupt("a Mercator grid whose first point is at a pole"));
    }
    let ts = compute_t(e, lat_first, lat_first.sin());
    let false_easting = -(major * m1 * adjust_lon(lon_first - orientation));
    let false_northing = -(0.0 - major * m1 * ts.ln());

    let mut out = allocate(points)?;
    for j in 0..nj {
        let y = j as f64 * dj;
        for i in 0..ni {
            let x = i as f64 * di;
            let px = x - false_easting;
            let py = y - false_northing;
            let ts = (-py / (major * m1)).exp();
            let lat = compute_phi(e, ts)
                .ok_or_else(|| corrupt("a Mercator point whose latitude does not converge"))?;
            out.push(match axis {
                Axis::Latitude => lat * RAD2DEG,
                Axis::Longitude => {
                    normalise_longitude(adjust_lon(orientation + px / (major * m1)) * RAD2DEG)?
                }
            });
        }
    }
    Ok(out)
}

/// Template 3.30, as ecCodes' `lambert_conformal` iterator. It lays the points out from the
/// first one along +x then +y whatever the scanning mode says (ecCodes' choice, GRIB-405).
fn lambert_conformal(s3: &Section, points: usize, axis: Axis) -> Result<Vec<f64>> {
    s3.require(81, "grid definition template 3.30")?;
    let (nx, ny) = projected_size(s3, points, ("Nx", "Ny"))?;
    let earth = earth(s3)?;
    let lat_first = scale(s3.i32(39)?, 1e6);
    let lon_first = scale(s3.u32(43)? as i64, 1e6);
    let lad = scale(s3.i32(48)?, 1e6);
    let lov = scale(s3.u32(52)? as i64, 1e6);
    let dx = scale(s3.u32(56)? as i64, 1e3);
    let dy = scale(s3.u32(60)? as i64, 1e3);
    let latin1 = scale(s3.i32(66)?, 1e6);
    let latin2 = scale(s3.i32(70)?, 1e6);
    if (latin1 + latin2).abs() < 1e-10 {
        return Err(corrupt(
            "a Lambert conformal grid whose standard parallels are opposite about the equator",
        ));
    }
    let p = Projection {
        nx: nx as usize,
        ny: ny as usize,
        dx,
        dy,
        lat_first: lat_first * DEG2RAD,
        lon_first: lon_first * DEG2RAD,
        latin1: latin1 * DEG2RAD,
        latin2: latin2 * DEG2RAD,
        lad: lad * DEG2RAD,
        lov: lov * DEG2RAD,
    };
    let mut out = allocate(points)?;
    match earth {
        Earth::Sphere { radius } => p.sphere(radius, axis, &mut out)?,
        Earth::Spheroid { major, minor } => p.spheroid(major, minor, axis, &mut out)?,
    }
    Ok(out)
}

/// Template 3.30's parameters, angles in radians, lengths in metres.
struct Projection {
    nx: usize,
    ny: usize,
    dx: f64,
    dy: f64,
    lat_first: f64,
    lon_first: f64,
    latin1: f64,
    latin2: f64,
    lad: f64,
    lov: f64,
}

impl Projection {
    /// ecCodes' `init_sphere` and `xy2lonlat`.
    fn sphere(&self, radius: f64, axis: Axis, out: &mut Vec<f64>) -> Result<()> {
        let n = if (self.latin1 - self.latin2).abs() < 1e-9 {
            self.latin1.sin()
        } else {
            (self.latin1.cos() / self.latin2.cos()).ln()
                / ((FRAC_PI_4 + self.latin2 / 2.0).tan() / (FRAC_PI_4 + self.latin1 / 2.0).tan())
                    .ln()
        };
        let f = (self.latin1.cos() * (FRAC_PI_4 + self.latin1 / 2.0).tan().powf(n)) / n;
        let rho = radius * f * (FRAC_PI_4 + self.lat_first / 2.0).tan().powf(-n);
        let rho0_bare = f * (FRAC_PI_4 + self.lad / 2.0).tan().powf(-n);
        let rho0 = radius * rho0_bare;
        let mut lon_diff = self.lon_first - self.lov;
        if lon_diff > PI {
            lon_diff -= 2.0 * PI;
        }
        if lon_diff < -PI {
            lon_diff += 2.0 * PI;
        }
        let angle = n * lon_diff;
        let x0 = rho * angle.sin();
        let y0 = rho0 - rho * angle.cos();
        for j in 0..self.ny {
            let y = y0 + j as f64 * self.dy;
            for i in 0..self.nx {
                let x = x0 + i as f64 * self.dx;
                let x = x / radius;
                let y = rho0_bare - y / radius;
                let rho = x.hypot(y);
                out.push(if rho != 0.0 {
                    let (rho, x, y) = if n < 0.0 { (-rho, -x, -y) } else { (rho, x, y) };
                    match axis {
                        Axis::Latitude => {
                            (2.0 * (f / rho).powf(1.0 / n).atan() - FRAC_PI_2) * RAD2DEG
                        }
                        Axis::Longitude => {
                            normalise_longitude((x.atan2(y) / n + self.lov) * RAD2DEG)?
                        }
                    }
                } else {
                    match axis {
                        Axis::Latitude => (if n > 0.0 { FRAC_PI_2 } else { -FRAC_PI_2 }) * RAD2DEG,
                        Axis::Longitude => 0.0,
                    }
                });
            }
        }
        Ok(())
    }

    /// ecCodes' `init_oblate` (Snyder's formulas for the ellipsoid). Latitudes and longitudes
    /// are computed together, as there, so that a point whose latitude cannot be found fails
    /// either request.
    fn spheroid(&self, major: f64, minor: f64, axis: Axis, out: &mut Vec<f64>) -> Result<()> {
        let e = {
            let t = minor / major;
            (1.0 - t * t).sqrt()
        };
        let (sin1, cos1) = (self.latin1.sin(), self.latin1.cos());
        let ms1 = compute_m(e, sin1, cos1);
        let ts1 = compute_t(e, self.latin1, sin1);
        let (sin2, cos2) = (self.latin2.sin(), self.latin2.cos());
        let ms2 = compute_m(e, sin2, cos2);
        let ts2 = compute_t(e, self.latin2, sin2);
        let ts0 = compute_t(e, self.lad, self.lad.sin());
        let ns = if (self.latin1 - self.latin2).abs() > 1e-10 {
            (ms1 / ms2).ln() / (ts1 / ts2).ln()
        } else {
            sin1
        };
        let big_f = ms1 / (ns * ts1.powf(ns));
        let rh = major * big_f * ts0.powf(ns);
        let rh1 = if (self.lat_first.abs() - FRAC_PI_2).abs() > 1e-10 {
            let ts = compute_t(e, self.lat_first, self.lat_first.sin());
            major * big_f * ts.powf(ns)
        } else {
            if self.lat_first * ns <= 0.0 {
                return Err(corrupt(
                    "a Lambert conformal grid whose first point cannot be projected",
                ));
            }
            0.0
        };
        let theta = ns * adjust_lon(self.lon_first - self.lov);
        let false_easting = -(rh1 * theta.sin());
        let false_northing = -(rh - rh1 * theta.cos());
        for j in 0..self.ny {
            let y = j as f64 * self.dy;
            for i in 0..self.nx {
                let x = i as f64 * self.dx;
                let x = x - false_easting;
                let y = rh - y + false_northing;
                let mut rh1 = (x * x + y * y).sqrt();
                let mut con = 1.0;
                if ns <= 0.0 {
                    rh1 = -rh1;
                    con = -con;
                }
                let theta = if rh1 != 0.0 {
                    (con * x).atan2(con * y)
                } else {
                    0.0
                };
                let lat = if rh1 != 0.0 || ns > 0.0 {
                    let ts = (rh1 / (major * big_f)).powf(1.0 / ns);
                    compute_phi(e, ts).ok_or_else(|| {
                        corrupt("a Lambert conformal point whose latitude does not converge")
                    })?
                } else {
                    -FRAC_PI_2
                };
                out.push(match axis {
                    Axis::Latitude => lat * RAD2DEG,
                    Axis::Longitude => {
                        normalise_longitude(adjust_lon(theta / ns + self.lov) * RAD2DEG)?
                    }
                });
            }
        }
        Ok(())
    }
}

fn adjust_lon(mut lon: f64) -> f64 {
    if lon > PI {
        lon -= 2.0 * PI;
    }
    if lon < -PI {
        lon += 2.0 * PI;
    }
    lon
}

fn compute_m(e: f64, sinphi: f64, cosphi: f64) -> f64 {
    let con = e * sinphi;
    cosphi / (1.0 - con * con).sqrt()
}

fn compute_t(e: f64, phi: f64, sinphi: f64) -> f64 {
    let con = e * sinphi;
    let com = 0.5 * e;
    let con = ((1.0 - con) / (1.0 + con)).powf(com);
    (0.5 * (FRAC_PI_2 - phi)).tan() / con
}

/// The latitude whose t is `ts` (Snyder's equation 7-9), by ecCodes' iteration: at most 16
/// steps, or none.
fn compute_phi(e: f64, ts: f64) -> Option<f64> {
    let half_e = 0.5 * e;
    let mut phi = FRAC_PI_2 - 2.0 * ts.atan();
    for _ in 0..=15 {
        let con = e * phi.sin();
        let dphi = FRAC_PI_2 - 2.0 * (ts * ((1.0 - con) / (1.0 + con)).powf(half_e)).atan() - phi;
        phi += dphi;
        if dphi.abs() <= 0.0000000001 {
            return Some(phi);
        }
    }
    None
}
