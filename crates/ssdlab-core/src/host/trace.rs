//! Block traces, read one line at a time (a trace of any length replays in constant memory).
//!
//! Formats, each as its own source defines it:
//! - `iolog`: fio's `write_iolog` output. Version 2 (`filename action offset length`, no times: replay as
//!   fast as the queue depth allows) and version 3 (a leading timestamp in microseconds since the start).
//! - `blkparse`: blkparse's default text output (`maj,min cpu seq time pid action rwbs sector + blocks
//!   [process]`); the queue events (`Q`) are the requests, sectors are 512 bytes, RWBS `R`/`W`/`D`
//!   (discard)/`F` (flush).
//! - `msr`: the MSR Cambridge traces as SNIA IOTTA publishes them (`Timestamp,Hostname,DiskNumber,Type,
//!   Offset,Size,ResponseTime`, the timestamp in Windows filetime: 100 ns units).
//! - `spc`: the SPC trace format of the UMass repository (`ASU,LBA,Size,Opcode,Timestamp`, LBA in 512-byte
//!   blocks, size in bytes, opcode `r`/`w`, timestamp in seconds).
//! - `csv`: ssdlab's own, with a header line `time_us,op,offset,length` (op read/write/trim/flush, bytes).
//!
//! Commands address 512 B sectors: a request is widened to the whole sectors it touches (one inside a
//! 4 KiB page costs the drive what a partial page costs, a read or a read-modify-write of it). Requests beyond the
//! drive's capacity wrap around it (offset modulo capacity) or are refused, as the reader is told.

use super::command::{Command, Op};
use super::workload::MAX_TIME_NS;
use crate::engine::Ns;
use std::fmt;
use std::io::BufRead;
use std::str::FromStr;

/// A trace file layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// fio's `write_iolog` (v2, v3).
    Iolog,
    /// blkparse's default text output.
    Blkparse,
    /// MSR Cambridge CSV.
    Msr,
    /// The SPC trace format.
    Spc,
    /// `time_us,op,offset,length`.
    Csv,
}

impl TraceFormat {
    /// The names [`TraceFormat::from_str`] takes.
    pub const NAMES: &'static str = "iolog, blkparse, msr, spc, csv";

    /// Guess the format from the first line that is not blank.
    pub fn detect(first_line: &str) -> Option<Self> {
        let line = first_line.trim();
        if line.starts_with("fio version") {
            return Some(TraceFormat::Iolog);
        }
        if line.starts_with("time_us,") {
            return Some(TraceFormat::Csv);
        }
        let commas: Vec<&str> = line.split(',').collect();
        if commas.len() >= 7 && matches!(commas[3].trim(), "Read" | "Write") {
            return Some(TraceFormat::Msr);
        }
        if commas.len() >= 5 && matches!(commas[3].trim(), "r" | "R" | "w" | "W") {
            return Some(TraceFormat::Spc);
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() >= 7 && fields[0].contains(',') && fields[3].contains('.') {
            return Some(TraceFormat::Blkparse);
        }
        None
    }
}

impl FromStr for TraceFormat {
    type Err = TraceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "iolog" => TraceFormat::Iolog,
            "blkparse" => TraceFormat::Blkparse,
            "msr" => TraceFormat::Msr,
            "spc" => TraceFormat::Spc,
            "csv" => TraceFormat::Csv,
            _ => {
                return Err(TraceError::new(0, format!("format must be one of {} (got {s:?})", Self::NAMES)))
            }
        })
    }
}

/// A line of a trace that cannot be replayed, or a trace that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct TraceError {
    /// 1-based line number (0: not about one line).
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

impl TraceError {
    fn new(line: u64, message: impl Into<String>) -> Self {
        TraceError { line, message: message.into() }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

/// A parsed line: raw time in the format's unit (if it has times), op, byte offset, byte length.
type Request = (Option<f64>, Op, u64, u64);

/// One request of a trace: when (ns after the trace's first request; `None` if the format has no times),
/// and the command, already in whole 512 B sectors inside the drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// When, from the first request.
    pub at_ns: Option<Ns>,
    /// The request.
    pub cmd: Command,
}

/// Reads requests from a trace, one line at a time.
///
/// ```
/// use ssdlab_core::{Op, TraceFormat, TraceReader};
/// let text = "time_us,op,offset,length\n0,write,0,8192\n250.5,read,1000,100\n";
/// let mut r = TraceReader::new(text.as_bytes(), TraceFormat::Csv, 1 << 30, true);
/// let a = r.next().unwrap().unwrap();
/// let b = r.next().unwrap().unwrap();
/// assert_eq!((a.at_ns, a.cmd.op, a.cmd.len), (Some(0), Op::Write, 8192));
/// assert_eq!((b.at_ns, b.cmd.offset, b.cmd.len), (Some(250_500), 512, 1024)); // widened to its sectors
/// assert!(r.next().is_none());
/// ```
pub struct TraceReader<R> {
    input: R,
    format: TraceFormat,
    capacity: u64,
    wrap: bool,
    line_no: u64,
    buf: String,
    /// The first request's raw timestamp, in the format's own unit: times are relative to it.
    origin: Option<f64>,
    /// Lines read that are not requests (headers, fio's add/open/close, blkparse's other events).
    pub lines_ignored: u64,
}

impl<R: BufRead> TraceReader<R> {
    /// A reader for a drive of `capacity` bytes; `wrap` folds requests beyond it back onto it, otherwise
    /// they are errors.
    pub fn new(input: R, format: TraceFormat, capacity: u64, wrap: bool) -> Self {
        TraceReader {
            input,
            format,
            capacity,
            wrap,
            line_no: 0,
            buf: String::new(),
            origin: None,
            lines_ignored: 0,
        }
    }

    /// Lines read so far.
    pub fn lines_read(&self) -> u64 {
        self.line_no
    }

    /// The format's raw fields of one line -> (raw time, op, byte offset, byte length), or None for a line
    /// that is not a request.
    fn parse(&self, line: &str) -> Result<Option<Request>, String> {
        let num = |s: &str, what: &str| -> Result<f64, String> {
            parse_f64(trim(s))
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("{what} must be a non-negative number (got {:?})", s.trim()))
        };
        let int = |s: &str, what: &str| -> Result<u64, String> {
            trim(s).parse::<u64>().map_err(|_| format!("{what} must be a whole number (got {:?})", s.trim()))
        };
        match self.format {
            TraceFormat::Iolog => {
                if line.starts_with("fio version") {
                    return Ok(None);
                }
                let f: Vec<&str> = line.split_whitespace().collect();
                // v3 lines start with a timestamp; v2 lines with the file name
                let (time, rest) = match f.first().map(|s| s.parse::<f64>()) {
                    Some(Ok(t)) if f.len() >= 3 => (Some(t), &f[1..]),
                    _ => (None, &f[..]),
                };
                let action = rest.get(1).copied().unwrap_or("");
                let op = match action {
                    "read" => Op::Read,
                    "write" => Op::Write,
                    "trim" => Op::Trim,
                    "sync" | "datasync" => Op::Flush,
                    "add" | "open" | "close" | "wait" => return Ok(None),
                    _ => {
                        return Err(format!(
                            "unknown iolog action {action:?} (read, write, trim, sync, datasync)"
                        ))
                    }
                };
                if op == Op::Flush {
                    return Ok(Some((time, op, 0, 0)));
                }
                let (Some(off), Some(len)) = (rest.get(2), rest.get(3)) else {
                    return Err("an iolog request needs an offset and a length".into());
                };
                Ok(Some((time, op, int(off, "offset")?, int(len, "length")?)))
            }
            TraceFormat::Blkparse => {
                let f: Vec<&str> = line.split_whitespace().collect();
                // summary lines ("CPU0 (8,0):", "Total ...") and other events are not requests
                if f.len() < 7 || !f[0].contains(',') || f[5] != "Q" {
                    return Ok(None);
                }
                let rwbs = f[6];
                let time = num(f[3], "time")?;
                let range = if f.len() >= 10 && f[8] == "+" {
                    Some((int(f[7], "sector")?, int(f[9], "blocks")?))
                } else {
                    None
                };
                // a flush (F) carries no data: no range, or a zero-length one
                if rwbs.contains('F') && range.is_none_or(|(_, blocks)| blocks == 0) {
                    return Ok(Some((Some(time), Op::Flush, 0, 0)));
                }
                let op = if rwbs.contains('D') {
                    Op::Trim
                } else if rwbs.contains('W') {
                    Op::Write
                } else if rwbs.contains('R') {
                    Op::Read
                } else {
                    return Ok(None);
                };
                let Some((sector, blocks)) = range else {
                    return Ok(None); // no sector range: nothing to replay
                };
                Ok(Some((Some(time), op, sector.saturating_mul(512), blocks.saturating_mul(512))))
            }
            TraceFormat::Msr => {
                let (f, count) = fields::<6>(line);
                if count < 6 {
                    return Err("an MSR line has 7 fields: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime".into());
                }
                let op = match trim(f[3]) {
                    "Read" => Op::Read,
                    "Write" => Op::Write,
                    t => return Err(format!("Type must be Read or Write (got {t:?})")),
                };
                Ok(Some((Some(num(f[0], "Timestamp")?), op, int(f[4], "Offset")?, int(f[5], "Size")?)))
            }
            TraceFormat::Spc => {
                let (f, count) = fields::<5>(line);
                if count < 5 {
                    return Err("an SPC line has 5 fields: ASU,LBA,Size,Opcode,Timestamp".into());
                }
                let op = match trim(f[3]) {
                    "r" | "R" => Op::Read,
                    "w" | "W" => Op::Write,
                    o => return Err(format!("Opcode must be r or w (got {o:?})")),
                };
                let lba = int(f[1], "LBA")?;
                Ok(Some((Some(num(f[4], "Timestamp")?), op, lba.saturating_mul(512), int(f[2], "Size")?)))
            }
            TraceFormat::Csv => {
                if line.starts_with("time_us") {
                    return Ok(None);
                }
                let (f, count) = fields::<4>(line);
                if count != 4 {
                    return Err("a csv line is time_us,op,offset,length".into());
                }
                let op =
                    Op::from_str(trim(f[1])).map_err(|e| format!("op {} (got {:?})", e.message, e.value))?;
                Ok(Some((Some(num(f[0], "time_us")?), op, int(f[2], "offset")?, int(f[3], "length")?)))
            }
        }
    }

    /// Nanoseconds per unit of the format's raw timestamps.
    fn ns_per_unit(&self) -> f64 {
        match self.format {
            TraceFormat::Iolog | TraceFormat::Csv => 1e3,
            TraceFormat::Blkparse | TraceFormat::Spc => 1e9,
            TraceFormat::Msr => 100.0,
        }
    }

    /// Widen to whole 512 B sectors, fit the drive.
    fn place(&self, op: Op, offset: u64, len: u64) -> Result<(u64, u64), String> {
        if op == Op::Flush {
            return Ok((0, 0));
        }
        if len == 0 {
            return Err("length must be above 0".into());
        }
        let sector = super::SECTOR_BYTES;
        let end = offset.checked_add(len).ok_or("offset + length overflows")?;
        let first = offset / sector * sector;
        let len = end.div_ceil(sector) * sector - first;
        if len > crate::drive::MAX_TRANSFER && op != Op::Trim {
            return Err(format!("length {len} is above the most one command moves (64 MiB)"));
        }
        if first + len <= self.capacity {
            return Ok((first, len));
        }
        if !self.wrap || len > self.capacity {
            return Err(format!(
                "offset {offset} + length {len} is beyond the drive ({} bytes); wrap to fold it back",
                self.capacity
            ));
        }
        let sectors = self.capacity / sector;
        let wrapped = (first / sector) % sectors * sector;
        // a request that would straddle the end starts at the drive's start instead
        Ok((if wrapped + len > self.capacity { 0 } else { wrapped }, len))
    }
}

/// The first `N` comma-separated fields of `line` and how many fields it has in all: what
/// `line.split(',').collect::<Vec<_>>()` gives, without an allocation per line (a 10 M-line trace parses
/// every line).
fn fields<const N: usize>(line: &str) -> ([&str; N], usize) {
    let mut out = [""; N];
    let (mut count, mut start) = (0, 0);
    for (i, b) in line.bytes().enumerate() {
        if b == b',' {
            if count < N {
                out[count] = &line[start..i];
            }
            count += 1;
            start = i + 1;
        }
    }
    if count < N {
        out[count] = &line[start..];
    }
    (out, count + 1)
}

/// `s.trim()`, at once for a field that begins and ends with a printable ASCII character (never
/// whitespace): the common case, which `trim` would check char by char against Unicode's white space.
fn trim(s: &str) -> &str {
    match s.as_bytes() {
        [first, .., last] if first.is_ascii_graphic() && last.is_ascii_graphic() => s,
        [only] if only.is_ascii_graphic() => s,
        _ => s.trim(),
    }
}

/// `s.parse::<f64>().ok()`, read as a whole number in one pass when `s` is all digits and fits 64 bits
/// (MSR and iolog times are): a u64 rounds to the nearest f64 just as the decimal text does, so the
/// value is the same. Anything else goes to the float parser.
fn parse_f64(s: &str) -> Option<f64> {
    let mut v: u64 = 0;
    for b in s.bytes() {
        let digit = b.wrapping_sub(b'0');
        match v.checked_mul(10).and_then(|v| v.checked_add(u64::from(digit))) {
            Some(next) if digit <= 9 => v = next,
            _ => return s.parse::<f64>().ok(),
        }
    }
    if s.is_empty() {
        return None;
    }
    Some(v as f64)
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TraceRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            self.buf.clear();
            match self.input.read_line(&mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(Err(TraceError::new(self.line_no + 1, format!("cannot read: {e}")))),
            }
            self.line_no += 1;
            let line = self.buf.trim();
            if line.is_empty() || line.starts_with('#') {
                self.lines_ignored += 1;
                continue;
            }
            let parsed = self.parse(line).and_then(|p| match p {
                None => Ok(None),
                Some((time, op, offset, len)) => self.place(op, offset, len).map(|at| Some((time, op, at))),
            });
            match parsed {
                Ok(None) => self.lines_ignored += 1,
                Ok(Some((time, op, (offset, len)))) => {
                    let at = time.map(|t| {
                        let origin = *self.origin.get_or_insert(t);
                        ((t - origin).max(0.0) * self.ns_per_unit()).round()
                    });
                    // a replay at recorded times must fit the clock, as a run's times must (never NaN
                    // here: `max` turned one into 0; an infinite time is over the limit)
                    if let Some(ns) = at.filter(|&ns| ns > MAX_TIME_NS as f64) {
                        let message = format!(
                            "the time is {:.3e} s after the first request's: at most 10 years ({} s) \
                             fit the simulation",
                            ns / 1e9,
                            MAX_TIME_NS / 1_000_000_000
                        );
                        return Some(Err(TraceError::new(self.line_no, message)));
                    }
                    let at_ns = at.map(|ns| ns as Ns);
                    return Some(Ok(TraceRecord { at_ns, cmd: Command::new(op, offset, len) }));
                }
                Err(message) => return Some(Err(TraceError::new(self.line_no, message))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str, format: TraceFormat) -> Vec<Result<TraceRecord, TraceError>> {
        TraceReader::new(text.as_bytes(), format, 1 << 30, true).collect()
    }

    #[test]
    fn a_time_past_ten_years_from_the_first_request_is_an_error_naming_its_line() {
        // found by the trace_parser fuzz target: a blkparse time of 2e11 s saturated the clock, and a
        // replay at recorded times stepped the power meter towards it for ever
        let text = "  8,0    3        1     0.000000000   697  Q   W 8 + 8 [a]\n\
                    8,0    3        3  00200000200000   697  Q   R 8 + 8 [a]\n";
        let r = records(text, TraceFormat::Blkparse);
        assert!(r[0].is_ok());
        let e = r[1].clone().unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("at most 10 years"), "{e}");
        // ten years on is still a time
        let ok = "time_us,op,offset,length\n0,read,0,4096\n315360000000000,read,0,4096\n";
        assert!(records(ok, TraceFormat::Csv).iter().all(Result::is_ok));
        let nan = "fio version 3 iolog\n0 /dev/x write 0 4096\ninf /dev/x write 0 4096\n";
        assert!(records(nan, TraceFormat::Iolog)[1].is_err(), "an infinite time is not one");
    }

    #[test]
    fn each_format_is_detected_from_its_first_line() {
        let cases = [
            ("fio version 3 iolog", TraceFormat::Iolog),
            (
                "  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]",
                TraceFormat::Blkparse,
            ),
            ("128166372003061629,hm,1,Read,7014609920,24576,41286", TraceFormat::Msr),
            ("0,303567,3584,w,0.000000", TraceFormat::Spc),
            ("time_us,op,offset,length", TraceFormat::Csv),
        ];
        for (line, format) in cases {
            assert_eq!(TraceFormat::detect(line), Some(format), "{line}");
        }
        assert_eq!(TraceFormat::detect("hello world"), None);
    }

    #[test]
    fn blkparse_queue_events_are_requests_in_512_byte_sectors() {
        let text = "  8,0    3        1     0.000000000   697  Q   W 8 + 8 [kjournald]\n\
                      8,0    3        2     0.000001000   697  G   W 8 + 8 [kjournald]\n\
                      8,0    3        3     0.002500000   697  Q  RS 16 + 16 [cat]\n\
                      8,0    3        4     0.003000000   697  Q  DS 64 + 8 [fstrim]\n\
                    CPU3 (8,0):\n";
        let r: Vec<TraceRecord> =
            records(text, TraceFormat::Blkparse).into_iter().map(Result::unwrap).collect();
        let got: Vec<_> = r.iter().map(|r| (r.at_ns, r.cmd.op, r.cmd.offset, r.cmd.len)).collect();
        assert_eq!(
            got,
            [
                (Some(0), Op::Write, 4096, 4096),
                (Some(2_500_000), Op::Read, 8192, 8192),
                (Some(3_000_000), Op::Trim, 32768, 4096)
            ]
        );
    }

    #[test]
    fn msr_times_are_filetime_ticks_from_the_first_request() {
        let text = "128166372003061629,hm,1,Read,7014609920,24576,41286\n\
                    128166372003161629,hm,1,Write,4096,512,100\n";
        let r: Vec<TraceRecord> = records(text, TraceFormat::Msr).into_iter().map(Result::unwrap).collect();
        // byte offsets and sizes, whole sectors here: taken as they are (7014609920 is 1 KiB into a page)
        assert_eq!((r[0].at_ns, r[0].cmd.len), (Some(0), 24576));
        assert_eq!(
            (r[1].at_ns, r[1].cmd.op, r[1].cmd.offset, r[1].cmd.len),
            (Some(10_000_000), Op::Write, 4096, 512)
        );
        assert_eq!(r[0].cmd.offset, 7014609920 % (1 << 30), "beyond a 1 GiB drive: wrapped");
    }

    #[test]
    fn spc_lbas_are_512_byte_blocks_and_times_seconds() {
        let r = records("0,8,3584,w,0.000000\n1,16,3072,r,0.026214\n", TraceFormat::Spc);
        let r: Vec<TraceRecord> = r.into_iter().map(Result::unwrap).collect();
        assert_eq!((r[0].cmd.op, r[0].cmd.offset, r[0].cmd.len), (Op::Write, 4096, 3584));
        assert_eq!((r[1].at_ns, r[1].cmd.op, r[1].cmd.offset), (Some(26_214_000), Op::Read, 8192));
    }

    #[test]
    fn iolog_v2_has_no_times_and_v3_counts_microseconds() {
        let v2 = "fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x write 0 4096\n/dev/x sync 0 0\n/dev/x close\n";
        let r: Vec<TraceRecord> = records(v2, TraceFormat::Iolog).into_iter().map(Result::unwrap).collect();
        assert_eq!(
            r.iter().map(|r| (r.at_ns, r.cmd.op)).collect::<Vec<_>>(),
            [(None, Op::Write), (None, Op::Flush)]
        );
        let v3 = "fio version 3 iolog\n17 /tmp/x add\n6652 /tmp/x read 0 4096\n21927 /tmp/x read 4096 4096\n";
        let r: Vec<TraceRecord> = records(v3, TraceFormat::Iolog).into_iter().map(Result::unwrap).collect();
        assert_eq!(r[1].at_ns, Some(15_275_000));
    }

    #[test]
    fn the_field_splitter_trim_and_number_parser_agree_with_the_standard_ones() {
        for line in ["", ",", "a", "a,b", "1,2,3,4", "1,2,3,4,5,6,7", " x , y ,z,", "é,ü,,ß", "a,,b"] {
            let all: Vec<&str> = line.split(',').collect();
            let (f, count) = fields::<4>(line);
            assert_eq!(count, all.len(), "{line:?}");
            for (i, field) in f.iter().enumerate() {
                assert_eq!(*field, all.get(i).copied().unwrap_or(""), "{line:?} field {i}");
            }
        }
        for s in ["", " ", "a", " a", "a ", "\u{a0}x\u{a0}", "x\u{3000}", "\tRead\r", "Write"] {
            assert_eq!(trim(s), s.trim(), "{s:?}");
        }
        let numbers = ["0", "7", "128166372003061629", "9007199254740993", "18446744073709551615"];
        let others =
            ["18446744073709551616", "99999999999999999999", "1e5", "12.5", "+3", "-1", "", "x", "inf"];
        for s in numbers.into_iter().chain(others) {
            assert_eq!(parse_f64(s).map(f64::to_bits), s.parse::<f64>().ok().map(f64::to_bits), "{s:?}");
        }
    }

    #[test]
    fn a_bad_line_names_its_number_and_the_problem() {
        let r = records("time_us,op,offset,length\n0,read,0,4096\n5,erase,0,4096\n", TraceFormat::Csv);
        let e = r[1].clone().unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("erase") && e.message.contains("read, write, trim, flush"), "{e}");
        let beyond =
            TraceReader::new("0,read,2147483648,4096\n".as_bytes(), TraceFormat::Csv, 1 << 30, false)
                .next()
                .unwrap()
                .unwrap_err();
        assert!(beyond.message.contains("beyond the drive"), "{beyond}");
    }
}
