//! The on-disk form of a suite's check cache: one index file per suite.
//!
//! One file rather than one per case file, because a warm check of a 100,000-case
//! suite has about 100 ms: opening 100,000 files would take most of it. The index holds,
//! per case file, its path, the `stat` fields that tell it is unchanged (git's index
//! does the same), its content digest, a digest of what it tells the rest of the suite
//! ([`Entry::facts`]) and its diagnostics, still encoded (most are passed through
//! untouched); and, for the suite, the digests its diagnostics were valid for and the
//! diagnostics that belong to no case file.
//!
//! Guarantee: [`Index::parse`] never panics and accepts only what [`Index::encode`]
//! wrote for the same casec: a bad magic, another identity, a truncated or altered
//! file (its closing blake3 checksum) gives `None`, and the caller checks afresh.
//! Diagnostics are stored with file names, not file ids, since ids change between runs.

use crate::diag::{codes, Diagnostic, Fix, Label, Severity};
use crate::source::{FileId, SourceDb, Span};

/// The first bytes of an index; the last byte is the format's version.
const MAGIC: &[u8; 8] = b"CASECIX\x01";

pub type Digest = [u8; 32];

/// What `stat` says of a file. A file whose stamp is unchanged since its digest was
/// taken is taken as unchanged, unless it is racily clean (see `cache`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub inode: u64,
    pub device: u64,
}

/// One case file's record (or a context file's: only its digest is then used).
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
    pub identity: Digest,
    pub root: &'a str,
    /// When the run that wrote it started, in the file system's time (racy entries).
    pub scanned_ns: i64,
    pub context: Digest,
    pub aggregate: Digest,
    /// The suite's diagnostics that belong to no case file, encoded.
    pub shared: &'a [u8],
    pub entries: Vec<Entry<'a>>,
}

impl<'a> Index<'a> {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.entries.len() * 160 + self.shared.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.identity);
        put_str(&mut out, self.root);
        out.extend_from_slice(&self.scanned_ns.to_le_bytes());
        out.extend_from_slice(&self.context);
        out.extend_from_slice(&self.aggregate);
        put_bytes(&mut out, self.shared);
        out.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        for e in &self.entries {
            put_str(&mut out, e.name);
            let s = e.stamp;
            for n in [
                s.size,
                s.mtime_ns as u64,
                s.ctime_ns as u64,
                s.inode,
                s.device,
            ] {
                out.extend_from_slice(&n.to_le_bytes());
            }
            out.extend_from_slice(&e.digest);
            out.push(u8::from(e.only_cases));
            out.extend_from_slice(&e.facts);
            put_bytes(&mut out, e.diagnostics);
        }
        let sum = blake3::hash(&out);
        out.extend_from_slice(sum.as_bytes());
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
        let count = usize::try_from(r.u64()?).ok()?;
        // Each entry takes more than 64 bytes: a count beyond that is corrupt.
        let mut entries = Vec::with_capacity(count.min(body.len() / 64));
        for _ in 0..count {
            let name = r.str()?;
            let stamp = Stamp {
                size: r.u64()?,
                mtime_ns: r.u64()? as i64,
                ctime_ns: r.u64()? as i64,
                inode: r.u64()?,
                device: r.u64()?,
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
        r.bytes.is_empty().then_some(Index {
            identity: *identity,
            root,
            scanned_ns,
            context,
            aggregate,
            shared,
            entries,
        })
    }
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
    code: &'static str,
    severity: Severity,
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
            severity: self.severity,
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
    put_str(out, d.code);
    out.push(match d.severity {
        Severity::Error => 0,
        Severity::Warning => 1,
    });
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
        let code = codes::declared(r.str()?)?.code;
        let severity = match r.take(1)?[0] {
            0 => Severity::Error,
            _ => Severity::Warning,
        };
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
            severity,
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
        Index {
            identity: [7; 32],
            root: "suite",
            scanned_ns: 42,
            context: [1; 32],
            aggregate: [2; 32],
            shared: b"",
            entries,
        }
    }

    #[test]
    fn an_index_reads_back_and_refuses_any_damage() {
        let entry = Entry {
            name: "a/b.case",
            stamp: Stamp {
                size: 3,
                mtime_ns: -5,
                ctime_ns: 9,
                inode: 11,
                device: 13,
            },
            digest: [3; 32],
            only_cases: true,
            facts: [4; 32],
            diagnostics: b"xyz",
        };
        let bytes = index(vec![entry]).encode();
        let back = Index::parse(&bytes, &[7; 32]).expect("it reads back");
        assert_eq!(back.entries[0].name, "a/b.case");
        assert_eq!(back.entries[0].stamp.mtime_ns, -5);
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
    fn diagnostics_read_back_with_their_files() {
        let mut db = SourceDb::new();
        let a = db.add("a.case", "case A \"t\" {}\n", crate::source::Origin::User);
        let d = Diagnostic::warning(codes::UNUSED_ALLOW, "m")
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
