//! Routes one HTTP request: counts it, injects faults, authenticates it, and runs the table
//! or entity operation it names, answering as the service does.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use http::header::{ETAG, LOCATION};
use http::request::Parts;
use http::{HeaderName, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use percent_encoding::percent_decode_str;
use tablekit::limits;

use crate::auth::{self, Caller};
use crate::batch;
use crate::continuation;
use crate::counter::Operation;
use crate::faults::Fault;
use crate::filter::{Field, Filter, Subject};
use crate::headers as names;
use crate::operations::{self, EntityOp};
use crate::response::{self, EntityWriter, Metadata};
use crate::route::{self, Route};
use crate::scan;
use crate::server::State;
use crate::service_error::ServiceError;
use crate::store::{entity_key, EntityKey, Key};
use crate::stored::Stored;

/// A response with its whole body.
pub(crate) type Reply = Response<Full<Bytes>>;

/// Closing the connection without an answer (an injected fault).
#[derive(Debug)]
pub(crate) struct Dropped;

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection dropped by fault injection")
    }
}

impl std::error::Error for Dropped {}

/// The most entities one page holds.
const MAX_PAGE: usize = 1000;
/// The largest body accepted outside `$batch` (an entity is at most 1 MiB by the service's
/// formula; its JSON can be larger).
const MAX_BODY: usize = 8 * 1024 * 1024;

/// Handles one request; `Err` closes the connection without an answer.
pub(crate) async fn handle(state: Arc<State>, req: Request<Incoming>) -> Result<Reply, Dropped> {
    let (parts, body) = req.into_parts();
    let mut id_text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    let request_id: &str = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut id_text);
    let params = query_params(parts.uri.query());
    let parsed = route::parse(parts.uri.path());
    let op = match &parsed {
        Ok((_, route)) => operation(&parts.method, route, &parts),
        Err(_) => Operation::Other,
    };
    state.counter.record(op);
    let (fault, latency, hold) = draw_fault(&state, op);
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let ctx = Ctx {
        state: &state,
        parts: &parts,
        params: &params,
        request_id,
        account: parsed.as_ref().map(|(a, _)| a.clone()).unwrap_or_default(),
        level: Metadata::from_accept(header(&parts, "accept")),
    };
    match fault {
        Some(Fault::InternalError) => {
            return Ok(ctx.error(&ServiceError::injected(StatusCode::INTERNAL_SERVER_ERROR)))
        }
        Some(Fault::ServerBusy) => {
            return Ok(ctx.error(&ServiceError::injected(StatusCode::SERVICE_UNAVAILABLE)))
        }
        Some(Fault::Timeout) => {
            tokio::time::sleep(hold).await;
            return Err(Dropped);
        }
        Some(Fault::DropConnection) => return Err(Dropped),
        _ => {}
    }
    let limit = if matches!(parsed, Ok((_, Route::Batch))) {
        limits::MAX_BATCH_BYTES
    } else {
        MAX_BODY
    };
    let body = match read_body(&parts, body, limit).await {
        Ok(body) => body,
        Err(err) => return Ok(ctx.error(&err)),
    };
    // Answering is synchronous (no await inside): its wall time is the server's own work.
    let started = std::time::Instant::now();
    let reply = match parsed.and_then(|(_, route)| ctx.dispatch(route, &body)) {
        Ok(reply) => reply,
        Err(err) => ctx.error(&err),
    };
    state.counter.record_busy(started.elapsed());
    match fault {
        Some(Fault::AppliedThenDropped) => Err(Dropped),
        Some(Fault::AppliedThenInternalError) => {
            Ok(ctx.error(&ServiceError::injected(StatusCode::INTERNAL_SERVER_ERROR)))
        }
        _ => Ok(reply),
    }
}

fn draw_fault(
    state: &State,
    op: Operation,
) -> (Option<Fault>, std::time::Duration, std::time::Duration) {
    let mut faults = state.faults.lock().unwrap_or_else(|e| e.into_inner());
    match faults.as_mut() {
        Some(plan) => (plan.draw(op), plan.latency(), plan.hold()),
        None => (None, Default::default(), Default::default()),
    }
}

async fn read_body(parts: &Parts, body: Incoming, limit: usize) -> Result<Bytes, ServiceError> {
    let declared = header(parts, "content-length").and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(ServiceError::body_too_large());
    }
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(err) if err.is::<http_body_util::LengthLimitError>() => {
            Err(ServiceError::body_too_large())
        }
        Err(_) => Err(ServiceError::invalid_input(
            "The request body could not be read.",
        )),
    }
}

/// The kind of request, for the counter and for fault scoping.
pub(crate) fn operation(method: &Method, route: &Route, parts: &Parts) -> Operation {
    let conditional = parts.headers.contains_key(http::header::IF_MATCH);
    match (method.as_str(), route) {
        ("POST", Route::Tables) => Operation::CreateTable,
        ("GET", Route::Tables | Route::Table(_)) => Operation::QueryTables,
        ("DELETE", Route::Table(_)) => Operation::DeleteTable,
        ("POST", Route::Batch) => Operation::Batch,
        ("POST", Route::Entities(_)) => Operation::Insert,
        ("GET", Route::Entities(_)) => Operation::Query,
        ("GET", Route::Entity { .. }) => Operation::Get,
        ("PUT", Route::Entity { .. }) if conditional => Operation::Replace,
        ("PUT", Route::Entity { .. }) => Operation::InsertOrReplace,
        ("MERGE" | "PATCH", Route::Entity { .. }) if conditional => Operation::Merge,
        ("MERGE" | "PATCH", Route::Entity { .. }) => Operation::InsertOrMerge,
        ("DELETE", Route::Entity { .. }) => Operation::Delete,
        _ => Operation::Other,
    }
}

/// Query parameters, percent-decoded (`+` stays a plus, as the service reads it).
pub(crate) fn query_params(query: Option<&str>) -> HashMap<String, String> {
    query
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let decode = |s: &str| percent_decode_str(s).decode_utf8_lossy().into_owned();
            (decode(name), decode(value))
        })
        .collect()
}

fn header<'a>(parts: &'a Parts, name: &str) -> Option<&'a str> {
    parts.headers.get(name).and_then(|v| v.to_str().ok())
}

/// One request being answered.
pub(crate) struct Ctx<'a> {
    pub(crate) state: &'a State,
    pub(crate) parts: &'a Parts,
    pub(crate) params: &'a HashMap<String, String>,
    pub(crate) request_id: &'a str,
    pub(crate) account: String,
    pub(crate) level: Option<Metadata>,
}

impl Ctx<'_> {
    fn dispatch(&self, route: Route, body: &[u8]) -> Result<Reply, ServiceError> {
        let caller = self.authenticate()?;
        let method = self.parts.method.as_str();
        match (method, route) {
            ("GET", Route::Tables) => self.owner_only(&caller).and_then(|_| self.list_tables()),
            ("POST", Route::Tables) => self
                .owner_only(&caller)
                .and_then(|_| self.create_table(body)),
            ("GET", Route::Table(name)) => {
                self.owner_only(&caller).and_then(|_| self.get_table(&name))
            }
            ("DELETE", Route::Table(name)) => self
                .owner_only(&caller)
                .and_then(|_| self.delete_table(&name)),
            ("POST", Route::Batch) => batch::execute(self, &caller, body),
            ("GET", Route::Entities(table)) => self.query(&caller, &table),
            ("POST", Route::Entities(table)) => self.insert(&caller, &table, body),
            (
                "GET",
                Route::Entity {
                    table,
                    partition_key,
                    row_key,
                },
            ) => self.get_entity(&caller, &table, &partition_key, &row_key),
            (
                "PUT" | "MERGE" | "PATCH" | "DELETE",
                Route::Entity {
                    table,
                    partition_key,
                    row_key,
                },
            ) => {
                let op = self.entity_op(method, &partition_key, &row_key, body)?;
                self.write_entity(&caller, &table, op)
            }
            (_, Route::Service) => Err(ServiceError::not_implemented(
                "service properties and statistics",
            )),
            _ => Err(ServiceError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "UnsupportedHttpVerb",
                "The resource doesn't support the specified HTTP verb.",
            )),
        }
    }

    fn authenticate(&self) -> Result<Caller, ServiceError> {
        let key = self.state.accounts.get(&self.account).ok_or_else(|| {
            ServiceError::authentication_failed("The account does not exist on this emulator.")
        })?;
        auth::authenticate(self.parts, self.params, &self.account, key)
    }

    fn owner_only(&self, caller: &Caller) -> Result<(), ServiceError> {
        match caller {
            Caller::Owner => Ok(()),
            Caller::Sas(_) => Err(ServiceError::authorization_mismatch(
                "A table SAS cannot manage tables.",
            )),
        }
    }

    /// `http://host/account`, as the client addressed the server.
    pub(crate) fn base(&self) -> String {
        let host = header(self.parts, "host").unwrap_or("127.0.0.1");
        ["http://", host, "/", &self.account].concat()
    }

    /// The metadata level for a JSON answer; 415 when the client asked for none.
    pub(crate) fn json_level(&self) -> Result<Metadata, ServiceError> {
        self.level.ok_or_else(ServiceError::atom_not_supported)
    }

    fn header(&self, name: &str) -> Option<&str> {
        header(self.parts, name)
    }

    fn wants_no_content(&self) -> bool {
        self.header("prefer")
            .is_some_and(|p| p.contains("return-no-content"))
    }

    /// A response with the headers every answer carries.
    pub(crate) fn reply(
        &self,
        status: StatusCode,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Reply {
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        let headers = response.headers_mut();
        // Room for every header an answer carries, so the map never grows.
        headers.reserve(12);
        if let Ok(v) = HeaderValue::from_str(self.request_id) {
            headers.insert(names::REQUEST_ID, v);
        }
        headers.insert(names::VERSION, HeaderValue::from_static("2019-02-02"));
        if let Some(date) = crate::datetime::http_date() {
            headers.insert(http::header::DATE, date);
        }
        if let Some(id) = self.parts.headers.get(names::CLIENT_REQUEST_ID) {
            headers.insert(names::CLIENT_REQUEST_ID, id.clone());
        }
        if let Some(ct) = content_type.and_then(|ct| HeaderValue::from_str(ct).ok()) {
            headers.insert(http::header::CONTENT_TYPE, ct);
        }
        response
    }

    /// Adds a header; an owned or static value becomes the header without a copy.
    fn with_header(mut reply: Reply, name: HeaderName, value: impl Into<Bytes>) -> Reply {
        if let Ok(v) = HeaderValue::from_maybe_shared(value.into()) {
            reply.headers_mut().insert(name, v);
        }
        reply
    }

    /// An error answer.
    pub(crate) fn error(&self, err: &ServiceError) -> Reply {
        let (content_type, body) = response::error_body(err, self.request_id, self.level, "");
        let reply = self.reply(err.status, Some(content_type), body);
        Self::with_header(reply, names::ERROR_CODE, err.code)
    }

    // ---- tables ----

    fn list_tables(&self) -> Result<Reply, ServiceError> {
        let level = self.json_level()?;
        let filter = self.filter()?;
        let top = self.top()?;
        let start = match self.params.get("NextTableName") {
            Some(token) => Some(continuation::decode(token)?),
            None => None,
        };
        let names = self.state.store.table_names(&self.account);
        let mut page = Vec::new();
        let mut next = None;
        for name in names {
            if start
                .as_deref()
                .is_some_and(|s| crate::filter::utf16_cmp(&name, s).is_lt())
            {
                continue;
            }
            if filter
                .as_ref()
                .is_some_and(|f| !f.matches(&TableRow(&name)))
            {
                continue;
            }
            if page.len() == top {
                next = Some(name);
                break;
            }
            page.push(name);
        }
        let body = response::table_page(&self.base(), &self.account, &page, level);
        let reply = self.reply(StatusCode::OK, Some(level.content_type()), body);
        Ok(match next {
            Some(name) => {
                Self::with_header(reply, names::NEXT_TABLE_NAME, continuation::encode(&name))
            }
            None => reply,
        })
    }

    fn create_table(&self, body: &[u8]) -> Result<Reply, ServiceError> {
        #[derive(serde::Deserialize)]
        struct CreateTable {
            #[serde(rename = "TableName")]
            table_name: String,
        }
        let request: CreateTable = serde_json::from_slice(body).map_err(|_| {
            ServiceError::invalid_input("The body must be {\"TableName\": \"...\"}.")
        })?;
        let name = request.table_name;
        limits::validate_table_name(&name)?;
        let level = if self.wants_no_content() {
            None
        } else {
            Some(self.json_level()?)
        };
        self.state.store.create_table(&self.account, &name)?;
        Ok(match level {
            None => Self::with_header(
                self.reply(StatusCode::NO_CONTENT, None, Vec::new()),
                names::PREFERENCE_APPLIED,
                "return-no-content",
            ),
            Some(level) => {
                let body = response::table_single(&self.base(), &self.account, &name, level);
                Self::with_header(
                    self.reply(StatusCode::CREATED, Some(level.content_type()), body),
                    names::PREFERENCE_APPLIED,
                    "return-content",
                )
            }
        })
    }

    fn get_table(&self, name: &str) -> Result<Reply, ServiceError> {
        let level = self.json_level()?;
        let table = self.state.store.table(&self.account, name)?;
        let stored_name = table.read().unwrap_or_else(|e| e.into_inner()).name.clone();
        let body = response::table_single(&self.base(), &self.account, &stored_name, level);
        Ok(self.reply(StatusCode::OK, Some(level.content_type()), body))
    }

    fn delete_table(&self, name: &str) -> Result<Reply, ServiceError> {
        self.state.store.delete_table(&self.account, name)?;
        Ok(self.reply(StatusCode::NO_CONTENT, None, Vec::new()))
    }

    // ---- entities ----

    fn filter(&self) -> Result<Option<Filter>, ServiceError> {
        match self.params.get("$filter") {
            None => Ok(None),
            Some(text) => Filter::parse(text)
                .map(Some)
                .map_err(|e| ServiceError::invalid_input(e.to_string())),
        }
    }

    fn top(&self) -> Result<usize, ServiceError> {
        match self.params.get("$top") {
            None => Ok(MAX_PAGE),
            Some(text) => match text.trim().parse::<usize>() {
                Ok(n) if n > 0 => Ok(n.min(MAX_PAGE)),
                _ => Err(ServiceError::invalid_input(
                    "$top must be a positive integer.",
                )),
            },
        }
    }

    fn select(&self) -> Option<Vec<String>> {
        let text = self.params.get("$select")?;
        let names: Vec<String> = text
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        // `*` selects everything.
        (!names.is_empty() && !names.iter().any(|n| n == "*")).then_some(names)
    }

    pub(crate) fn query(&self, caller: &Caller, table_name: &str) -> Result<Reply, ServiceError> {
        let level = self.json_level()?;
        if let Caller::Sas(grant) = caller {
            grant.check_table(table_name)?;
            grant.check_permissions("r")?;
        }
        let filter = self.filter()?;
        let top = self.top()?;
        let select = self.select();
        let start = self.start_key()?;
        let table = self.state.store.table(&self.account, table_name)?;
        let (page, next, stored_name) = {
            let table = table.read().unwrap_or_else(|e| e.into_inner());
            if table.deleted {
                return Err(ServiceError::table_not_found());
            }
            let (page, next) =
                scan::page(&table, filter.as_ref(), start, top, |pk, rk| match caller {
                    Caller::Owner => true,
                    Caller::Sas(grant) => grant.allows_keys(pk, rk),
                });
            (page, next, table.name.clone())
        };
        // The lock is released: the answer is written from shared pointers.
        let writer = EntityWriter {
            base: &self.base(),
            account: &self.account,
            table: &stored_name,
            level,
            select: select.as_deref(),
        };
        let body = writer.page(page.iter().map(|e| &**e));
        let mut reply = self.reply(StatusCode::OK, Some(level.content_type()), body);
        if let Some((pk, rk)) = next {
            reply = Self::with_header(
                reply,
                names::NEXT_PARTITION_KEY,
                continuation::encode(&pk.0),
            );
            reply = Self::with_header(reply, names::NEXT_ROW_KEY, continuation::encode(&rk.0));
        }
        Ok(reply)
    }

    fn start_key(&self) -> Result<Option<EntityKey>, ServiceError> {
        let Some(pk) = self.params.get("NextPartitionKey") else {
            return Ok(None);
        };
        let pk = continuation::decode(pk)?;
        let rk = match self.params.get("NextRowKey") {
            Some(rk) if !rk.is_empty() => continuation::decode(rk)?,
            _ => String::new(),
        };
        Ok(Some((Key(pk), Key(rk))))
    }

    pub(crate) fn get_entity(
        &self,
        caller: &Caller,
        table_name: &str,
        pk: &str,
        rk: &str,
    ) -> Result<Reply, ServiceError> {
        let level = self.json_level()?;
        if let Caller::Sas(grant) = caller {
            grant.check_table(table_name)?;
            grant.check_permissions("r")?;
            grant.check_keys(pk, rk)?;
        }
        let select = self.select();
        let table = self.state.store.table(&self.account, table_name)?;
        let (entity, stored_name) = {
            let table = table.read().unwrap_or_else(|e| e.into_inner());
            if table.deleted {
                return Err(ServiceError::table_not_found());
            }
            let entity = table
                .entities
                .get(&entity_key(pk, rk))
                .cloned()
                .ok_or_else(ServiceError::resource_not_found)?;
            (entity, table.name.clone())
        };
        let writer = EntityWriter {
            base: &self.base(),
            account: &self.account,
            table: &stored_name,
            level,
            select: select.as_deref(),
        };
        let reply = self.reply(
            StatusCode::OK,
            Some(level.content_type()),
            writer.single(&entity),
        );
        Ok(Self::with_header(
            reply,
            ETAG,
            response::entity_etag(&entity),
        ))
    }

    fn entity_op(
        &self,
        method: &str,
        pk: &str,
        rk: &str,
        body: &[u8],
    ) -> Result<EntityOp, ServiceError> {
        let if_match = operations::parse_if_match(self.header("if-match"))?;
        if method == "DELETE" {
            return Ok(EntityOp::Delete {
                partition_key: pk.to_owned(),
                row_key: rk.to_owned(),
                if_match: if_match.ok_or_else(|| ServiceError::missing_header("If-Match"))?,
            });
        }
        let entity = operations::parse_entity(body, Some((pk, rk)))?;
        Ok(EntityOp::Update {
            entity,
            if_match,
            merge: method != "PUT",
        })
    }

    fn insert(
        &self,
        caller: &Caller,
        table_name: &str,
        body: &[u8],
    ) -> Result<Reply, ServiceError> {
        let level = if self.wants_no_content() {
            None
        } else {
            Some(self.json_level()?)
        };
        let entity = operations::parse_entity(body, None)?;
        let (stored, table_name) = self.apply(caller, table_name, EntityOp::Insert(entity))?;
        let stored = stored.ok_or_else(ServiceError::resource_not_found)?;
        let etag = response::entity_etag(&stored);
        let reply = match level {
            None => Self::with_header(
                self.reply(StatusCode::NO_CONTENT, None, Vec::new()),
                names::PREFERENCE_APPLIED,
                "return-no-content",
            ),
            Some(level) => {
                let writer = EntityWriter {
                    base: &self.base(),
                    account: &self.account,
                    table: &table_name,
                    level,
                    select: None,
                };
                Self::with_header(
                    self.reply(
                        StatusCode::CREATED,
                        Some(level.content_type()),
                        writer.single(&stored),
                    ),
                    names::PREFERENCE_APPLIED,
                    "return-content",
                )
            }
        };
        let location = response::entity_location(&self.base(), &table_name, &stored);
        let reply = Self::with_header(reply, LOCATION, location);
        Ok(Self::with_header(reply, ETAG, etag))
    }

    fn write_entity(
        &self,
        caller: &Caller,
        table_name: &str,
        op: EntityOp,
    ) -> Result<Reply, ServiceError> {
        let (stored, _) = self.apply(caller, table_name, op)?;
        let reply = self.reply(StatusCode::NO_CONTENT, None, Vec::new());
        Ok(match stored {
            Some(entity) => Self::with_header(reply, ETAG, response::entity_etag(&entity)),
            None => reply,
        })
    }

    /// Runs one entity operation under the table's lock; returns the stored entity and the
    /// table's name as created.
    fn apply(
        &self,
        caller: &Caller,
        table_name: &str,
        op: EntityOp,
    ) -> Result<(Option<Arc<Stored>>, String), ServiceError> {
        if let Caller::Sas(grant) = caller {
            grant.check_table(table_name)?;
            grant.check_permissions(op.permissions())?;
            let (pk, rk) = op.keys();
            grant.check_keys(pk, rk)?;
        }
        let key = {
            let (pk, rk) = op.keys();
            entity_key(pk, rk)
        };
        let table = self.state.store.table(&self.account, table_name)?;
        let mut table = table.write().unwrap_or_else(|e| e.into_inner());
        if table.deleted {
            return Err(ServiceError::table_not_found());
        }
        let current = table.entities.get(&key).map(|e| &***e);
        let planned = operations::plan(op, current, self.state.store.next_timestamp())?;
        let stored = planned.stored().cloned();
        self.state
            .store
            .commit(&self.account, &mut table, vec![planned.change])?;
        let name = table.name.clone();
        drop(table);
        if let Some(stored) = &stored {
            stored.prepare();
        }
        Ok((stored, name))
    }
}

/// A table in the listing, as a filter sees it (`TableName eq 'x'`).
struct TableRow<'a>(&'a str);

impl Subject for TableRow<'_> {
    fn field(&self, name: &str) -> Option<Field<'_>> {
        (name == "TableName").then_some(Field::Text(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parameters_decode_but_keep_plus() {
        let params = query_params(Some("$filter=PartitionKey%20eq%20%27a+b%27&$top=2&flag"));
        assert_eq!(params["$filter"], "PartitionKey eq 'a+b'");
        assert_eq!(params["$top"], "2");
        assert_eq!(params["flag"], "");
    }
}
