//! Where a judge request goes: an OpenAI-compatible chat-completions endpoint over
//! HTTP(S), or anything else that answers a request body with a response body (a
//! test's scripted judge).
//!
//! The API key comes from the caller (the command line reads it from an environment
//! variable, never from its arguments) and is sent as a bearer token. A request that
//! fails for a reason that may pass (no connection, a timeout, status 429 or 5xx) is
//! tried again, twice, after a short pause; any other failure is the item's reason
//! for staying in review.
//!
//! The endpoint is not trusted further than its verdicts:
//!
//! * A redirect (3xx) is a failure, never followed: following it would send the
//!   request elsewhere (a 302 turns the POST into a body-less GET, whose answer would
//!   count as verdicts). The reason names the `Location`.
//! * An answer is read up to [`MAX_ANSWER_BYTES`].
//! * Whatever the endpoint says (its answer, an error body, a `Location`) is [`redact`]ed
//!   of the key and of anything that looks like a credential before casec keeps or shows
//!   any of it, so an endpoint that echoes the request's `Authorization` header cannot
//!   put the key into judged records, the cache or standard error.

use std::ops::Range;
use std::thread::sleep;
use std::time::Duration;

use serde_json::Value as Json;

/// Answers one chat-completions request body with the response body.
pub trait Complete: Sync {
    fn complete(&self, body: &Json) -> Result<String, String>;
}

pub struct OpenAi {
    url: String,
    /// Who answers, as messages name it: `the judge`, `the person model`.
    who: &'static str,
    api_key: Option<String>,
    agent: ureq::Agent,
}

/// Tries per request, the first included.
const ATTEMPTS: u32 = 3;

/// The largest answer read (ureq's own default is 10 MiB): a verdict is a sentence,
/// so an answer of this size is no verdict.
pub const MAX_ANSWER_BYTES: u64 = 4 << 20;

/// How much of an error body or a `Location` a reason repeats, in characters.
const DETAIL_CHARS: usize = 200;

impl OpenAi {
    /// The endpoint at `base` (`…/v1`, or the full `…/chat/completions` URL).
    pub fn new(base: &str, api_key: Option<String>, timeout: Duration) -> OpenAi {
        let base = base.trim_end_matches('/');
        let url = if base.ends_with("/chat/completions") {
            base.to_string()
        } else {
            format!("{base}/chat/completions")
        };
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            // A 3xx comes back as an answer, and `attempt` refuses it.
            .max_redirects(0)
            .build()
            .into();
        OpenAi {
            url,
            who: "the judge",
            api_key,
            agent,
        }
    }

    /// The endpoint, named `who` in its failures (`the person model`).
    pub fn named(mut self, who: &'static str) -> OpenAi {
        self.who = who;
        self
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    fn attempt(&self, body: &str) -> Result<String, Attempt> {
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json");
        if let Some(key) = &self.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = request.send(body).map_err(|e| {
            Attempt::Retry(format!("cannot reach {} at {}: {e}", self.who, self.url))
        })?;
        let status = response.status().as_u16();
        let key = self.api_key.as_deref();
        if (300..400).contains(&status) {
            let location = response
                .headers()
                .get("location")
                .map(|l| redact(&String::from_utf8_lossy(l.as_bytes()), key));
            return Err(Attempt::Fail(redirect_error(
                self.who,
                status,
                location.as_deref(),
            )));
        }
        // Redacted whole, before any of it is cut short or parsed.
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER_BYTES)
            .lossy_utf8(true)
            .read_to_string()
            .map(|t| redact(&t, key));
        match status {
            200..=299 => text.map_err(|e| unreadable(self.who, e)),
            429 | 500..=599 => Err(Attempt::Retry(status_error(self.who, status, text.ok()))),
            _ => Err(Attempt::Fail(status_error(self.who, status, text.ok()))),
        }
    }
}

enum Attempt {
    Retry(String),
    Fail(String),
}

/// Why an answer could not be read: too large (final), or cut off (worth a retry).
fn unreadable(who: &str, e: ureq::Error) -> Attempt {
    match e {
        ureq::Error::BodyExceedsLimit(limit) => Attempt::Fail(format!(
            "{who}'s answer is larger than {} MiB: not an answer",
            limit >> 20
        )),
        e => Attempt::Retry(format!("cannot read {who}'s answer: {e}")),
    }
}

fn status_error(who: &str, status: u16, body: Option<String>) -> String {
    let detail = one_line(body.as_deref().unwrap_or_default(), DETAIL_CHARS);
    match detail.is_empty() {
        true => format!("{who} answered HTTP {status}"),
        false => format!("{who} answered HTTP {status}: {detail}"),
    }
}

fn redirect_error(who: &str, status: u16, location: Option<&str>) -> String {
    let to = match location {
        Some(l) => format!("to {}", one_line(l, DETAIL_CHARS)),
        None => "without a location".into(),
    };
    format!(
        "{who} answered HTTP {status}, a redirect {to}; casec does not follow redirects: give the endpoint's own URL"
    )
}

/// `text` on one line (each run of whitespace or control characters a space), cut to
/// `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut shown = 0;
    for word in text.split(|c: char| c.is_whitespace() || c.is_control()) {
        if word.is_empty() {
            continue;
        }
        if shown > 0 {
            out.push(' ');
            shown += 1;
        }
        for c in word.chars() {
            if shown == max {
                out.push('…');
                return out;
            }
            out.push(c);
            shown += 1;
        }
    }
    out
}

impl Complete for OpenAi {
    fn complete(&self, body: &Json) -> Result<String, String> {
        let body = body.to_string();
        let key = self.api_key.as_deref();
        let mut last = String::new();
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                sleep(Duration::from_millis(500 << attempt));
            }
            match self.attempt(&body) {
                Ok(text) => return Ok(text),
                Err(Attempt::Fail(why)) => return Err(redact(&why, key)),
                Err(Attempt::Retry(why)) => last = why,
            }
        }
        Err(redact(&last, key))
    }
}

/// What a redacted secret reads as.
pub const REDACTED: &str = "[redacted]";

/// `text` without `key` and without what looks like a credential: the value of an
/// `Authorization` header, a bearer token, an OpenAI-style `sk-…` key. Only ASCII is
/// replaced, so JSON text stays JSON.
pub fn redact(text: &str, key: Option<&str>) -> String {
    let text = match key.filter(|k| !k.is_empty()) {
        Some(key) => text.replace(key, REDACTED),
        None => text.to_string(),
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut at, mut kept) = (0, 0);
    while at < bytes.len() {
        match secret_at(bytes, at) {
            Some(secret) => {
                out.push_str(&text[kept..secret.start]);
                out.push_str(REDACTED);
                (at, kept) = (secret.end, secret.end);
            }
            None => at += 1,
        }
    }
    out.push_str(&text[kept..]);
    out
}

/// The bytes of a credential that starts a word at `at`, if one does.
fn secret_at(bytes: &[u8], at: usize) -> Option<Range<usize>> {
    if at > 0 && is_word(bytes[at - 1]) {
        return None;
    }
    let rest = &bytes[at..];
    let after = |word: &str| at + word.len();
    if starts_with_word(rest, "authorization") {
        header_value(bytes, after("authorization"))
    } else if starts_with_word(rest, "bearer") {
        let start = skip(bytes, after("bearer"), |b| b == b' ' || b == b'\t');
        let end = skip(bytes, start, is_token);
        (start > after("bearer") && end - start >= MIN_TOKEN).then_some(start..end)
    } else if rest.starts_with(b"sk-") {
        let end = skip(bytes, after("sk-"), |b| is_word(b) || b == b'-');
        (end - after("sk-") >= MIN_TOKEN).then_some(at..end)
    } else {
        None
    }
}

/// The shortest run of token characters taken for a credential (shorter runs after
/// `Bearer` or `sk-` are words; the key itself is redacted whatever its length).
const MIN_TOKEN: usize = 8;

/// The value after a header name at `at`: past quotes or escapes, a `:` or `=`, up to
/// the end of the line or of the quoted string.
fn header_value(bytes: &[u8], at: usize) -> Option<Range<usize>> {
    let quoting = |b: u8| matches!(b, b'"' | b'\'' | b'\\' | b' ' | b'\t');
    let separator = skip(bytes, at, quoting);
    if !matches!(bytes.get(separator), Some(b':' | b'=')) {
        return None;
    }
    let start = skip(bytes, separator + 1, quoting);
    let end = skip(bytes, start, |b| {
        !matches!(
            b,
            b'"' | b'\'' | b'\\' | b'\r' | b'\n' | b',' | b';' | b'&' | b'}' | b'<'
        )
    });
    (end > start).then_some(start..end)
}

fn starts_with_word(bytes: &[u8], word: &str) -> bool {
    bytes.len() >= word.len()
        && bytes[..word.len()].eq_ignore_ascii_case(word.as_bytes())
        && !bytes.get(word.len()).copied().is_some_and(is_word)
}

fn skip(bytes: &[u8], from: usize, take: impl Fn(u8) -> bool) -> usize {
    from + bytes[from.min(bytes.len())..]
        .iter()
        .take_while(|&&b| take(b))
        .count()
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A character of an RFC 6750 bearer token.
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_and_credentials_are_redacted() {
        let key = Some("k3y-of-the-user");
        for (text, want) in [
            ("echo k3y-of-the-user", "echo [redacted]"),
            (
                "Authorization: Bearer abc def\nnext",
                "Authorization: [redacted]\nnext",
            ),
            (
                r#"{"headers": {"authorization": "Bearer zzz"}, "x": 1}"#,
                r#"{"headers": {"authorization": "[redacted]"}, "x": 1}"#,
            ),
            (
                r#"{"h": "{\"Authorization\": \"Bearer zzz\"}"}"#,
                r#"{"h": "{\"Authorization\": \"[redacted]\"}"}"#,
            ),
            (
                "proxy-authorization=basic dXNlcjpwYXNz&a=1",
                "proxy-authorization=[redacted]&a=1",
            ),
            (
                "token bearer eyJhbGciOiJIUzI1NiJ9.e30.x end",
                "token bearer [redacted] end",
            ),
            ("key sk-proj-abcdefghij0123456789 end", "key [redacted] end"),
            (
                "sk-short and task-abcdefghijklmnopqrstuvwxyz",
                "sk-short and task-abcdefghijklmnopqrstuvwxyz",
            ),
            (
                "the bearer of bad news; no authorization here",
                "the bearer of bad news; no authorization here",
            ),
            ("Authorization:", "Authorization:"),
            ("é authorization: ü ok", "é authorization: [redacted]"),
        ] {
            assert_eq!(redact(text, key), want, "{text}");
        }
        assert_eq!(redact("a b", Some("")), "a b");
    }

    #[test]
    fn a_detail_is_one_line_and_short() {
        assert_eq!(one_line("  a\r\n\tb\u{1b}[31m c ", 200), "a b [31m c");
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(
            status_error("the judge", 404, None),
            "the judge answered HTTP 404"
        );
        assert_eq!(
            status_error("the judge", 400, Some("{\"error\": \"bad\"}".into())),
            "the judge answered HTTP 400: {\"error\": \"bad\"}"
        );
    }
}
