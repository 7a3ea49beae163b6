//! Tokens from `tablekit::sas` match, byte for byte, the tokens the Azure SDK for Python
//! (azure-data-tables 12.7.0, `generate_table_sas` and `generate_account_sas`) makes from the
//! same inputs: parameter order, percent-encoding, time format and signature.

use std::net::{IpAddr, Ipv4Addr};

use chrono::{DateTime, TimeZone, Utc};
use tablekit::auth::AccountKey;
use tablekit::sas::{
    AccountPermissions, AccountSas, ResourceTypes, SasProtocol, TablePermissions, TableSas,
};

const ACCOUNT: &str = "tablekitacct";
const KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

fn expiry() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap()
}

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2029, 12, 31, 8, 30, 15).unwrap()
}

fn ip(a: u8, b: u8, c: u8, d: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(a, b, c, d))
}

fn table_sas(permissions: &str) -> TableSas {
    let permissions = TablePermissions::from_letters(permissions).unwrap();
    TableSas::new("Gamers", permissions, expiry())
}

fn sign_table(sas: TableSas) -> String {
    let key = AccountKey::from_base64(KEY).unwrap();
    sas.sign(ACCOUNT, &key).unwrap().into_string()
}

fn sign_account(sas: AccountSas) -> String {
    let key = AccountKey::from_base64(KEY).unwrap();
    sas.sign(ACCOUNT, &key).unwrap().into_string()
}

#[test]
fn table_tokens_match_the_python_sdk() {
    let cases = [
        (
            "read only",
            table_sas("r"),
            "se=2030-01-01T00%3A00%3A00Z&sp=r&sv=2019-02-02&tn=Gamers&sig=4gNORGaldE78tENNUFRRY6ZGPKbHVbdmn0P4iB4iEB8%3D",
        ),
        (
            "with a start",
            table_sas("r").start(start()),
            "st=2029-12-31T08%3A30%3A15Z&se=2030-01-01T00%3A00%3A00Z&sp=r&sv=2019-02-02&tn=Gamers&sig=s15pWCgKj%2BqDskz8yAHu78ergrVbHInU8HMwX4DtK8c%3D",
        ),
        (
            "every permission, an IP range",
            table_sas("raud").ip_range(ip(168, 1, 5, 60), ip(168, 1, 5, 70)),
            "se=2030-01-01T00%3A00%3A00Z&sp=raud&sip=168.1.5.60-168.1.5.70&sv=2019-02-02&tn=Gamers&sig=H7zLoZFXdnEMVV7TmxrDoZiZIEQeUyddbGYxit1uq9Q%3D",
        ),
        (
            "one IP, https only",
            table_sas("ra")
                .ip(ip(127, 0, 0, 1))
                .protocol(SasProtocol::HttpsOnly),
            "se=2030-01-01T00%3A00%3A00Z&sp=ra&sip=127.0.0.1&spr=https&sv=2019-02-02&tn=Gamers&sig=gAY9NDUvPt7A1E32l%2BpbGilUmppNbhXKPht6NwBsuyI%3D",
        ),
        (
            "https or http",
            table_sas("u").protocol(SasProtocol::HttpsOrHttp),
            "se=2030-01-01T00%3A00%3A00Z&sp=u&spr=https%2Chttp&sv=2019-02-02&tn=Gamers&sig=eZp6qeZjxNaOhghJcbE17KSoAcvdxgrFT4OCGBpGXgk%3D",
        ),
        (
            "key ranges with spaces, unicode and quotes",
            table_sas("rd").partitions("a b", "☃ z").rows("ü", "x/y~'"),
            "se=2030-01-01T00%3A00%3A00Z&sp=rd&sv=2019-02-02&tn=Gamers&spk=a%20b&srk=%C3%BC&epk=%E2%98%83%20z&erk=x/y~%27&sig=8o%2BNJUbb2t5LkXMGJg5z8aJb2uhy2F9qZwvhwYa1u6g%3D",
        ),
        (
            "a stored access policy alone",
            TableSas::with_policy("Gamers", "read-policy"),
            "sv=2019-02-02&si=read-policy&tn=Gamers&sig=JXA1X/30wyjx%2BhS1AKih7Oqd4/pQmz82lWWfDulJuVw%3D",
        ),
        (
            "a policy and an expiry",
            TableSas::with_policy("Gamers", "p1").expiry(expiry()),
            "se=2030-01-01T00%3A00%3A00Z&sv=2019-02-02&si=p1&tn=Gamers&sig=aij9F9BF/8rImiFHlaYonX9d%2B0EA65SFc/nK3PVULl4%3D",
        ),
        (
            "everything",
            table_sas("raud")
                .start(start())
                .policy("p1")
                .ip_range(ip(10, 0, 0, 0), ip(10, 0, 0, 255))
                .protocol(SasProtocol::HttpsOrHttp)
                .partitions("p", "q")
                .rows("1", "9"),
            "st=2029-12-31T08%3A30%3A15Z&se=2030-01-01T00%3A00%3A00Z&sp=raud&sip=10.0.0.0-10.0.0.255&spr=https%2Chttp&sv=2019-02-02&si=p1&tn=Gamers&spk=p&srk=1&epk=q&erk=9&sig=Yfap0OR0r%2BwQQhqrlPazKPMmXZM8BIxKHD6mnSVTbtk%3D",
        ),
    ];
    for (name, sas, expected) in cases {
        assert_eq!(sign_table(sas), expected, "{name}");
    }
}

#[test]
fn account_tokens_match_the_python_sdk() {
    let all_types = ResourceTypes::SERVICE | ResourceTypes::CONTAINER | ResourceTypes::OBJECT;
    let cases = [
        (
            "every permission and resource type",
            AccountSas::new(
                all_types,
                AccountPermissions::from_letters("rwdlacup").unwrap(),
                expiry(),
            ),
            "se=2030-01-01T00%3A00%3A00Z&sp=rwdlacup&sv=2019-02-02&ss=t&srt=sco&sig=fI6QroOXJy1fkKH8R4QieUD3mrM%2BV3yTQ633t1cFYsM%3D",
        ),
        (
            "read objects, with a start, one IP, https only",
            AccountSas::new(ResourceTypes::OBJECT, AccountPermissions::READ, expiry())
                .start(start())
                .ip(ip(127, 0, 0, 1))
                .protocol(SasProtocol::HttpsOnly),
            "st=2029-12-31T08%3A30%3A15Z&se=2030-01-01T00%3A00%3A00Z&sp=r&sip=127.0.0.1&spr=https&sv=2019-02-02&ss=t&srt=o&sig=VMC7kQE%2BVeV/25f2SH3N7zzcGip2%2BW1YE3jya9NPwrA%3D",
        ),
        (
            "list and create tables",
            AccountSas::new(
                ResourceTypes::CONTAINER,
                AccountPermissions::LIST | AccountPermissions::CREATE,
                expiry(),
            )
            .protocol(SasProtocol::HttpsOrHttp),
            "se=2030-01-01T00%3A00%3A00Z&sp=lc&spr=https%2Chttp&sv=2019-02-02&ss=t&srt=c&sig=9xhQWUv9Np8Fk4jM17Uqk5PHX5sovVHwh3avJ2%2BPYOY%3D",
        ),
    ];
    for (name, sas, expected) in cases {
        assert_eq!(sign_account(sas), expected, "{name}");
    }
}
