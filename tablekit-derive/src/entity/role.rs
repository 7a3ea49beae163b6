//! [`KeyRole`]: which of an entity's two keys a part belongs to.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use crate::internals::hygiene::Private;
use crate::internals::symbol::{self, Symbol};

/// The PartitionKey or the RowKey.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyRole {
    Partition,
    Row,
}

impl KeyRole {
    /// Both, in the order keys are written.
    pub(crate) const ALL: [KeyRole; 2] = [KeyRole::Partition, KeyRole::Row];

    /// The attribute naming the role (`partition_key`).
    pub(crate) fn symbol(self) -> Symbol {
        match self {
            KeyRole::Partition => symbol::PARTITION_KEY,
            KeyRole::Row => symbol::ROW_KEY,
        }
    }

    /// The service's name (`PartitionKey`).
    pub(crate) fn service_name(self) -> &'static str {
        match self {
            KeyRole::Partition => "PartitionKey",
            KeyRole::Row => "RowKey",
        }
    }

    /// The key column (`PARTITION_KEY`).
    pub(crate) fn column(self) -> Ident {
        match self {
            KeyRole::Partition => format_ident!("PARTITION_KEY"),
            KeyRole::Row => format_ident!("ROW_KEY"),
        }
    }

    /// The key function (`partition_key_of`).
    pub(crate) fn key_fn(self) -> Ident {
        format_ident!("{}_of", self.symbol().as_str())
    }

    /// The dynamic entity's setter (`set_partition_key`).
    pub(crate) fn setter(self) -> Ident {
        format_ident!("set_{}", self.symbol().as_str())
    }

    /// The dynamic entity's getter (`partition_key`).
    pub(crate) fn getter(self) -> Ident {
        format_ident!("{}", self.symbol().as_str())
    }

    /// The runtime's `KeyKind`.
    pub(crate) fn kind(self, p: &Private) -> TokenStream {
        match self {
            KeyRole::Partition => quote!(#p::KeyKind::PartitionKey),
            KeyRole::Row => quote!(#p::KeyKind::RowKey),
        }
    }
}
