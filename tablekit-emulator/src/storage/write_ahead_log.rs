//! The write-ahead log: where a commit group becomes durable with one `fdatasync` of a few
//! kilobytes, instead of the database's two-phase commit (two syncs of pages spread over
//! its file). The log is two files, `tables.wal.0` and `tables.wal.1`, written in turn:
//! once the one being written holds a few megabytes, its groups are checkpointed into the
//! [database](crate::storage::database) in the background while the other file takes the
//! next groups from its beginning. A file is started again only once its groups are
//! checkpointed. After a crash, the groups both files hold beyond the database's last
//! checkpoint are applied again ([`merged`] checks that none is missing), so nothing
//! acknowledged is lost.
//!
//! # Layout
//! A file is a row of frames, one per commit group, numbered consecutively (across both
//! files), each starting on a 512-byte boundary:
//!
//! ```text
//! [header][pad][header copy][pad] | payload [pad to 512] | payload copy [pad to 512]
//!  0             256                512
//! ```
//!
//! A header is 28 bytes: the magic `tkwal\0\1\0`, the frame's number (u64), the payload's
//! length (u32) and CRC-32 (u32), and the CRC-32 of the 24 bytes before it (u32), all
//! little-endian. The payload is a [group](crate::storage::log_record).
//!
//! # Telling a torn write from damage
//! Only the last frame can be torn by a crash: each frame is synced before the next is
//! written. So the reader takes frames while their numbers follow on, and stops at the first
//! that is torn, older (left from before the log started again) or missing. A frame is kept
//! twice so that damage to an acknowledged frame is never mistaken for a torn one: a
//! changed byte spoils one copy, and the frame is read from the other. Refused, so the
//! emulator does not start on damage: a frame with a spoiled copy that other frames follow,
//! a frame numbered beyond the next one, and any whole header numbered beyond where the
//! reading stopped (a frame after a hole).
//!
//! The file grows by zeroed megabytes written ahead of the frames, and is reused in place
//! after a checkpoint: an `fdatasync` of bytes over existing blocks need not also commit
//! the file system's metadata, which halves its cost. Frames are written around the page
//! cache where the system allows it ([`DirectFile`]), which takes a fifth off that.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::storage::dir_sync::sync_dir;
use crate::storage::direct_file::DirectFile;

/// The log's two files inside the data directory.
pub(crate) const FILE_NAMES: [&str; 2] = ["tables.wal.0", "tables.wal.1"];

/// Frames start on this boundary, and payloads are padded to it.
const BLOCK: usize = 512;
/// Where the header's second copy lies in a frame's first block.
const SECOND_HEADER: usize = 256;
const MAGIC: [u8; 8] = *b"tkwal\0\x01\0";
const HEADER_LEN: usize = 28;
/// The file grows by this much at a time, zeroed ahead of the frames.
const GROWTH: u64 = 1 << 20;

/// One frame read back: a commit group's number and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    pub(crate) number: u64,
    pub(crate) payload: Vec<u8>,
}

/// One of the log's files, open for appending frames from its beginning.
#[derive(Debug)]
pub(crate) struct LogFile {
    file: DirectFile,
    path: PathBuf,
    /// Where the next frame goes.
    end: u64,
    /// The file's length: everything before it is allocated.
    len: u64,
}

impl LogFile {
    /// The frames in the log at `path` numbered after `checkpointed` (the groups the
    /// database holds durably), in order; an error naming the problem when the log is
    /// damaged. A missing file is an [`io::ErrorKind::NotFound`] error.
    pub(crate) fn read(path: &Path, checkpointed: u64) -> io::Result<Result<Vec<Frame>, String>> {
        Ok(frames(&fs::read(path)?, checkpointed))
    }

    /// Opens the log file at `path` (creating it) to write frames from its beginning:
    /// whatever it held must be durable elsewhere first. The file is zeroed up to `room`
    /// bytes at once, so that frames written within it are overwrites.
    pub(crate) fn start(path: &Path, room: u64) -> io::Result<Self> {
        let file = DirectFile::open(path)?;
        let len = file.len()?;
        if let Some(dir) = path.parent() {
            sync_dir(dir)?;
        }
        let mut log = LogFile {
            file,
            path: path.to_owned(),
            end: 0,
            len,
        };
        if len < room {
            log.grow(room)?;
            log.file.sync_data()?;
        }
        Ok(log)
    }

    /// Appends frame `number` holding `payload` and syncs it: durable when this returns.
    pub(crate) fn append(&mut self, number: u64, payload: &[u8]) -> io::Result<()> {
        let frame = frame(number, payload);
        let end = self.end + frame.len() as u64;
        if end > self.len {
            self.grow(end)?;
        }
        self.file.write_at(&frame, self.end)?;
        self.file.sync_data()?;
        self.end = end;
        Ok(())
    }

    /// How many bytes the frames since the last [`restart`](Self::restart) take.
    pub(crate) fn used(&self) -> u64 {
        self.end
    }

    /// Writes the next frames from the beginning again: the ones written so far are durable
    /// elsewhere (checkpointed).
    pub(crate) fn restart(&mut self) {
        self.end = 0;
    }

    /// Removes the log, once everything in it is durable elsewhere.
    pub(crate) fn remove(self) -> io::Result<()> {
        drop(self.file);
        fs::remove_file(&self.path)?;
        match self.path.parent() {
            Some(dir) => sync_dir(dir),
            None => Ok(()),
        }
    }

    /// Zeroes the file up to the next megabyte boundary at or past `end`.
    fn grow(&mut self, end: u64) -> io::Result<()> {
        let len = end.div_ceil(GROWTH) * GROWTH;
        self.file.write_zeros(self.len, len - self.len)?;
        self.len = len;
        Ok(())
    }
}

fn padded(len: usize) -> usize {
    len.div_ceil(BLOCK) * BLOCK
}

/// The bytes of frame `number` holding `payload`.
fn frame(number: u64, payload: &[u8]) -> Vec<u8> {
    let mut header = [0u8; HEADER_LEN];
    header[..8].copy_from_slice(&MAGIC);
    header[8..16].copy_from_slice(&number.to_le_bytes());
    header[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    header[20..24].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
    let crc = crc32fast::hash(&header[..24]);
    header[24..].copy_from_slice(&crc.to_le_bytes());
    let room = padded(payload.len());
    let mut frame = vec![0; BLOCK + 2 * room];
    frame[..HEADER_LEN].copy_from_slice(&header);
    frame[SECOND_HEADER..SECOND_HEADER + HEADER_LEN].copy_from_slice(&header);
    frame[BLOCK..BLOCK + payload.len()].copy_from_slice(payload);
    frame[BLOCK + room..BLOCK + room + payload.len()].copy_from_slice(payload);
    frame
}

/// A frame's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Header {
    number: u64,
    len: usize,
    crc: u32,
}

/// The header at `at`, if one is there whole.
fn header_at(bytes: &[u8], at: usize) -> Option<Header> {
    let header = bytes.get(at..at.checked_add(HEADER_LEN)?)?;
    let word = |range: std::ops::Range<usize>| {
        u32::from_le_bytes(header[range].try_into().unwrap_or_default())
    };
    if header[..8] != MAGIC || word(24..28) != crc32fast::hash(&header[..24]) {
        return None;
    }
    Some(Header {
        number: u64::from_le_bytes(header[8..16].try_into().unwrap_or_default()),
        len: word(16..20) as usize,
        crc: word(20..24),
    })
}

/// What lies at a frame boundary.
#[derive(Debug)]
enum Found<'a> {
    /// A frame read from at least one copy; `scarred` when a header or payload copy is
    /// spoiled. The next frame starts at `end`.
    Whole {
        number: u64,
        payload: &'a [u8],
        scarred: bool,
        end: usize,
    },
    /// A header, but neither payload copy whole: a frame whose write a crash cut short.
    Torn { end: usize },
    /// No header: zeros, the end of the file, or the middle of an older frame.
    Nothing,
}

fn found_at(bytes: &[u8], at: usize) -> Found<'_> {
    let (first, second) = (header_at(bytes, at), header_at(bytes, at + SECOND_HEADER));
    let Some(header) = first.or(second) else {
        return Found::Nothing;
    };
    let room = padded(header.len);
    let copy = |start: usize| {
        bytes
            .get(start..start.checked_add(header.len)?)
            .filter(|payload| crc32fast::hash(payload) == header.crc)
    };
    let (a, b) = (copy(at + BLOCK), copy(at + BLOCK + room));
    let end = at
        .saturating_add(BLOCK)
        .saturating_add(room.saturating_mul(2));
    match a.or(b) {
        Some(payload) => Found::Whole {
            number: header.number,
            payload,
            scarred: first != second || a.is_none() || b.is_none(),
            end,
        },
        None => Found::Torn { end },
    }
}

/// The frames of a log file numbered after `checkpointed`, or what is wrong with it.
pub(crate) fn frames(bytes: &[u8], checkpointed: u64) -> Result<Vec<Frame>, String> {
    let mut frames: Vec<Frame> = Vec::new();
    let mut at = 0;
    let mut scarred = None;
    // Where to look for frames beyond the point where reading stopped.
    let beyond = loop {
        let next = frames.last().map(|f| f.number + 1);
        match found_at(bytes, at) {
            Found::Whole {
                number,
                payload,
                scarred: spoiled,
                end,
            } if next.is_none_or(|next| number == next) => {
                if let Some(damaged) = scarred {
                    return Err(format!(
                        "the frame at byte {damaged} is damaged, and frames follow it"
                    ));
                }
                scarred = spoiled.then_some(at);
                frames.push(Frame {
                    number,
                    payload: payload.to_vec(),
                });
                at = end;
            }
            Found::Whole { number, .. } if next.is_some_and(|next| number > next) => {
                return Err(format!(
                    "the frame at byte {at} is numbered {number} where {} was due: frames \
                     are missing",
                    next.unwrap_or_default()
                ));
            }
            // An older frame, left from before the log started again: the end.
            Found::Whole { .. } => break at,
            Found::Torn { end } => break end,
            Found::Nothing => break at.saturating_add(BLOCK),
        }
    };
    let next = frames
        .last()
        .map_or(0, |f| f.number + 1)
        .max(checkpointed + 1);
    let mut at = beyond;
    while at < bytes.len() {
        let headers = [at, at + SECOND_HEADER].map(|h| header_at(bytes, h));
        if let Some(header) = headers.into_iter().flatten().find(|h| h.number >= next) {
            return Err(format!(
                "frame {} at byte {at} lies beyond a damaged or missing frame",
                header.number
            ));
        }
        at += BLOCK;
    }
    frames.retain(|f| f.number > checkpointed);
    Ok(frames)
}

/// The frames of both files in one row, checked to follow on from `checkpointed` with none
/// missing.
pub(crate) fn merged(files: [Vec<Frame>; 2], checkpointed: u64) -> Result<Vec<Frame>, String> {
    let mut frames: Vec<Frame> = files.into_iter().flatten().collect();
    frames.sort_by_key(|f| f.number);
    for (due, frame) in (checkpointed + 1..).zip(&frames) {
        if frame.number != due {
            return Err(format!(
                "group {} follows group {}: the groups between are missing",
                frame.number,
                due - 1
            ));
        }
    }
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_of(groups: &[&[u8]], first: u64) -> Vec<u8> {
        groups
            .iter()
            .enumerate()
            .flat_map(|(i, payload)| frame(first + i as u64, payload))
            .collect()
    }

    fn numbers(bytes: &[u8], checkpointed: u64) -> Vec<u64> {
        frames(bytes, checkpointed)
            .unwrap()
            .iter()
            .map(|f| f.number)
            .collect()
    }

    const GROUPS: [&[u8]; 3] = [b"first group", &[7; 700], b"third"];

    #[test]
    fn frames_read_back_in_order_and_zeros_end_them() {
        let mut bytes = log_of(&GROUPS, 5);
        bytes.extend(vec![0; 4096]);
        let read = frames(&bytes, 4).unwrap();
        assert_eq!(read.len(), 3);
        assert_eq!(read[1].payload, vec![7; 700]);
        assert_eq!(numbers(&bytes, 4), [5, 6, 7]);
        assert!(frames(&[], 0).unwrap().is_empty());
        assert!(frames(&[0; 2048], 9).unwrap().is_empty());
        // Frames the database already holds are skipped; the rest must follow on from it.
        let numbers_after =
            |n| frames(&bytes, n).map(|f| f.iter().map(|f| f.number).collect::<Vec<_>>());
        assert_eq!(numbers_after(6), Ok(vec![7]));
        assert_eq!(numbers_after(7), Ok(vec![]));
        // The files together must follow on from the checkpoint.
        let two = |first: &[u64], second: &[u64], after| {
            let frames_of = |numbers: &[u64]| -> Vec<Frame> {
                numbers
                    .iter()
                    .map(|&number| Frame {
                        number,
                        payload: Vec::new(),
                    })
                    .collect()
            };
            merged([frames_of(first), frames_of(second)], after)
                .map(|f| f.iter().map(|f| f.number).collect::<Vec<_>>())
        };
        assert_eq!(two(&[7, 8], &[5, 6], 4), Ok(vec![5, 6, 7, 8]));
        assert_eq!(two(&[], &[], 4), Ok(vec![]));
        assert!(two(&[7, 8], &[], 4).unwrap_err().contains("missing"));
        assert!(two(&[5], &[7], 4).unwrap_err().contains("missing"));
    }

    #[test]
    fn a_torn_last_frame_is_the_end_at_every_cut() {
        let bytes = log_of(&GROUPS, 1);
        let last = frame(3, GROUPS[2]).len();
        for cut in bytes.len() - last..bytes.len() {
            let mut torn = bytes[..cut].to_vec();
            // What a crash leaves: the rest of the frame never written (zeros).
            torn.resize(bytes.len(), 0);
            let read = numbers(&torn, 0);
            assert!(
                read == [1, 2] || read == [1, 2, 3],
                "cut at {cut}: {read:?}"
            );
        }
    }

    #[test]
    fn one_changed_byte_anywhere_loses_no_frame() {
        let bytes = log_of(&GROUPS, 1);
        for at in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[at] ^= 0x10;
            match frames(&changed, 0) {
                Ok(read) => {
                    let payloads: Vec<&[u8]> = read.iter().map(|f| &f.payload[..]).collect();
                    assert_eq!(payloads, GROUPS, "byte {at}");
                }
                // Damage to a frame that others follow is refused, never skipped.
                Err(problem) => assert!(problem.contains("damaged"), "byte {at}: {problem}"),
            }
        }
    }

    #[test]
    fn a_lost_frame_in_the_middle_is_refused() {
        let mut bytes = log_of(&GROUPS, 1);
        let second = frame(1, GROUPS[0]).len();
        let len = frame(2, GROUPS[1]).len();
        bytes[second..second + len].fill(0);
        assert!(frames(&bytes, 0).unwrap_err().contains("beyond"));
        // A frame numbered past the next one: the ones between are gone.
        let skipped = [frame(1, b"a"), frame(3, b"c")].concat();
        assert!(merged([frames(&skipped[..1536], 0).unwrap(), Vec::new()], 0).is_ok());
        assert!(frames(&skipped, 0).unwrap_err().contains("missing"));
    }

    #[test]
    fn older_frames_after_a_restart_end_the_log() {
        let mut bytes = log_of(&GROUPS, 1);
        let newer = frame(4, b"after the checkpoint");
        bytes[..newer.len()].copy_from_slice(&newer);
        assert_eq!(numbers(&bytes, 3), [4]);
        // A crash tore the first frame after the checkpoint: the older ones are no hole.
        bytes[BLOCK..newer.len()].fill(0);
        assert!(frames(&bytes, 3).unwrap().is_empty());
        // But a frame the database lacks, beyond a torn one, is.
        let mut holed = bytes.clone();
        holed.extend(frame(5, b"later"));
        assert!(frames(&holed, 3).unwrap_err().contains("beyond"));
    }

    #[test]
    fn appended_frames_are_read_back_and_the_file_is_reused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAMES[0]);
        let mut log = LogFile::start(&path, 1).unwrap();
        for (n, payload) in GROUPS.iter().enumerate() {
            log.append(n as u64 + 1, payload).unwrap();
        }
        assert_eq!(fs::metadata(&path).unwrap().len(), GROWTH);
        let read = LogFile::read(&path, 0).unwrap().unwrap();
        assert_eq!(read.iter().map(|f| f.number).collect::<Vec<_>>(), [1, 2, 3]);
        log.restart();
        log.append(4, b"again").unwrap();
        assert_eq!(log.used(), frame(4, b"again").len() as u64);
        let read = LogFile::read(&path, 3).unwrap().unwrap();
        assert_eq!(
            read,
            [Frame {
                number: 4,
                payload: b"again".to_vec()
            }]
        );
        log.remove().unwrap();
        assert!(!path.exists());
    }
}
