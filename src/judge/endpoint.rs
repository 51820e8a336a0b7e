//! Where a judge request goes: an OpenAI-compatible chat-completions endpoint over
//! HTTP(S), or anything else that answers a request body with a response body (a
//! test's scripted judge).
//!
//! The API key comes from the caller (the command line reads it from an environment
//! variable, never from its arguments) and is sent as a bearer token. A request that
//! fails for a reason that may pass (no connection, a timeout, status 429 or 5xx) is
//! tried again, twice, after a short pause; any other failure is the item's reason
//! for staying in review.

use std::thread::sleep;
use std::time::Duration;

use serde_json::Value as Json;

/// Answers one chat-completions request body with the response body.
pub trait Complete: Sync {
    fn complete(&self, body: &Json) -> Result<String, String>;
}

pub struct OpenAi {
    url: String,
    api_key: Option<String>,
    agent: ureq::Agent,
}

/// Tries per request, the first included.
const ATTEMPTS: u32 = 3;

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
            .build()
            .into();
        OpenAi {
            url,
            api_key,
            agent,
        }
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
        let mut response = request
            .send(body)
            .map_err(|e| Attempt::Retry(format!("cannot reach the judge at {}: {e}", self.url)))?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| Attempt::Retry(format!("cannot read the judge's answer: {e}")))?;
        match status {
            200..=299 => Ok(text),
            429 | 500..=599 => Err(Attempt::Retry(status_error(status, &text))),
            _ => Err(Attempt::Fail(status_error(status, &text))),
        }
    }
}

enum Attempt {
    Retry(String),
    Fail(String),
}

fn status_error(status: u16, body: &str) -> String {
    let detail: String = body.chars().take(200).collect();
    format!("the judge answered HTTP {status}: {}", detail.trim())
}

impl Complete for OpenAi {
    fn complete(&self, body: &Json) -> Result<String, String> {
        let body = body.to_string();
        let mut last = String::new();
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                sleep(Duration::from_millis(500 << attempt));
            }
            match self.attempt(&body) {
                Ok(text) => return Ok(text),
                Err(Attempt::Fail(why)) => return Err(why),
                Err(Attempt::Retry(why)) => last = why,
            }
        }
        Err(last)
    }
}
