//! What the derives can tell about a field's type from its tokens. They cannot resolve names,
//! so this looks at the last path segment (`chrono::DateTime<Utc>` is a `DateTime`); the trait
//! bounds in the generated code are the final word.
//!
//! Types arrive wrapped in invisible groups when a struct is written by a `macro_rules!` macro
//! (`$ty:ty`), or in parentheses: every function here looks through both.

use syn::{GenericArgument, PathArguments, PathSegment, Type};

/// How the value layer sees a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TypeKind {
    Bool,
    /// `i8`, `i16`, `i32`: stored as `Int32`.
    I32,
    /// `i64`, `isize`.
    I64,
    /// `u8` and `u16`: stored as `Int32`, and unsigned key parts.
    SmallUnsigned,
    U32,
    U64,
    /// `f32` and `f64`: stored as `Double`; no key form sorts like them.
    F64,
    String,
    /// `DateTime<Utc>`.
    DateTime,
    Uuid,
    /// `Vec<u8>`.
    Bytes,
    /// `Vec<T>` with `T` not `u8`.
    List,
    /// A user path type: an enum with `TableValue`, or a type implementing the value traits.
    User,
    /// A type that cannot be a property (references, tuples, arrays, maps, ...).
    Unsupported,
}

impl TypeKind {
    /// Whether a value of this kind can be one property.
    pub(crate) fn is_property(self) -> bool {
        !matches!(self, TypeKind::List | TypeKind::Unsupported)
    }

    pub(crate) fn is_unsigned(self) -> bool {
        matches!(
            self,
            TypeKind::SmallUnsigned | TypeKind::U32 | TypeKind::U64
        )
    }
}

/// The type inside invisible groups and parentheses.
pub(crate) fn ungroup(mut ty: &Type) -> &Type {
    loop {
        match ty {
            Type::Group(group) => ty = &group.elem,
            Type::Paren(paren) => ty = &paren.elem,
            _ => return ty,
        }
    }
}

/// The last segment of a plain path type (no `<T as Trait>::X`).
fn last_segment(ty: &Type) -> Option<&PathSegment> {
    match ungroup(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// `T` of `Name<T>`, for a path type whose last segment is `name` with one type argument.
fn single_argument<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    let segment = last_segment(ty)?;
    if segment.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    match args.args.first() {
        Some(GenericArgument::Type(t)) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

/// `T` of `Option<T>`.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    single_argument(ty, "Option")
}

/// `T` of `Vec<T>`.
pub(crate) fn vec_inner(ty: &Type) -> Option<&Type> {
    single_argument(ty, "Vec")
}

/// Classifies a type (not an `Option`: strip it first with [`option_inner`]).
pub(crate) fn kind(ty: &Type) -> TypeKind {
    let ty = ungroup(ty);
    if let Type::Path(p) = ty {
        if p.qself.is_some() {
            return TypeKind::User;
        }
    }
    let Some(segment) = last_segment(ty) else {
        return TypeKind::Unsupported;
    };
    match segment.ident.to_string().as_str() {
        "bool" => TypeKind::Bool,
        "i8" | "i16" | "i32" => TypeKind::I32,
        "i64" | "isize" => TypeKind::I64,
        "u8" | "u16" => TypeKind::SmallUnsigned,
        "u32" => TypeKind::U32,
        "u64" => TypeKind::U64,
        "f32" | "f64" => TypeKind::F64,
        "String" => TypeKind::String,
        "DateTime" => TypeKind::DateTime,
        "Uuid" => TypeKind::Uuid,
        "Vec" => match vec_inner(ty).map(kind) {
            Some(TypeKind::SmallUnsigned) if is_u8(ty) => TypeKind::Bytes,
            _ => TypeKind::List,
        },
        "i128" | "u128" | "char" | "str" | "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet"
        | "VecDeque" | "Box" | "Rc" | "Arc" | "Option" => TypeKind::Unsupported,
        _ => TypeKind::User,
    }
}

/// Whether `Vec<T>`'s `T` is `u8`.
fn is_u8(vec: &Type) -> bool {
    vec_inner(vec)
        .and_then(last_segment)
        .is_some_and(|s| s.ident == "u8" && s.arguments.is_none())
}

/// The type as the user wrote it, for messages (`Vec<String>`).
pub(crate) fn display(ty: &Type) -> String {
    let ty = ungroup(ty);
    quote::quote!(#ty).to_string().replace(' ', "")
}

#[cfg(test)]
mod tests {
    use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
    use quote::ToTokens;
    use syn::parse_quote;

    use super::*;

    /// `ty` as a `macro_rules!` macro passes a `$ty:ty`: inside an invisible group.
    fn grouped(ty: Type) -> Type {
        let group = Group::new(Delimiter::None, ty.into_token_stream());
        let tokens: TokenStream = TokenTree::Group(group).into();
        syn::parse2(tokens).unwrap()
    }

    #[test]
    fn kinds_look_through_groups_and_parentheses() {
        let cases: [(Type, TypeKind); 6] = [
            (parse_quote!(String), TypeKind::String),
            (parse_quote!(chrono::DateTime<Utc>), TypeKind::DateTime),
            (parse_quote!((u64)), TypeKind::U64),
            (parse_quote!(Vec<u8>), TypeKind::Bytes),
            (parse_quote!(Vec<u16>), TypeKind::List),
            (parse_quote!(&'static str), TypeKind::Unsupported),
        ];
        for (ty, expected) in cases {
            assert_eq!(kind(&ty), expected, "{}", display(&ty));
            let wrapped = grouped(ty);
            assert!(matches!(wrapped, Type::Group(_)));
            assert_eq!(kind(&wrapped), expected, "{}", display(&wrapped));
        }
    }

    #[test]
    fn options_and_vecs_are_found_inside_groups() {
        let option = grouped(parse_quote!(Option<i32>));
        assert_eq!(option_inner(&option).map(kind), Some(TypeKind::I32));
        let vec = grouped(parse_quote!(std::vec::Vec<Level>));
        assert_eq!(vec_inner(&vec).map(kind), Some(TypeKind::User));
        assert_eq!(option_inner(&parse_quote!(Option<i32, u8>)), None);
        assert_eq!(display(&grouped(parse_quote!(Vec<String>))), "Vec<String>");
    }
}
