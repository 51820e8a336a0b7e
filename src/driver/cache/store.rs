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

use crate::diag::codes::{self, Code};
use crate::diag::{Diagnostic, Fix, Label};
use crate::driver::staged::ObjectId;
use crate::source::{FileId, SourceDb, Span};

/// The first bytes of an index; the last byte is the format's version.
const MAGIC: &[u8; 8] = b"CASECIX\x03";

pub type Digest = [u8; 32];

/// What tells a file unchanged since its digest was taken, without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatStamp {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub inode: u64,
    pub device: u64,
}

/// One case file's record (or a context file's: only its digest is then used).
#[derive(Clone, Copy)]
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
    pub staged: Option<StagedBase<'a>>,
}

/// What an index of staged files keeps of the tree their listing was made against:
/// its id, and its blob at every path (below the suite root) where the index differed
/// from it, sorted by path; at every other path, the tree holds what the entries record.
pub struct StagedBase<'a> {
    pub base: ObjectId,
    pub changes: Vec<(&'a str, Option<ObjectId>)>,
}

/// Bytes encoded before they are hashed and written out.
const CHUNK: usize = 1 << 16;

impl Head<'_> {
    /// Writes the index of this head and `entries` to `sink`, encoded a chunk at a
    /// time: a run's entries are written as they are made, never whole in memory.
    pub fn write_to<'e>(
        &self,
        entries: impl ExactSizeIterator<Item = Entry<'e>>,
        sink: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let mut sum = blake3::Hasher::new();
        let mut out = Vec::with_capacity(CHUNK + 4096);
        let mut flush = |out: &mut Vec<u8>| -> std::io::Result<()> {
            sum.update(out);
            sink.write_all(out)?;
            out.clear();
            Ok(())
        };
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.identity);
        put_str(&mut out, self.root);
        out.extend_from_slice(&self.scanned_ns.to_le_bytes());
        out.extend_from_slice(&self.context);
        out.extend_from_slice(&self.aggregate);
        put_bytes(&mut out, self.shared);
        match &self.staged {
            None => out.push(0),
            Some(staged) => {
                out.push(1);
                put_id(&mut out, staged.base);
                out.extend_from_slice(&(staged.changes.len() as u64).to_le_bytes());
                for (below, old) in &staged.changes {
                    put_str(&mut out, below);
                    match old {
                        Some(id) => {
                            out.push(1);
                            put_id(&mut out, *id);
                        }
                        None => out.push(0),
                    }
                }
            }
        }
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for e in entries {
            put_str(&mut out, e.name);
            match e.stamp {
                Stamp::Stat(s) => {
                    out.push(0);
                    for n in [
                        s.size,
                        s.mtime_ns as u64,
                        s.ctime_ns as u64,
                        s.inode,
                        s.device,
                    ] {
                        out.extend_from_slice(&n.to_le_bytes());
                    }
                }
                Stamp::Blob(id) => {
                    out.push(1);
                    put_id(&mut out, id);
                }
            }
            out.extend_from_slice(&e.digest);
            out.push(u8::from(e.only_cases));
            out.extend_from_slice(&e.facts);
            put_bytes(&mut out, e.diagnostics);
            if out.len() >= CHUNK {
                flush(&mut out)?;
            }
        }
        flush(&mut out)?;
        sink.write_all(sum.finalize().as_bytes())
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
        let mut r = Reader { bytes: body };
        if r.take(MAGIC.len())? != MAGIC || r.digest()? != *identity {
            return None;
        }
        let root = r.str()?;
        let scanned_ns = r.u64()? as i64;
        let context = r.digest()?;
        let aggregate = r.digest()?;
        let shared = r.bytes()?;
        let staged = match r.take(1)?[0] {
            0 => None,
            _ => {
                let base = r.id()?;
                let count = usize::try_from(r.u64()?).ok()?;
                let mut changes = Vec::with_capacity(count.min(r.bytes.len() / 9));
                for _ in 0..count {
                    let below = r.str()?;
                    let old = match r.take(1)?[0] {
                        0 => None,
                        _ => Some(r.id()?),
                    };
                    changes.push((below, old));
                }
                Some(StagedBase { base, changes })
            }
        };
        let count = usize::try_from(r.u64()?).ok()?;
        // Each entry takes more than 64 bytes: a count beyond that is corrupt.
        let mut entries = Vec::with_capacity(count.min(body.len() / 64));
        for _ in 0..count {
            let name = r.str()?;
            let stamp = match r.take(1)?[0] {
                0 => Stamp::Stat(StatStamp {
                    size: r.u64()?,
                    mtime_ns: r.u64()? as i64,
                    ctime_ns: r.u64()? as i64,
                    inode: r.u64()?,
                    device: r.u64()?,
                }),
                1 => Stamp::Blob(r.id()?),
                _ => return None,
            };
            entries.push(Entry {
                name,
                stamp,
                digest: r.digest()?,
                only_cases: r.take(1)?[0] != 0,
                facts: r.digest()?,
                diagnostics: r.bytes()?,
            });
        }
        let head = Head {
            identity: *identity,
            root,
            scanned_ns,
            context,
            aggregate,
            shared,
            staged,
        };
        r.bytes.is_empty().then_some(Index { head, entries })
    }
}

fn put_id(out: &mut Vec<u8>, id: ObjectId) {
    put_bytes(out, id.as_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_bytes(out, s.as_bytes());
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u64).to_le_bytes());
    out.extend_from_slice(b);
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn digest(&mut self) -> Option<Digest> {
        self.take(32)?.try_into().ok()
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }

    fn id(&mut self) -> Option<ObjectId> {
        ObjectId::from_bytes(self.bytes()?)
    }

    fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }

    fn opt_str(&mut self) -> Option<Option<&'a str>> {
        match self.take(1)?[0] {
            0 => Some(None),
            _ => Some(Some(self.str()?)),
        }
    }
}

/// A place in a file named by its name: diagnostics outlive the run's file ids.
pub type Place = (String, u32, u32);

/// A diagnostic as stored: its spans name files.
pub struct Stored {
    code: &'static Code,
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
            code: self.code,
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
    let place = |out: &mut Vec<u8>, span: Span| {
        put_str(out, &db.file(span.file).name);
        out.extend_from_slice(&span.start.to_le_bytes());
        out.extend_from_slice(&span.end.to_le_bytes());
    };
    let opt_str = |out: &mut Vec<u8>, s: Option<&str>| match s {
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
        None => out.push(0),
    };
    // The code gives the severity.
    put_str(out, d.code.name);
    put_str(out, &d.message);
    out.extend_from_slice(&(d.labels.len() as u32).to_le_bytes());
    for label in &d.labels {
        place(out, label.span);
        put_str(out, &label.message);
        out.push(u8::from(label.primary));
    }
    opt_str(out, d.help.as_deref());
    opt_str(out, d.path.as_deref());
    match &d.fix {
        Some(fix) => {
            out.push(1);
            place(out, fix.span);
            put_str(out, &fix.replacement);
            put_str(out, &fix.message);
        }
        None => out.push(0),
    }
}

/// The diagnostics encoded back to back in `bytes`; `None` if they do not decode (an
/// unknown code: the index was written by another casec).
pub fn decode_diagnostics(bytes: &[u8]) -> Option<Vec<Stored>> {
    let mut r = Reader { bytes };
    let mut out = Vec::new();
    while !r.bytes.is_empty() {
        let code = codes::declared(r.str()?)?;
        let message = r.str()?.to_string();
        let count = r.u32()?;
        let mut labels = Vec::new();
        for _ in 0..count {
            let place = (r.str()?.to_string(), r.u32()?, r.u32()?);
            labels.push((place, r.str()?.to_string(), r.take(1)?[0] != 0));
        }
        let help = r.opt_str()?.map(str::to_string);
        let path = r.opt_str()?.map(str::to_string);
        let fix = match r.take(1)?[0] {
            0 => None,
            _ => {
                let place = (r.str()?.to_string(), r.u32()?, r.u32()?);
                Some((place, r.str()?.to_string(), r.str()?.to_string()))
            }
        };
        out.push(Stored {
            code,
            message,
            labels,
            help,
            path,
            fix,
        });
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
