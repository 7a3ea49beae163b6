//! For arbitrary strings (quotes, unicode, control characters) a rendered filter, parsed and
//! evaluated both by a small independent `$filter` interpreter here and by the emulator's own
//! filter engine (`tablekit_testing::filter`, which answers the emulator's HTTP queries),
//! selects exactly the entities the typed expression means.

use proptest::prelude::*;
use tablekit::prelude::*;

const NAME: Column<DynamicEntity, String> = Column::dynamic("Name");
const N: Column<DynamicEntity, i64> = Column::dynamic("N");

/// A token of the filter language subset rendered for strings and Int64s.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Int(i64),
    Open,
    Close,
}

fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            ' ' => i += 1,
            '(' => {
                out.push(Token::Open);
                i += 1;
            }
            ')' => {
                out.push(Token::Close);
                i += 1;
            }
            '\'' => {
                // A string literal: `''` is one quote, a lone `'` ends it.
                let mut s = String::new();
                i += 1;
                loop {
                    match (chars.get(i), chars.get(i + 1)) {
                        (Some('\''), Some('\'')) => {
                            s.push('\'');
                            i += 2;
                        }
                        (Some('\''), _) => {
                            i += 1;
                            break;
                        }
                        (Some(&ch), _) => {
                            s.push(ch);
                            i += 1;
                        }
                        (None, _) => panic!("unterminated string in {text:?}"),
                    }
                }
                out.push(Token::Str(s));
            }
            '-' | '0'..='9' => {
                let start = i;
                i += 1;
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
                let digits: String = chars[start..i].iter().collect();
                assert_eq!(
                    chars.get(i),
                    Some(&'L'),
                    "Int64 literal without L in {text:?}"
                );
                i += 1;
                out.push(Token::Int(digits.parse().expect("digits")));
            }
            _ => {
                let start = i;
                while chars.get(i).is_some_and(|c| c.is_alphanumeric()) {
                    i += 1;
                }
                assert!(i > start, "unexpected {c:?} in {text:?}");
                out.push(Token::Ident(chars[start..i].iter().collect()));
            }
        }
    }
    out
}

/// A recursive-descent evaluator: or < and < not < comparison.
struct Eval<'a> {
    tokens: &'a [Token],
    pos: usize,
    entity: &'a DynamicEntity,
}

impl Eval<'_> {
    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn peek_ident(&self, word: &str) -> bool {
        matches!(self.tokens.get(self.pos), Some(Token::Ident(w)) if w == word)
    }

    fn or(&mut self) -> bool {
        let mut v = self.and();
        while self.peek_ident("or") {
            self.pos += 1;
            let r = self.and();
            v = v || r;
        }
        v
    }

    fn and(&mut self) -> bool {
        let mut v = self.unary();
        while self.peek_ident("and") {
            self.pos += 1;
            let r = self.unary();
            v = v && r;
        }
        v
    }

    fn unary(&mut self) -> bool {
        if self.peek_ident("not") {
            self.pos += 1;
            return !self.unary();
        }
        if self.tokens.get(self.pos) == Some(&Token::Open) {
            self.pos += 1;
            let v = self.or();
            assert_eq!(self.next(), Some(Token::Close));
            return v;
        }
        self.comparison()
    }

    fn comparison(&mut self) -> bool {
        let Some(Token::Ident(name)) = self.next() else {
            panic!("expected a property name")
        };
        let Some(Token::Ident(op)) = self.next() else {
            panic!("expected an operator")
        };
        let ord = match (self.next(), self.entity.value(&name)) {
            (Some(Token::Str(lit)), Some(Value::String(s))) => utf16(s).cmp(&utf16(&lit)),
            (Some(Token::Int(lit)), Some(Value::Int64(n))) => n.cmp(&lit),
            // A missing property or another type: the comparison is false.
            _ => return false,
        };
        match op.as_str() {
            "eq" => ord.is_eq(),
            "ne" => ord.is_ne(),
            "gt" => ord.is_gt(),
            "ge" => ord.is_ge(),
            "lt" => ord.is_lt(),
            "le" => ord.is_le(),
            other => panic!("unknown operator {other}"),
        }
    }
}

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

fn matches(filter: &Filter<DynamicEntity>, entity: &DynamicEntity) -> bool {
    if filter.is_all() {
        return true;
    }
    let text = filter.to_string();
    let tokens = tokenize(&text);
    let mut eval = Eval {
        tokens: &tokens,
        pos: 0,
        entity,
    };
    let v = eval.or();
    assert_eq!(eval.pos, tokens.len(), "trailing tokens in {text:?}");
    let emulator = tablekit_testing::filter::ParsedFilter::parse(&text)
        .unwrap_or_else(|e| panic!("the emulator rejects {text:?}: {e}"));
    assert_eq!(
        emulator.matches(entity),
        v,
        "the two evaluators disagree on {text:?}"
    );
    v
}

fn entity(name: &str, n: i64) -> DynamicEntity {
    let mut e = DynamicEntity::new("p", name.replace(['/', '\\', '#', '?'], ""));
    e.set("Name", name);
    e.set("N", n);
    e
}

/// Strings rich in what breaks naive filters: quotes, unicode, controls, edge code points.
fn tricky() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("'".to_owned()),
        Just("''".to_owned()),
        Just(" and ".to_owned()),
        Just("\u{FFFF}".to_owned()),
        Just("\u{D7FF}".to_owned()),
        Just("\u{E000}".to_owned()),
        Just("\u{10000}".to_owned()),
        Just("\u{10FFFF}".to_owned()),
        Just("\n\t\u{0}".to_owned()),
        "[a-c]{0,2}",
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(pieces, 0..4).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn eq_and_ne_select_exactly(target in tricky(), names in proptest::collection::vec(tricky(), 0..6)) {
        let mut all = names.clone();
        all.push(target.clone());
        for name in &all {
            let e = entity(name, 0);
            prop_assert_eq!(matches(&NAME.eq(target.as_str()), &e), *name == target);
            prop_assert_eq!(matches(&NAME.ne(target.as_str()), &e), *name != target);
        }
    }

    #[test]
    fn starts_with_selects_exactly_the_prefixed(prefix in tricky(), names in proptest::collection::vec(tricky(), 0..6)) {
        let mut all = names.clone();
        all.push(prefix.clone());
        all.extend(names.iter().map(|n| format!("{prefix}{n}")));
        for name in &all {
            let e = entity(name, 0);
            prop_assert_eq!(
                matches(&NAME.starts_with(&prefix), &e),
                name.starts_with(prefix.as_str()),
                "prefix {:?} name {:?} filter {}", prefix, name, NAME.starts_with(&prefix)
            );
        }
    }

    #[test]
    fn combined_filters_mean_what_they_say(a in tricky(), lo in any::<i64>(), hi in any::<i64>(), names in proptest::collection::vec((tricky(), any::<i64>()), 0..6)) {
        let f = NAME.eq(a.as_str()).or(N.between(lo, hi, RangeKind::IncludeLowerIncludeUpper)).and(NAME.ne("'").not().not());
        for (name, n) in &names {
            let e = entity(name, *n);
            let intended = (*name == a || (lo <= *n && *n <= hi)) && name != "'";
            prop_assert_eq!(matches(&f, &e), intended, "{}", f);
        }
    }
}
