//! [`Action`] and [`Needs`]: what each kind of SAS must grant for each operation, the
//! [table](super#who-may-do-what) of the module docs written as code.

/// An operation of the Table service, as authorization tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    GetServiceProperties,
    SetServiceProperties,
    GetServiceStats,
    /// List the tables, or get one by name.
    QueryTables,
    CreateTable,
    DeleteTable,
    GetTableAcl,
    SetTableAcl,
    /// Query a table's entities, or get one by its keys.
    QueryEntities,
    InsertEntity,
    /// Insert Or Replace and Insert Or Merge: a write without `If-Match`.
    UpsertEntity,
    /// Update and Merge: a write with `If-Match`.
    UpdateEntity,
    DeleteEntity,
}

/// What a SAS must grant for one [`Action`], in the service's permission letters; `None`
/// where no SAS of that kind may call it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Needs {
    /// The resource type an account SAS must name (`s`, `c` or `o`), and its permissions:
    /// every entry of the list is needed, and any one letter of an entry grants it.
    pub(crate) account_sas: Option<(&'static str, &'static [&'static str])>,
    /// The permissions a table SAS must grant, every letter.
    pub(crate) table_sas: Option<&'static str>,
}

impl Action {
    /// What a SAS must grant to call this operation.
    pub(crate) fn needs(self) -> Needs {
        #[rustfmt::skip]
        let (account_sas, table_sas): (Option<(_, &'static [_])>, _) = match self {
            //                               account SAS: srt, sp       table SAS: sp
            Action::GetServiceProperties => (Some(("s", &["r"])),       None),
            Action::SetServiceProperties => (Some(("s", &["w"])),       None),
            Action::GetServiceStats =>      (Some(("s", &["r"])),       None),
            Action::QueryTables =>          (Some(("c", &["l"])),       None),
            Action::CreateTable =>          (Some(("c", &["acw"])),     None),
            Action::DeleteTable =>          (Some(("c", &["d"])),       None),
            Action::GetTableAcl =>          (None,                      None),
            Action::SetTableAcl =>          (None,                      None),
            Action::QueryEntities =>        (Some(("o", &["r"])),       Some("r")),
            Action::InsertEntity =>         (Some(("o", &["aw"])),      Some("a")),
            Action::UpsertEntity =>         (Some(("o", &["aw", "uw"])), Some("au")),
            Action::UpdateEntity =>         (Some(("o", &["uw"])),      Some("u")),
            Action::DeleteEntity =>         (Some(("o", &["d"])),       Some("d")),
        };
        Needs {
            account_sas,
            table_sas,
        }
    }
}

#[cfg(test)]
mod tests {
    use tablekit::sas::{AccountPermissions, ResourceTypes, TablePermissions};

    use super::Action::{self, *};

    const EVERY: [Action; 13] = [
        GetServiceProperties,
        SetServiceProperties,
        GetServiceStats,
        QueryTables,
        CreateTable,
        DeleteTable,
        GetTableAcl,
        SetTableAcl,
        QueryEntities,
        InsertEntity,
        UpsertEntity,
        UpdateEntity,
        DeleteEntity,
    ];

    #[test]
    fn every_cell_is_written_in_the_service_letters() {
        for action in EVERY {
            let needs = action.needs();
            if let Some((resource_type, permissions)) = needs.account_sas {
                assert!(ResourceTypes::from_letters(resource_type).is_some_and(|r| !r.is_empty()));
                for any in permissions {
                    let parsed = AccountPermissions::from_letters(any);
                    assert!(parsed.is_some_and(|p| !p.is_empty()), "{action:?}");
                }
            }
            if let Some(letters) = needs.table_sas {
                let parsed = TablePermissions::from_letters(letters);
                assert!(parsed.is_some_and(|p| !p.is_empty()), "{action:?}");
            }
        }
    }

    #[test]
    fn only_the_account_key_reaches_stored_access_policies() {
        for action in [GetTableAcl, SetTableAcl] {
            assert_eq!(action.needs().account_sas, None);
            assert_eq!(action.needs().table_sas, None);
        }
    }
}
