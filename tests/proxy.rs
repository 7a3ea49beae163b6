//! Proxies named by the environment (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`):
//! requests to an endpoint they cover go through the proxy, others straight to the server.
//! A test binary of its own, since it sets process-wide variables.

use tablekit::DynamicEntity;
use tablekit_testing::{Emulator, FaultProxy, Faults};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[tokio::test]
async fn an_endpoint_the_environment_proxies_is_reached_through_the_proxy() -> TestResult {
    let server = Emulator::start().await?;
    // A forwarding proxy without faults: it counts what passes through it.
    let proxy = FaultProxy::start(&server.endpoint(), Faults::seeded(0)).await?;
    for name in [
        "NO_PROXY",
        "no_proxy",
        "ALL_PROXY",
        "all_proxy",
        "http_proxy",
    ] {
        std::env::remove_var(name);
    }
    std::env::set_var("HTTP_PROXY", format!("http://{}", proxy.addr()));
    let proxied = server.client();
    proxied.create_table("Proxied").await?;
    let table = proxied.table_named::<DynamicEntity>("Proxied");
    let mut entity = DynamicEntity::new("p", "r");
    entity.set("Score", 7);
    table.insert(&mut entity).await?;
    let read = table.get("p", "r").await?.ok_or("the entity is missing")?;
    assert_eq!(read.get::<i32>("Score"), Some(7));
    let through_proxy = proxy.requests().total();
    assert_eq!(through_proxy, 3);
    assert_eq!(server.requests().total(), through_proxy);

    // Not named by the environment: straight to the server.
    std::env::set_var("NO_PROXY", "127.0.0.1,localhost");
    let direct = server.client();
    assert!(direct.table_exists("Proxied").await?);
    assert_eq!(proxy.requests().total(), through_proxy);
    assert_eq!(server.requests().total(), through_proxy + 1);
    for name in ["HTTP_PROXY", "NO_PROXY"] {
        std::env::remove_var(name);
    }
    Ok(())
}
