//! The emulator as its clients meet it, over real HTTP: its command line, the headers of
//! every kind of answer, what a request must get right before it is acted on, authentication
//! before the body, Shared Key freshness, limits on connections, and the data directory of a
//! persistent emulator (damaged files, journal migration, kills of the binary).

mod answer_headers;
mod auth_first;
mod auth_replay;
mod command_line;
mod connection_limits;
mod crash_persistence;
mod persistence_files;
mod request_checks;
mod sas_checks;
