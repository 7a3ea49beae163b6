//! [`IncomingRequest`]: a request on its way through the layers, with what its request line and
//! headers say read once up front: the account and resource it names, the kind of
//! operation, its query parameters and the metadata level it asks for.

use std::collections::HashMap;
use std::net::IpAddr;

use http::request::Parts;
use http::Request;
use percent_encoding::percent_decode_str;

use crate::auth::Caller;
use crate::format::error_response::ErrorResponse;
use crate::format::metadata::Metadata;
use crate::pipeline::counter::Operation;
use crate::pipeline::faults::Fault;
use crate::pipeline::outgoing::Responder;
use crate::pipeline::resource::{self, Resource};

/// A request with a body of type `B`: the body streams in at first and is read whole by the
/// [`ReadBody`](crate::pipeline::layers::ReadBody) layer. What was read from its head
/// ([`RequestHead`], its fields reached through `Deref`) is boxed: the request passes by
/// value through every layer, and each move then copies a pointer rather than 600 bytes.
#[derive(Debug)]
pub(crate) struct IncomingRequest<B> {
    head: Box<RequestHead>,
    pub(crate) body: B,
}

/// What an [`IncomingRequest`]'s line and headers say, read once up front.
#[derive(Debug)]
pub(crate) struct RequestHead {
    pub(crate) parts: Parts,
    /// Query parameters, percent-decoded.
    pub(crate) params: HashMap<String, String>,
    /// The account the path names (empty when the path is not valid), without the
    /// `-secondary` suffix of its read-only secondary.
    pub(crate) account: String,
    /// Whether the path names the account's secondary (`/{account}-secondary/...`), which
    /// answers reads only.
    pub(crate) secondary: bool,
    /// The resource below the account, or why the path names none.
    pub(crate) route: Result<Resource, ErrorResponse>,
    pub(crate) operation: Operation,
    /// The fault drawn for this request, once the fault layer has drawn it.
    pub(crate) fault: Option<Fault>,
    /// Who sent it, once the [`Authenticate`](crate::pipeline::layers::Authenticate) layer checked.
    pub(crate) caller: Option<Caller>,
    /// The address it came from, for a SAS's `sip` range: `None` when not known.
    pub(crate) peer: Option<IpAddr>,
    level: Option<Metadata>,
    /// A v4 UUID, hyphenated: kept as bytes, since formatting a `String` for every request
    /// cost an allocation.
    request_id: [u8; uuid::fmt::Hyphenated::LENGTH],
}

impl<B> std::ops::Deref for IncomingRequest<B> {
    type Target = RequestHead;

    fn deref(&self) -> &RequestHead {
        &self.head
    }
}

impl<B> std::ops::DerefMut for IncomingRequest<B> {
    fn deref_mut(&mut self) -> &mut RequestHead {
        &mut self.head
    }
}

/// What an account's secondary adds to its name in paths (and hosts, on Azure).
const SECONDARY: &str = "-secondary";

impl<B> IncomingRequest<B> {
    /// Reads the request's line and headers; the body is left as it is.
    pub(crate) fn new(request: Request<B>) -> Self {
        let (parts, body) = request.into_parts();
        let mut request_id = [0u8; uuid::fmt::Hyphenated::LENGTH];
        uuid::Uuid::new_v4()
            .hyphenated()
            .encode_lower(&mut request_id);
        let (params, bad_query) = match query_params(parts.uri.query()) {
            Ok(params) => (params, None),
            Err(err) => (HashMap::new(), Some(err)),
        };
        let (account, route) = match resource::parse(parts.uri.path()) {
            Ok((account, route)) => {
                let route = resource::with_comp(route, params.get("comp").map(String::as_str));
                (account.into_owned(), bad_query.map_or(Ok(route), Err))
            }
            Err(err) => (String::new(), Err(err)),
        };
        let (account, secondary) = match account.strip_suffix(SECONDARY) {
            Some(primary) if !primary.is_empty() => (primary.to_owned(), true),
            _ => (account, false),
        };
        let operation = route.as_ref().map_or(Operation::Other, |route| {
            route.operation(&parts.method, &parts.headers)
        });
        let level = Metadata::from_accept(header(&parts, "accept"));
        let head = RequestHead {
            parts,
            params,
            account,
            secondary,
            route,
            operation,
            fault: None,
            caller: None,
            peer: None,
            level,
            request_id,
        };
        IncomingRequest {
            head: Box::new(head),
            body,
        }
    }

    /// The same request, noted as coming from `peer` (`None`: not known).
    pub(crate) fn with_peer(mut self, peer: Option<IpAddr>) -> Self {
        self.head.peer = peer;
        self
    }

    /// The same request with its body replaced, and the body it had.
    pub(crate) fn replace_body<C>(self, body: C) -> (IncomingRequest<C>, B) {
        let IncomingRequest { head, body: old } = self;
        (IncomingRequest { head, body }, old)
    }

    /// The id the server gave this request.
    pub(crate) fn request_id(&self) -> &str {
        // Only ASCII was written.
        std::str::from_utf8(&self.request_id).unwrap_or_default()
    }

    /// Writes the answers to this request.
    pub(crate) fn responder(&self) -> Responder<'_> {
        Responder::new(self.request_id(), &self.parts.headers, self.level)
    }
}

/// Query parameters, decoded as HTML forms encode them: `+` is a space (clients built on
/// form encoders, like the `azure_data_tables` crate, send `$filter=TableName+ge+'a'`, which
/// the service reads with spaces) and `%2B` a plus; 400 when one is not UTF-8 once decoded,
/// rather than a value silently changed by replacement characters, and 400
/// InvalidQueryParameterValue when a name repeats, rather than the last one winning.
pub(crate) fn query_params(query: Option<&str>) -> Result<HashMap<String, String>, ErrorResponse> {
    let decode = |s: &str| {
        percent_decode_str(&s.replace('+', " "))
            .decode_utf8()
            .map(|text| text.into_owned())
            .map_err(|_| ErrorResponse::invalid_input("The query string is not valid UTF-8."))
    };
    let mut params = HashMap::new();
    for pair in query.unwrap_or_default().split('&') {
        if pair.is_empty() {
            continue;
        }
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = decode(name)?;
        // Which of two values counts is not for the server to guess: a token with two
        // signatures, or a query with two filters, is refused rather than read last-wins.
        if params.contains_key(&name) {
            return Err(ErrorResponse::new(
                http::StatusCode::BAD_REQUEST,
                "InvalidQueryParameterValue",
                format!("The query parameter `{name}` is given more than once."),
            ));
        }
        let value = decode(value)?;
        params.insert(name, value);
    }
    Ok(params)
}

/// A header's value, when it is text.
pub(crate) fn header<'a>(parts: &'a Parts, name: &str) -> Option<&'a str> {
    parts.headers.get(name).and_then(|v| v.to_str().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parameters_decode_plus_as_a_space() {
        let params =
            query_params(Some("$filter=PartitionKey%20eq%20%27a%2Bb%27&$top=2&flag")).unwrap();
        assert_eq!(params["$filter"], "PartitionKey eq 'a+b'");
        let form = query_params(Some("$filter=TableName+ge+%27a+b%27")).unwrap();
        assert_eq!(form["$filter"], "TableName ge 'a b'");
        assert_eq!(params["$top"], "2");
        assert_eq!(params["flag"], "");
        let err = query_params(Some("$filter=%FF")).unwrap_err();
        assert_eq!(err.code, "InvalidInput");
        assert!(query_params(Some("%C3=x")).is_err());
        let twice = query_params(Some("sig=a&sv=1&sig=b")).unwrap_err();
        assert_eq!(twice.code, "InvalidQueryParameterValue");
        assert!(query_params(Some("%24top=1&$top=2")).is_err()); // the same name, encoded
    }

    #[test]
    fn the_request_line_is_read_once() {
        let request = Request::builder()
            .method("PUT")
            .uri("/acct/T(PartitionKey='p',RowKey='r')?timeout=5")
            .header("If-Match", "*")
            .header("Accept", "application/json;odata=nometadata")
            .body(())
            .unwrap();
        let call = IncomingRequest::new(request);
        assert_eq!(call.account, "acct");
        assert!(matches!(call.route, Ok(Resource::Entity { .. })));
        assert_eq!(call.operation, Operation::Replace);
        assert_eq!(call.params["timeout"], "5");
        assert_eq!(call.responder().level(), Some(Metadata::None));
        assert!(uuid::Uuid::parse_str(call.request_id()).is_ok());
        let bad = IncomingRequest::new(Request::builder().uri("/acct/t/x").body(()).unwrap());
        assert!(bad.route.is_err());
        assert_eq!(bad.operation, Operation::Other);
    }
}
