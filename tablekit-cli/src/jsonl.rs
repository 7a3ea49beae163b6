//! Typed JSON lines: one entity a line, as the Table service's JSON with type annotations
//! (`"Big@odata.type":"Edm.Int64","Big":"5"`): the codec's own form, so every EDM type comes
//! back as it was (Int64, Double, DateTime with 7 digits, Guid, Binary in base64).
//! `Timestamp` and ETags are not written: the service sets them again on import.

use std::io::{BufRead, Write};

use tablekit::codec::{decode_entity, encode_entity_into};
use tablekit::DynamicEntity;

use crate::exit::{Failure, Outcome};

/// Writes entities one a line.
pub(crate) struct JsonlWriter<W: Write> {
    out: W,
    line: Vec<u8>,
}

impl<W: Write> JsonlWriter<W> {
    /// A writer into `out`.
    pub(crate) fn new(out: W) -> Self {
        JsonlWriter {
            out,
            line: Vec::with_capacity(2048),
        }
    }

    /// Writes one entity and its newline.
    pub(crate) fn write(&mut self, entity: &DynamicEntity) -> Outcome {
        self.line.clear();
        encode_entity_into(entity, &mut self.line);
        self.line.push(b'\n');
        self.out.write_all(&self.line).map_err(write_failed)
    }

    /// Flushes the output.
    pub(crate) fn finish(mut self) -> Outcome {
        self.out.flush().map_err(write_failed)
    }
}

/// A failed write to the output; a closed pipe ends the command quietly.
pub(crate) fn write_failed(e: std::io::Error) -> Failure {
    Failure::write_failed(&e)
}

/// Reads entities one a line; blank lines are skipped.
pub(crate) struct JsonlReader<R: BufRead> {
    input: R,
    line: Vec<u8>,
    number: u64,
    bytes: u64,
}

impl<R: BufRead> JsonlReader<R> {
    /// A reader of `input`.
    pub(crate) fn new(input: R) -> Self {
        JsonlReader {
            input,
            line: Vec::with_capacity(2048),
            number: 0,
            bytes: 0,
        }
    }

    /// The bytes read so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Up to `n` entities; fewer only at the end. An error names the line.
    pub(crate) fn next_chunk(&mut self, n: usize) -> Outcome<Vec<DynamicEntity>> {
        let mut chunk = Vec::with_capacity(n);
        while chunk.len() < n {
            self.line.clear();
            let read = self
                .input
                .read_until(b'\n', &mut self.line)
                .map_err(|e| Failure::failed(format!("cannot read the input: {e}")))?;
            if read == 0 {
                break;
            }
            self.number += 1;
            self.bytes += read as u64;
            let text = self.line.trim_ascii();
            if text.is_empty() {
                continue;
            }
            let entity = decode_entity(text).map_err(|e| {
                Failure::bad_input(format!("line {}: not a typed entity: {e}", self.number))
            })?;
            chunk.push(entity);
        }
        Ok(chunk)
    }
}
