//! [`ServiceError`]: what the service said when it refused a request.
//!
//! The code comes from the `x-ms-error-code` header when present (Azure always sends it), else
//! from the body: the JSON `odata.error` object, or the XML `<Error><Code>` Azurite uses for
//! authentication failures. The message keeps only the first line: the service appends
//! `RequestId:` and `Time:` lines that the request id field already carries.

use std::fmt;
use std::time::Duration;

/// An error answer from the service: HTTP status, service error code, message, request id.
///
/// ```
/// use tablekit::client::ServiceError;
/// let body = br#"{"odata.error":{"code":"EntityAlreadyExists","message":{"lang":"en-US","value":"The specified entity already exists.\nRequestId:x\nTime:y"}}}"#;
/// let err = ServiceError::from_response(409, None, Some("req-1".into()), body);
/// assert_eq!(err.code(), Some("EntityAlreadyExists"));
/// assert_eq!(err.message(), "The specified entity already exists.");
/// assert_eq!(err.request_id(), Some("req-1"));
/// assert_eq!(err.to_string(), "409 EntityAlreadyExists: The specified entity already exists. (request id req-1)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceError {
    status: u16,
    code: Option<String>,
    message: String,
    request_id: Option<String>,
    after_uncertain_attempt: bool,
    /// The answer itself leaves open whether the write was applied (500/502/504).
    uncertain_answer: bool,
    /// How long the service asked the caller to wait before trying again.
    retry_after: Option<Duration>,
}

impl ServiceError {
    /// Builds the error from a response's status, `x-ms-error-code` header, `x-ms-request-id`
    /// header and body (JSON or XML; anything else is ignored).
    ///
    /// ```
    /// use tablekit::client::ServiceError;
    /// // Azurite answers authentication failures in XML
    /// let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AuthorizationFailure</Code>\
    ///             <Message>Server failed to authenticate the request.\nRequestId:1</Message></Error>";
    /// let err = ServiceError::from_response(403, None, None, body.as_bytes());
    /// assert_eq!(err.code(), Some("AuthorizationFailure"));
    /// assert_eq!(err.message(), "Server failed to authenticate the request.");
    /// // the `x-ms-error-code` header wins over the body
    /// let header = Some("AuthenticationFailed".to_owned());
    /// let err = ServiceError::from_response(403, header, None, body.as_bytes());
    /// assert_eq!(err.code(), Some("AuthenticationFailed"));
    /// ```
    pub fn from_response(
        status: u16,
        header_code: Option<String>,
        request_id: Option<String>,
        body: &[u8],
    ) -> Self {
        let (body_code, body_message) = parse_body(body);
        let code = header_code
            .filter(|c| !c.is_empty())
            .or(body_code)
            .filter(|c| !c.is_empty());
        ServiceError {
            status,
            code,
            message: body_message.map(first_line).unwrap_or_default(),
            request_id,
            after_uncertain_attempt: false,
            uncertain_answer: false,
            retry_after: None,
        }
    }

    /// A service error from its parts (for emulators and tests).
    pub fn new(status: u16, code: Option<&str>, message: &str) -> Self {
        ServiceError {
            status,
            code: code.map(str::to_owned),
            message: message.to_owned(),
            request_id: None,
            after_uncertain_attempt: false,
            uncertain_answer: false,
            retry_after: None,
        }
    }

    /// The HTTP status (for a transaction, the failing operation's status).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Orders");
    /// # table.create().await?;
    /// # table.insert(&mut DynamicEntity::new("order-17", "line-2")).await?;
    /// let mut batch = table.batch();
    /// batch.insert(&DynamicEntity::new("order-17", "line-1"))?;
    /// batch.insert(&DynamicEntity::new("order-17", "line-2"))?; // exists already
    /// let err = batch.submit().await.unwrap_err();
    /// assert_eq!(err.service_error().map(|e| e.status()), Some(409)); // the failing operation's
    /// # Ok(()) }
    /// ```
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The service error code, e.g. `UpdateConditionNotSatisfied`.
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    /// The service's message (first line only).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The service's `x-ms-request-id`, to quote in a support request.
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// Whether this answer came to a retry of a write after an earlier attempt of the same
    /// request that may have been applied (its connection dropped, it timed out, or the
    /// service answered 500/502/504).
    ///
    /// Such a 412 or 409 may be the echo of our own write: the first attempt changed the
    /// entity (so its ETag moved on, or the entity now exists) and only its answer was lost.
    /// The client settles what it can prove: a retried insert or transaction whose rows are
    /// exactly as it meant to leave them reports success. What comes back flagged was not
    /// proven either way: re-read before acting on it, as
    /// [`update_with_retry`](crate::client::Table::update_with_retry) does. Never set for
    /// reads, for a first attempt, or after attempts the service refused without applying
    /// them (408, 429, 503).
    ///
    /// ```
    /// # use std::time::Duration;
    /// use tablekit::client::RetryPolicy;
    /// use tablekit::DynamicEntity;
    /// use tablekit_testing::{Emulator, Fault, Faults, Operation};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// // every transaction is carried out, then its answer is lost: a 500
    /// let failing = Faults::seeded(1)
    ///     .rate(Fault::AppliedThenInternalError, 1.0)
    ///     .only(&[Operation::Batch]);
    /// let emulator = Emulator::builder().faults(failing).start().await?;
    /// let client = emulator
    ///     .client_builder()
    ///     .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
    ///     .build()?;
    /// let table = client.table_named::<DynamicEntity>("Orders");
    /// table.create().await?;
    /// let mut batch = table.batch();
    /// batch.insert(&DynamicEntity::new("order-17", "line-1"))?;
    /// let err = batch.submit().await.unwrap_err();
    /// let service = err.service_error().expect("the service answered");
    /// assert_eq!(service.status(), 500);
    /// assert!(service.after_uncertain_attempt()); // the first 500 may have been applied
    /// # Ok(()) }
    /// ```
    pub fn after_uncertain_attempt(&self) -> bool {
        self.after_uncertain_attempt
    }

    /// Whether the write this answer ends may have been applied: the answer itself leaves it
    /// open (500, 502 or 504 to a write) or it came after an attempt that did
    /// ([`after_uncertain_attempt`](Self::after_uncertain_attempt)). Always false for a read.
    ///
    /// ```
    /// use tablekit::client::RetryPolicy;
    /// use tablekit_testing::{Emulator, Fault, Faults};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let failing = Faults::seeded(1).rate(Fault::AppliedThenInternalError, 1.0);
    /// let emulator = Emulator::builder().faults(failing).start().await?;
    /// let client = emulator
    ///     .client_builder()
    ///     .retry_policy(RetryPolicy::none())
    ///     .build()?;
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// let service = err.service_error().expect("the service answered");
    /// assert!(service.may_have_been_applied() && !service.after_uncertain_attempt());
    /// assert_eq!(emulator.table_names(), ["Gamers"]); // it was
    /// let err = client.table_exists("Gamers").await.unwrap_err(); // a read: nothing to apply
    /// assert!(!err.service_error().unwrap().may_have_been_applied());
    /// # Ok(()) }
    /// ```
    pub fn may_have_been_applied(&self) -> bool {
        self.uncertain_answer || self.after_uncertain_attempt
    }

    /// How long the service asked the caller to wait before trying again
    /// (`x-ms-retry-after-ms`, `retry-after-ms` or `Retry-After`), when it did: the Cosmos DB
    /// Table API sends it with every 429; Azure Storage's 503 usually says nothing.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::client::RetryPolicy;
    /// use tablekit_testing::{Emulator, Fault, Faults, Throttle};
    /// use tablekit::limits::Flavor;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// // A Cosmos-flavoured emulator serving 1 entity a second per partition.
    /// let emulator = Emulator::builder()
    ///     .flavor(Flavor::Cosmos)
    ///     .throttle(Throttle::azure().with_partition_rate(1).with_burst(Duration::from_secs(1)))
    ///     .start()
    ///     .await?;
    /// let client = emulator.client_builder().retry_policy(RetryPolicy::none()).build()?;
    /// let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// table.create().await?;
    /// table.upsert_merge(&mut tablekit::DynamicEntity::new("p", "1")).await?;
    /// let err = table.upsert_merge(&mut tablekit::DynamicEntity::new("p", "2")).await.unwrap_err();
    /// assert_eq!(err.status(), Some(429));
    /// assert!(err.service_error().unwrap().retry_after().is_some());
    /// # Ok(()) }
    /// ```
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    pub(crate) fn set_retry_after(&mut self, wait: Option<Duration>) {
        self.retry_after = wait;
    }

    /// Marks the answer as one that followed a possibly applied attempt.
    pub(crate) fn mark_after_uncertain_attempt(&mut self) {
        self.after_uncertain_attempt = true;
    }

    /// Marks the answer as one that leaves open whether the write was applied.
    pub(crate) fn mark_uncertain_answer(&mut self) {
        self.uncertain_answer = true;
    }
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.status)?;
        if let Some(code) = &self.code {
            write!(f, " {code}")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        if let Some(id) = &self.request_id {
            write!(f, " (request id {id})")?;
        }
        f.write_str(applied_note(self.may_have_been_applied()))
    }
}

impl std::error::Error for ServiceError {}

/// Said of a failed write that may have been applied all the same.
pub(crate) fn applied_note(uncertain: bool) -> &'static str {
    if uncertain {
        " (the write may have been applied)"
    } else {
        ""
    }
}

/// The code and message from a JSON `odata.error` or an XML `<Error>` body.
fn parse_body(body: &[u8]) -> (Option<String>, Option<String>) {
    if let Ok(json) = serde_json::from_slice::<serde_json::Value>(body) {
        let error = &json["odata.error"];
        let code = error["code"].as_str().map(str::to_owned);
        let message = error["message"]["value"]
            .as_str()
            .or_else(|| error["message"].as_str())
            .map(str::to_owned);
        return (code, message);
    }
    let text = String::from_utf8_lossy(body);
    let (code, message) = xml_error(&text);
    // A body the XML reader gives up on (a bare `&`, a truncated answer) still shows what a
    // plain search finds: the error is more use with its code than without.
    (
        code.or_else(|| xml_element(&text, "Code")),
        message.or_else(|| xml_element(&text, "Message")),
    )
}

/// The `Code` and `Message` children of an XML error's root, entities and CDATA decoded;
/// prefixes are ignored (`<m:code>` of OData's XML errors is read as well as Azurite's
/// `<Code>`). Stops at the first malformed part, keeping what it read before.
fn xml_error(text: &str) -> (Option<String>, Option<String>) {
    use quick_xml::events::Event;

    /// Which field the text being read belongs to.
    #[derive(Clone, Copy, PartialEq)]
    enum Field {
        Code,
        Message,
    }

    let mut reader = quick_xml::Reader::from_str(text);
    let (mut code, mut message) = (None, None);
    let mut depth = 0usize;
    let mut reading: Option<(Field, String)> = None;
    loop {
        let event = match reader.read_event() {
            Ok(Event::Eof) | Err(_) => break,
            Ok(event) => event,
        };
        match event {
            Event::Start(start) => {
                depth += 1;
                if depth == 2 && reading.is_none() {
                    let field = match start.local_name().as_ref() {
                        b"Code" | b"code" => Some(Field::Code),
                        b"Message" | b"message" => Some(Field::Message),
                        _ => None,
                    };
                    reading = field.map(|f| (f, String::new()));
                }
            }
            Event::End(_) => {
                if depth == 2 {
                    if let Some((field, value)) = reading.take() {
                        let slot = match field {
                            Field::Code => &mut code,
                            Field::Message => &mut message,
                        };
                        // The first of each wins, as the service sends one.
                        slot.get_or_insert_with(|| value.trim().to_owned());
                    }
                }
                depth = depth.saturating_sub(1);
            }
            Event::Text(content) if depth == 2 => {
                if let Some((_, value)) = &mut reading {
                    match content.unescape() {
                        Ok(content) => value.push_str(&content),
                        Err(_) => break,
                    }
                }
            }
            Event::CData(content) if depth == 2 => {
                if let Some((_, value)) = &mut reading {
                    value.push_str(&String::from_utf8_lossy(&content));
                }
            }
            _ => {}
        }
        if code.is_some() && message.is_some() {
            break;
        }
    }
    (code, message)
}

/// The text between the first `<name>` and `</name>`, as it stands.
fn xml_element(text: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let start = text.find(&open)? + open.len();
    let end = text.get(start..)?.find(&format!("</{name}>"))? + start;
    text.get(start..end).map(|s| s.trim().to_owned())
}

fn first_line(message: String) -> String {
    match message.lines().next() {
        Some(line) => line.trim_end().to_owned(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefers_the_header_code_and_reads_azurite_xml() {
        // captures/raw_auth.txt: Azurite answers auth failures in XML.
        let body = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>\n  <Code>AuthorizationFailure</Code>\n  <Message>Server failed to authenticate the request.\nRequestId:1\nTime:2</Message>\n</Error>";
        let err = ServiceError::from_response(403, None, None, body);
        assert_eq!(err.code(), Some("AuthorizationFailure"));
        assert_eq!(err.message(), "Server failed to authenticate the request.");
        let err = ServiceError::from_response(403, Some("AuthenticationFailed".into()), None, body);
        assert_eq!(err.code(), Some("AuthenticationFailed"));
    }

    #[test]
    fn decodes_entities_and_cdata() {
        let body = "<Error><Code>Bad&amp;Worse</Code><Message>a &lt;b&gt; &#233;&#x4E2D; \
                    &quot;q&quot; &apos;s&apos;</Message></Error>";
        let err = ServiceError::from_response(400, None, None, body.as_bytes());
        assert_eq!(err.code(), Some("Bad&Worse"));
        assert_eq!(err.message(), "a <b> \u{e9}\u{4e2d} \"q\" 's'");
        let body = "<Error><Code><![CDATA[X<&>Y]]></Code>\
                    <Message>one <![CDATA[<two>]]> &amp; three\nRequestId:1</Message></Error>";
        let err = ServiceError::from_response(400, None, None, body.as_bytes());
        assert_eq!(err.code(), Some("X<&>Y"));
        assert_eq!(err.message(), "one <two> & three");
    }

    #[test]
    fn reads_prefixed_and_odata_errors_and_skips_nested_ones() {
        let body = r#"<?xml version="1.0" encoding="utf-8"?>
<m:error xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
  <m:code>ResourceNotFound</m:code>
  <m:message xml:lang="en-US">The specified resource does not exist.
RequestId:1</m:message>
</m:error>"#;
        let err = ServiceError::from_response(404, None, None, body.as_bytes());
        assert_eq!(err.code(), Some("ResourceNotFound"));
        assert_eq!(err.message(), "The specified resource does not exist.");
        // A `Code` inside another element is not the error's.
        let body = "<Error><Detail><Code>Inner</Code><Message>inner</Message></Detail>\
                    <Code>Outer</Code><Message>outer</Message></Error>";
        let err = ServiceError::from_response(400, None, None, body.as_bytes());
        assert_eq!(err.code(), Some("Outer"));
        assert_eq!(err.message(), "outer");
    }

    #[test]
    fn malformed_and_truncated_xml_keeps_what_can_be_read() {
        // Truncated in the message: the code is still there.
        let body = b"<Error><Code>ServerBusy</Code><Message>The server is bu";
        let err = ServiceError::from_response(503, None, None, body);
        assert_eq!(err.code(), Some("ServerBusy"));
        assert_eq!(err.message(), "");
        // A bare `&` the reader refuses: the plain search still finds both.
        let body = b"<Error><Code>Bad</Code><Message>a & b</Message></Error>";
        let err = ServiceError::from_response(400, None, None, body);
        assert_eq!(err.code(), Some("Bad"));
        assert_eq!(err.message(), "a & b");
        // Mismatched tags, unknown entities, invalid UTF-8, lone markup: no panic.
        for body in [
            &b"<Error><Code>A</Message></Code></Error>"[..],
            b"<Error><Code>&bogus;</Code></Error>",
            b"<Error><Code>\xff\xfe</Code></Error>",
            b"<",
            b"<![CDATA[",
            b"<Error><Code><Code><Code>",
            b"</Error></Error><Code>X</Code>",
        ] {
            let _ = ServiceError::from_response(400, None, None, body);
        }
    }

    #[test]
    fn tolerates_empty_and_garbage_bodies() {
        let err = ServiceError::from_response(500, None, None, b"");
        assert_eq!(err.code(), None);
        assert_eq!(err.to_string(), "500");
        let err = ServiceError::from_response(400, Some(String::new()), None, b"<Code>");
        assert_eq!(err.code(), None);
        let err = ServiceError::from_response(400, None, None, b"{\"odata.error\":5}");
        assert_eq!(err.code(), None);
    }
}
