//! Values larger than one property, split across several (placeholders for the API contract).

use crate::{DynamicEntity, Error};

/// Stores `bytes` in property `name` and its chunk properties (at most `max_properties`).
pub fn write_split(
    entity: &mut DynamicEntity,
    name: &str,
    bytes: &[u8],
    max_properties: usize,
) -> Result<(), Error> {
    let _ = (entity, name, bytes, max_properties);
    unimplemented!("contract placeholder")
}

/// Reads what [`write_split`] stored; `Ok(None)` when the property is absent.
pub fn read_split(entity: &DynamicEntity, name: &str) -> Result<Option<Vec<u8>>, Error> {
    let _ = (entity, name);
    unimplemented!("contract placeholder")
}

/// Every property name a split value named `name` may use.
pub fn chunk_names(name: &str, max_properties: usize) -> Vec<String> {
    let _ = (name, max_properties);
    unimplemented!("contract placeholder")
}

/// Removes `name` and all its chunk properties.
pub fn remove_split(entity: &mut DynamicEntity, name: &str) {
    let _ = (entity, name);
    unimplemented!("contract placeholder")
}
