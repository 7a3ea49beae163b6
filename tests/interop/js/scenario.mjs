// The interop scenario with Microsoft's `@azure/data-tables` for JavaScript.
//
// Usage: node scenario.mjs CONNECTION_STRING INSTALL_DIR, where INSTALL_DIR holds the
// package's node_modules. Prints one line per step; on a failed step, prints it and exits 1
// naming the step.

import { createRequire } from "node:module";
import { join } from "node:path";
import { randomUUID } from "node:crypto";

const [connectionString, installDir] = process.argv.slice(2);
const require = createRequire(join(installDir, "package.json"));
const {
  TableServiceClient,
  TableClient,
  odata,
} = require("@azure/data-tables");

const ROWS = 1200;
const BATCH = 100;
const PAGE = 500;

class StepFailed extends Error {}

/** JSON for messages, with BigInt and bytes readable. */
function show(value) {
  return JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
}

function check(condition, message) {
  if (!condition) throw new StepFailed(message);
}

/** Awaits `call`, which must fail with an HTTP error; gives the status. */
async function statusOf(call) {
  try {
    await call();
  } catch (error) {
    if (error.statusCode !== undefined) return error.statusCode;
    throw error;
  }
  throw new StepFailed("the call succeeded but should have failed");
}

const WHEN = new Date(Date.UTC(2024, 1, 29, 23, 59, 58, 123));
const BYTES = new Uint8Array([0, 1, 254, 255]);

function everyTypeEntity() {
  return {
    partitionKey: "types",
    rowKey: "all",
    Text: "caf\u00e9 \u2603 'quoted'",
    Int32: 2147483647,
    Int64: { value: "9007199254740993", type: "Int64" },
    Double: 0.1,
    WholeDouble: { value: "2", type: "Double" },
    Bool: true,
    When: WHEN,
    Id: { value: "c9da6455-213d-42c9-9a79-3e9149a57833", type: "Guid" },
    Bytes: BYTES,
  };
}

function sameTypes(got) {
  check(got.Text === "caf\u00e9 \u2603 'quoted'", `Text: ${show(got.Text)}`);
  check(got.Int32 === 2147483647, `Int32: ${show(got.Int32)}`);
  check(
    got.Int64 === 9007199254740993n, // beyond a Number's exact range: read as a BigInt
    `Int64: ${show(got.Int64)}`,
  );
  check(got.Double === 0.1, `Double: ${show(got.Double)}`);
  // A whole Double keeps its type: the SDK reads it typed, not as an Int32.
  check(
    got.WholeDouble === 2 ||
      (got.WholeDouble?.type === "Double" && Number(got.WholeDouble?.value) === 2),
    `WholeDouble: ${show(got.WholeDouble)}`,
  );
  check(got.Bool === true, `Bool: ${show(got.Bool)}`);
  check(
    got.When instanceof Date && got.When.getTime() === WHEN.getTime(),
    `When: ${show(got.When)}`,
  );
  check(
    got.Id?.type === "Guid" && got.Id?.value === "c9da6455-213d-42c9-9a79-3e9149a57833",
    `Id: ${show(got.Id)}`,
  );
  check(
    got.Bytes instanceof Uint8Array && Buffer.from(got.Bytes).equals(Buffer.from(BYTES)),
    `Bytes: ${show(got.Bytes)}`,
  );
}

const options = { allowInsecureConnection: true };
const service = TableServiceClient.fromConnectionString(connectionString, options);
const name = `interopJs${randomUUID().replaceAll("-", "").slice(0, 8)}`;
const table = TableClient.fromConnectionString(connectionString, name, options);

const steps = [
  ["create table", async () => {
    await service.createTable(name);
    // The SDK takes the 409 of an existing table as done: the answer's status tells.
    let status = 0;
    await service.createTable(name, { onResponse: (response) => { status = response.status; } });
    check(status === 409, `a second create answered ${status}`);
  }],
  ["list tables with a prefix filter", async () => {
    const found = [];
    const filter = odata`TableName ge ${"interopJs"} and TableName lt ${"interopJt"}`;
    for await (const t of service.listTables({ queryOptions: { filter } })) found.push(t.name);
    check(found.includes(name), `${name} not in ${found}`);
    check(found.every((t) => t.startsWith("interopJs")), `filter ignored: ${found}`);
  }],
  ["insert an entity with every EDM type", async () => {
    const answer = await table.createEntity(everyTypeEntity());
    check(answer.etag, `no etag: ${show(answer)}`);
  }],
  ["get it back with the same types and values", async () => {
    sameTypes(await table.getEntity("types", "all"));
  }],
  [`insert ${ROWS} rows in batches of ${BATCH}`, async () => {
    for (let start = 0; start < ROWS; start += BATCH) {
      const actions = [];
      for (let n = start; n < start + BATCH; n++) {
        const rowKey = String(n).padStart(5, "0");
        actions.push(["create", { partitionKey: "rows", rowKey, N: n, Pad: "x".repeat(10) }]);
      }
      await table.submitTransaction(actions);
    }
  }],
  ["query with filter, select and top across continuation pages", async () => {
    const pages = table
      .listEntities({ queryOptions: { filter: odata`PartitionKey eq ${"rows"} and N ge ${100}`, select: ["N"] } })
      .byPage({ maxPageSize: PAGE });
    const sizes = [];
    const numbers = [];
    for await (const page of pages) {
      sizes.push(page.length);
      for (const row of page) {
        const names = Object.keys(row).filter((k) => k !== "etag" && k !== "timestamp");
        check(names.length === 1 && names[0] === "N", `select ignored: ${names}`);
        numbers.push(row.N);
      }
    }
    check(
      JSON.stringify(sizes) === JSON.stringify([PAGE, PAGE, ROWS - 100 - 2 * PAGE]),
      `page sizes ${sizes}`,
    );
    const expected = Array.from({ length: ROWS - 100 }, (_, i) => i + 100);
    check(JSON.stringify(numbers) === JSON.stringify(expected), "rows missing, repeated or out of order");
  }],
  ["replace with the ETag, then a stale ETag fails with 412", async () => {
    const oldEtag = (await table.getEntity("rows", "00001")).etag;
    const answer = await table.updateEntity(
      { partitionKey: "rows", rowKey: "00001", N: -1 }, "Replace", { etag: oldEtag });
    check(answer.etag !== oldEtag, "the ETag did not change");
    const got = await table.getEntity("rows", "00001");
    check(got.N === -1 && got.Pad === undefined, `replace kept old properties: ${show(got)}`);
    const stale = await statusOf(() => table.updateEntity(
      { partitionKey: "rows", rowKey: "00001", N: -2 }, "Replace", { etag: oldEtag }));
    check(stale === 412, `stale replace answered ${stale}`);
  }],
  ["merge with the ETag, then a stale ETag fails with 412", async () => {
    const oldEtag = (await table.getEntity("rows", "00002")).etag;
    await table.updateEntity(
      { partitionKey: "rows", rowKey: "00002", Extra: "merged" }, "Merge", { etag: oldEtag });
    const got = await table.getEntity("rows", "00002");
    check(got.N === 2 && got.Extra === "merged", `merge lost properties: ${show(got)}`);
    const stale = await statusOf(() => table.updateEntity(
      { partitionKey: "rows", rowKey: "00002", Extra: "again" }, "Merge", { etag: oldEtag }));
    check(stale === 412, `stale merge answered ${stale}`);
  }],
  ["upsert: insert, merge and replace", async () => {
    await table.upsertEntity({ partitionKey: "up", rowKey: "1", A: 1 }, "Merge");
    await table.upsertEntity({ partitionKey: "up", rowKey: "1", B: 2 }, "Merge");
    let got = await table.getEntity("up", "1");
    check(got.A === 1 && got.B === 2, `upsert merge: ${show(got)}`);
    await table.upsertEntity({ partitionKey: "up", rowKey: "1", C: 3 }, "Replace");
    got = await table.getEntity("up", "1");
    check(got.A === undefined && got.C === 3, `upsert replace: ${show(got)}`);
  }],
  ["a transaction of mixed operations succeeds", async () => {
    await table.submitTransaction([
      ["create", { partitionKey: "rows", rowKey: "new", N: 1 }],
      ["update", { partitionKey: "rows", rowKey: "00003", M: 3 }, "Merge"],
      ["upsert", { partitionKey: "rows", rowKey: "00004", N: 40 }, "Replace"],
      ["delete", { partitionKey: "rows", rowKey: "00005" }],
    ]);
    check((await table.getEntity("rows", "new")).N === 1, "create not applied");
    check((await table.getEntity("rows", "00003")).M === 3, "merge not applied");
    check((await table.getEntity("rows", "00004")).N === 40, "upsert not applied");
    check((await statusOf(() => table.getEntity("rows", "00005"))) === 404, "delete not applied");
  }],
  ["a failing transaction applies nothing", async () => {
    const status = await statusOf(() => table.submitTransaction([
      ["create", { partitionKey: "rows", rowKey: "never", N: 1 }],
      ["create", { partitionKey: "rows", rowKey: "00006", N: 6 }],
    ]));
    check(status === 409, `answered ${status}`);
    check((await statusOf(() => table.getEntity("rows", "never"))) === 404, "partly applied");
  }],
  ["delete an entity", async () => {
    await table.deleteEntity("types", "all");
    check((await statusOf(() => table.getEntity("types", "all"))) === 404, "still there");
  }],
  ["delete the table", async () => {
    await service.deleteTable(name);
    const names = [];
    for await (const t of service.listTables()) names.push(t.name);
    check(!names.includes(name), `${name} still listed`);
    check((await statusOf(() => table.getEntity("rows", "00001"))) === 404, "the deleted table still answers");
  }],
];

for (const [title, body] of steps) {
  try {
    await body();
  } catch (error) {
    console.log(`FAILED: ${title}: ${error?.name}: ${error?.message}`);
    process.exit(1);
  }
  console.log(`ok: ${title}`);
}
console.log("javascript scenario passed");
