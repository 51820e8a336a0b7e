//! The on-disk form of a suite's check cache: one index file per suite.
//!
//! One file rather than one per case file, because a warm check of a 100,000-case
//! suite has about 100 ms: opening 100,000 files would take most of it. The index holds,
//! per case file, its path, its [`Stamp`] (the `stat` fields that tell it is unchanged,
//! as git's index keeps them, or for staged files its blob id), its content digest, a
//! digest of what it tells the rest of the suite ([`Entry::facts`]) and its
//! diagnostics, still encoded (most are passed through untouched); and, for the suite,
//! the digests its diagnostics were valid for, the diagnostics that belong to no case
//! file and, for staged files, the tree they were listed against ([`StagedBase`]).
//!
//! Guarantee: [`Index::parse`] never panics and accepts only what [`Head::write_to`]
//! wrote for the same casec: a bad magic, another identity, a truncated or altered
//! file (its closing blake3 checksum) gives `None`, and the caller checks afresh.
//! Diagnostics are stored with file names, not file ids, since ids change between runs.
//!
//! The records are serde types in postcard's binary form, after a magic and before the
//! checksum; an index is read borrowing from its bytes (names, encoded diagnostics).

use std::cell::Cell;
use std::io::{self, BufWriter, Write};

use serde::{Deserialize, Serialize, Serializer};

use crate::diag::codes;
use crate::diag::{Diagnostic, Fix, Label};
use crate::driver::staged::ObjectId;
use crate::source::{FileId, SourceDb, Span};

/// The first bytes of an index; the last byte is the format's version.
const MAGIC: &[u8; 8] = b"CASECIX\x04";

pub type Digest = [u8; 32];

/// What tells a file unchanged since its digest was taken, without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stamp {
    /// What `stat` says of a file of the working tree: unchanged, unless it is racily
    /// clean (see `cache`).
    Stat(StatStamp),
    /// The blob git's index holds for it (`--staged`): content-addressed, so exact.
    Blob(ObjectId),
}

impl Stamp {
    /// The blob of a staged file's stamp.
    pub fn blob(self) -> Option<ObjectId> {
        match self {
            Stamp::Blob(id) => Some(id),
            Stamp::Stat(_) => None,
        }
    }
}

/// The `stat` fields of a file that change when it is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatStamp {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub inode: u64,
    pub device: u64,
}

/// One case file's record (or a context file's: only its digest is then used).
#[derive(Clone, Copy, Serialize, Deserialize)]
pub struct Entry<'a> {
    pub name: &'a str,
    pub stamp: Stamp,
    pub digest: Digest,
    /// The file holds only cases (or did not parse); else it is part of the context.
    pub only_cases: bool,
    pub facts: Digest,
    /// Its diagnostics, encoded by [`encode_diagnostic`] (one after another).
    pub diagnostics: &'a [u8],
}

/// A suite's index, borrowing from the bytes it was read from.
pub struct Index<'a> {
    pub head: Head<'a>,
    pub entries: Vec<Entry<'a>>,
}

/// Everything an index holds but its entries.
#[derive(Serialize, Deserialize)]
pub struct Head<'a> {
    pub identity: Digest,
    pub root: &'a str,
    /// When the run that wrote it started, in the file system's time (racy entries).
    pub scanned_ns: i64,
    pub context: Digest,
    pub aggregate: Digest,
    /// The suite's diagnostics that belong to no case file, encoded.
    pub shared: &'a [u8],
    /// For an index of staged files: the tree their listing was made against.
    #[serde(borrow)]
    pub staged: Option<StagedBase<'a>>,
}

/// What an index of staged files keeps of the tree their listing was made against:
/// its id, and its blob at every path (below the suite root) where the index differed
/// from it, sorted by path; at every other path, the tree holds what the entries record.
#[derive(Serialize, Deserialize)]
pub struct StagedBase<'a> {
    pub base: ObjectId,
    #[serde(borrow)]
    pub changes: Vec<(&'a str, Option<ObjectId>)>,
}

/// Bytes buffered before they are checksummed and written out.
const CHUNK: usize = 1 << 16;

/// A writer that checksums what it writes.
struct Checksummed<W: Write> {
    sum: blake3::Hasher,
    sink: W,
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.sink.write(bytes)?;
        self.sum.update(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink.flush()
    }
}

/// The entries of an index being written, serialized as they are made.
struct Entries<I>(Cell<Option<I>>);

impl<'e, I: ExactSizeIterator<Item = Entry<'e>>> Serialize for Entries<I> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.take() {
            Some(entries) => s.collect_seq(entries),
            None => s.collect_seq(std::iter::empty::<Entry>()),
        }
    }
}

impl Head<'_> {
    /// Writes the index of this head and `entries` to `sink`: a run's entries are
    /// written as they are made, never whole in memory.
    pub fn write_to<'e>(
        &self,
        entries: impl ExactSizeIterator<Item = Entry<'e>>,
        sink: &mut dyn Write,
    ) -> io::Result<()> {
        let checksummed = Checksummed {
            sum: blake3::Hasher::new(),
            sink,
        };
        // Buffered before the checksum: postcard writes a field at a time.
        let mut out = BufWriter::with_capacity(CHUNK, checksummed);
        out.write_all(MAGIC)?;
        let body = (self, Entries(Cell::new(Some(entries))));
        let out = postcard::to_io(&body, out).map_err(io::Error::other)?;
        let Checksummed { sum, sink } = out.into_inner().map_err(|e| e.into_error())?;
        sink.write_all(sum.finalize().as_bytes())?;
        sink.flush()
    }
}

impl<'a> Index<'a> {
    #[cfg(test)]
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let entries = self.entries.iter().copied();
        self.head
            .write_to(entries, &mut out)
            .expect("writing to memory does not fail");
        out
    }

    /// The index in `bytes`, when it is whole and was written for `identity`.
    pub fn parse(bytes: &'a [u8], identity: &Digest) -> Option<Index<'a>> {
        let body_len = bytes.len().checked_sub(32)?;
        let (body, sum) = bytes.split_at(body_len);
        if blake3::hash(body).as_bytes() != sum {
            return None;
        }
        let body = body.strip_prefix(MAGIC.as_slice())?;
        let ((head, entries), rest): ((Head, Vec<Entry>), _) =
            postcard::take_from_bytes(body).ok()?;
        (rest.is_empty() && head.identity == *identity).then_some(Index { head, entries })
    }
}

/// A place in a file named by its name: diagnostics outlive the run's file ids.
pub type Place = (String, u32, u32);

/// A diagnostic as stored: its spans name files.
#[derive(Serialize, Deserialize)]
pub struct Stored {
    /// The code's name (the code gives the severity).
    code: String,
    message: String,
    labels: Vec<(Place, String, bool)>,
    help: Option<String>,
    path: Option<String>,
    fix: Option<(Place, String, String)>,
}

impl Stored {
    /// The files the diagnostic points into.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        let labels = self.labels.iter().map(|((name, _, _), _, _)| name.as_str());
        labels.chain(self.fix.iter().map(|((name, _, _), _, _)| name.as_str()))
    }

    /// The diagnostic, its files found by `id_of` (`None` if one is not there).
    pub fn diagnostic(self, id_of: &dyn Fn(&str) -> Option<FileId>) -> Option<Diagnostic> {
        let span = |(name, start, end): Place| {
            Some(Span {
                file: id_of(&name)?,
                start,
                end,
            })
        };
        let mut labels = Vec::with_capacity(self.labels.len());
        for (place, message, primary) in self.labels {
            labels.push(Label {
                span: span(place)?,
                message,
                primary,
            });
        }
        let fix = match self.fix {
            Some((place, replacement, message)) => Some(Box::new(Fix {
                span: span(place)?,
                replacement,
                message,
            })),
            None => None,
        };
        Some(Diagnostic {
            code: codes::declared(&self.code)?,
            message: self.message,
            labels,
            help: self.help,
            path: self.path.map(String::into_boxed_str),
            fix,
        })
    }
}

/// Appends one diagnostic of a run over `db` to `out`.
pub fn encode_diagnostic(d: &Diagnostic, db: &SourceDb, out: &mut Vec<u8>) {
    let place = |span: Span| (db.file(span.file).name.clone(), span.start, span.end);
    let stored = Stored {
        code: d.code.name.to_string(),
        message: d.message.clone(),
        labels: d
            .labels
            .iter()
            .map(|l| (place(l.span), l.message.clone(), l.primary))
            .collect(),
        help: d.help.clone(),
        path: d.path.as_deref().map(str::to_string),
        fix: d
            .fix
            .as_ref()
            .map(|f| (place(f.span), f.replacement.clone(), f.message.clone())),
    };
    // Serializing into memory does not fail: the types hold nothing postcard refuses.
    if let Ok(bytes) = postcard::to_extend(&stored, std::mem::take(out)) {
        *out = bytes;
    }
}

/// The diagnostics encoded back to back in `bytes`; `None` if they do not decode (or
/// name an unknown code: the index was written by another casec).
pub fn decode_diagnostics(mut bytes: &[u8]) -> Option<Vec<Stored>> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let (stored, rest): (Stored, _) = postcard::take_from_bytes(bytes).ok()?;
        codes::declared(&stored.code)?;
        out.push(stored);
        bytes = rest;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(entries: Vec<Entry<'_>>) -> Index<'_> {
        let head = Head {
            identity: [7; 32],
            root: "suite",
            scanned_ns: 42,
            context: [1; 32],
            aggregate: [2; 32],
            shared: b"",
            staged: None,
        };
        Index { head, entries }
    }

    #[test]
    fn an_index_reads_back_and_refuses_any_damage() {
        let entry = Entry {
            name: "a/b.case",
            stamp: Stamp::Stat(StatStamp {
                size: 3,
                mtime_ns: -5,
                ctime_ns: 9,
                inode: 11,
                device: 13,
            }),
            digest: [3; 32],
            only_cases: true,
            facts: [4; 32],
            diagnostics: b"xyz",
        };
        let bytes = index(vec![entry]).encode();
        let back = Index::parse(&bytes, &[7; 32]).expect("it reads back");
        assert_eq!(back.entries[0].name, "a/b.case");
        assert!(matches!(back.entries[0].stamp, Stamp::Stat(s) if s.mtime_ns == -5));
        assert_eq!(back.entries[0].diagnostics, b"xyz");
        assert!(Index::parse(&bytes, &[8; 32]).is_none(), "another casec");
        for cut in 0..bytes.len() {
            assert!(
                Index::parse(&bytes[..cut], &[7; 32]).is_none(),
                "cut at {cut}"
            );
        }
        for at in [0, 9, bytes.len() / 2, bytes.len() - 1] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x40;
            assert!(
                Index::parse(&flipped, &[7; 32]).is_none(),
                "flipped at {at}"
            );
        }
    }

    #[test]
    fn an_index_of_staged_files_reads_back_with_its_base() {
        let id = |n: u8| ObjectId::from_bytes(&[n; 20]).expect("20 bytes");
        let entry = Entry {
            name: "s/a.case",
            stamp: Stamp::Blob(id(1)),
            digest: [3; 32],
            only_cases: true,
            facts: [4; 32],
            diagnostics: b"",
        };
        let mut staged = index(vec![entry]);
        staged.head.staged = Some(StagedBase {
            base: id(2),
            changes: vec![("a.case", Some(id(5))), ("gone.case", None)],
        });
        let bytes = staged.encode();
        let back = Index::parse(&bytes, &[7; 32]).expect("it reads back");
        assert_eq!(back.entries[0].stamp, Stamp::Blob(id(1)));
        let base = back.head.staged.expect("a base");
        assert_eq!(base.base, id(2));
        assert_eq!(base.changes, [("a.case", Some(id(5))), ("gone.case", None)]);
        for cut in 0..bytes.len() {
            assert!(
                Index::parse(&bytes[..cut], &[7; 32]).is_none(),
                "cut at {cut}"
            );
        }
    }

    /// An index is a file anyone who can write the cache folder can make, checksum and
    /// all: whatever its body holds, reading it refuses it or reads it, without a panic.
    #[test]
    fn a_crafted_index_with_a_valid_checksum_is_read_or_refused() {
        let entry = Entry {
            name: "a.case",
            stamp: Stamp::Stat(StatStamp::default()),
            digest: [3; 32],
            only_cases: true,
            facts: [4; 32],
            diagnostics: b"xyz",
        };
        let bytes = index(vec![entry; 3]).encode();
        let body = &bytes[..bytes.len() - 32];
        let sealed = |body: &[u8]| {
            let mut bytes = body.to_vec();
            bytes.extend_from_slice(blake3::hash(body).as_bytes());
            bytes
        };
        for at in MAGIC.len()..body.len() {
            for value in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut crafted = body.to_vec();
                crafted[at] = value;
                let crafted = sealed(&crafted);
                if let Some(index) = Index::parse(&crafted, &[7; 32]) {
                    for entry in &index.entries {
                        let _ = decode_diagnostics(entry.diagnostics);
                    }
                }
            }
            assert!(
                Index::parse(&sealed(&body[..at]), &[7; 32]).is_none(),
                "cut at {at}"
            );
        }
    }

    #[test]
    fn diagnostics_read_back_with_their_files() {
        let mut db = SourceDb::new();
        let a = db.add("a.case", "case A \"t\" {}\n", crate::source::Origin::User);
        let d = Diagnostic::new(codes::UNUSED_ALLOW, "m")
            .primary(Span::new(a, 0..4), "here")
            .secondary(Span::new(a, 5..6), "there")
            .help("h")
            .fix(Span::new(a, 0..4), "x", "replace");
        let mut bytes = Vec::new();
        encode_diagnostic(&d, &db, &mut bytes);
        encode_diagnostic(&d, &db, &mut bytes);
        let stored = decode_diagnostics(&bytes).expect("they decode");
        assert_eq!(stored.len(), 2);
        let back: Vec<Diagnostic> = stored
            .into_iter()
            .filter_map(|s| s.diagnostic(&|name| (name == "a.case").then_some(a)))
            .collect();
        assert_eq!(back, [d.clone(), d]);
        assert!(decode_diagnostics(&bytes[..bytes.len() - 1]).is_none());
    }
}
