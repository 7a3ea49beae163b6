"""The interop scenario with Microsoft's `azure-data-tables` for Python.

Usage: scenario.py CONNECTION_STRING. Prints one line per step; on a failed step, prints it
and exits 1 naming the step.
"""

import sys
import uuid
from datetime import datetime, timezone

from azure.core import MatchConditions
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError
from azure.data.tables import (
    EdmType,
    EntityProperty,
    TableServiceClient,
    TableTransactionError,
    UpdateMode,
)

ROWS = 1200
BATCH = 100
PAGE = 500


class StepFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise StepFailed(message)


def status_of(call):
    """Runs `call`, which must fail with an HTTP error; gives the status."""
    try:
        call()
    except HttpResponseError as error:
        return error.status_code
    raise StepFailed("the call succeeded but should have failed")


def every_type_entity():
    return {
        "PartitionKey": "types",
        "RowKey": "all",
        "Text": "caf\u00e9 \u2603 'quoted'",
        "Int32": 2147483647,
        "Int64": EntityProperty(9007199254740993, EdmType.INT64),
        "Double": 0.1,
        "Bool": True,
        "When": datetime(2024, 2, 29, 23, 59, 58, 123456, tzinfo=timezone.utc),
        "Id": uuid.UUID("c9da6455-213d-42c9-9a79-3e9149a57833"),
        "Bytes": b"\x00\x01\xfe\xff",
    }


def same_types(got):
    want = every_type_entity()
    check(got["Text"] == want["Text"], f"Text: {got['Text']!r}")
    check(type(got["Int32"]) is int and got["Int32"] == want["Int32"], f"Int32: {got['Int32']!r}")
    int64 = got["Int64"]
    check(
        isinstance(int64, EntityProperty)
        and int64.edm_type == EdmType.INT64
        and int64.value == 9007199254740993,
        f"Int64: {int64!r}",
    )
    check(type(got["Double"]) is float and got["Double"] == 0.1, f"Double: {got['Double']!r}")
    check(got["Bool"] is True, f"Bool: {got['Bool']!r}")
    when = got["When"]
    check(isinstance(when, datetime) and when == want["When"], f"When: {when!r}")
    check(got["Id"] == want["Id"], f"Id: {got['Id']!r}")
    check(got["Bytes"] == want["Bytes"], f"Bytes: {got['Bytes']!r}")


def run(connection_string):
    service = TableServiceClient.from_connection_string(connection_string)
    suffix = uuid.uuid4().hex[:8]
    name = f"interopPy{suffix}"
    table = service.get_table_client(name)
    steps = []

    def step(title):
        def wrap(body):
            steps.append((title, body))
            return body

        return wrap

    @step("create table")
    def _():
        service.create_table(name)
        check(status_of(lambda: service.create_table(name)) == 409, "a second create must be 409")

    @step("list tables with a prefix filter")
    def _():
        found = [t.name for t in service.query_tables(
            "TableName ge @low and TableName lt @high",
            parameters={"low": "interopPy", "high": "interopPz"},
        )]
        check(name in found, f"{name} not in {found}")
        check(all(t.startswith("interopPy") for t in found), f"filter ignored: {found}")

    @step("insert an entity with every EDM type")
    def _():
        meta = table.create_entity(every_type_entity())
        check(meta.get("etag"), f"no etag: {meta}")

    @step("get it back with the same types and values")
    def _():
        same_types(table.get_entity("types", "all"))

    @step(f"insert {ROWS} rows in batches of {BATCH}")
    def _():
        for start in range(0, ROWS, BATCH):
            operations = [
                ("create", {"PartitionKey": "rows", "RowKey": f"{n:05}", "N": n, "Pad": "x" * 10})
                for n in range(start, start + BATCH)
            ]
            table.submit_transaction(operations)

    @step("query with filter, select and top across continuation pages")
    def _():
        pages = table.query_entities(
            "PartitionKey eq @pk and N ge @low",
            parameters={"pk": "rows", "low": 100},
            select=["N"],
            results_per_page=PAGE,
        ).by_page()
        sizes, numbers = [], []
        for page in pages:
            rows = list(page)
            sizes.append(len(rows))
            for row in rows:
                check(set(row.keys()) == {"N"}, f"select ignored: {sorted(row.keys())}")
                numbers.append(row["N"])
        check(sizes == [PAGE, PAGE, ROWS - 100 - 2 * PAGE], f"page sizes {sizes}")
        check(numbers == list(range(100, ROWS)), "rows missing, repeated or out of order")

    @step("replace with the ETag, then a stale ETag fails with 412")
    def _():
        current = table.get_entity("rows", "00001")
        old_etag = current.metadata["etag"]
        meta = table.update_entity(
            {"PartitionKey": "rows", "RowKey": "00001", "N": -1},
            mode=UpdateMode.REPLACE,
            etag=old_etag,
            match_condition=MatchConditions.IfNotModified,
        )
        check(meta["etag"] != old_etag, "the ETag did not change")
        got = table.get_entity("rows", "00001")
        check(got["N"] == -1 and "Pad" not in got, f"replace kept old properties: {got}")
        stale = status_of(lambda: table.update_entity(
            {"PartitionKey": "rows", "RowKey": "00001", "N": -2},
            mode=UpdateMode.REPLACE,
            etag=old_etag,
            match_condition=MatchConditions.IfNotModified,
        ))
        check(stale == 412, f"stale replace answered {stale}")

    @step("merge with the ETag, then a stale ETag fails with 412")
    def _():
        current = table.get_entity("rows", "00002")
        old_etag = current.metadata["etag"]
        table.update_entity(
            {"PartitionKey": "rows", "RowKey": "00002", "Extra": "merged"},
            mode=UpdateMode.MERGE,
            etag=old_etag,
            match_condition=MatchConditions.IfNotModified,
        )
        got = table.get_entity("rows", "00002")
        check(got["N"] == 2 and got["Extra"] == "merged", f"merge lost properties: {got}")
        stale = status_of(lambda: table.update_entity(
            {"PartitionKey": "rows", "RowKey": "00002", "Extra": "again"},
            mode=UpdateMode.MERGE,
            etag=old_etag,
            match_condition=MatchConditions.IfNotModified,
        ))
        check(stale == 412, f"stale merge answered {stale}")

    @step("upsert: insert, merge and replace")
    def _():
        table.upsert_entity({"PartitionKey": "up", "RowKey": "1", "A": 1})
        table.upsert_entity({"PartitionKey": "up", "RowKey": "1", "B": 2}, mode=UpdateMode.MERGE)
        got = table.get_entity("up", "1")
        check(got["A"] == 1 and got["B"] == 2, f"upsert merge: {got}")
        table.upsert_entity({"PartitionKey": "up", "RowKey": "1", "C": 3}, mode=UpdateMode.REPLACE)
        got = table.get_entity("up", "1")
        check("A" not in got and got["C"] == 3, f"upsert replace: {got}")

    @step("a transaction of mixed operations succeeds")
    def _():
        table.submit_transaction([
            ("create", {"PartitionKey": "rows", "RowKey": "new", "N": 1}),
            ("update", {"PartitionKey": "rows", "RowKey": "00003", "M": 3}, {"mode": "merge"}),
            ("upsert", {"PartitionKey": "rows", "RowKey": "00004", "N": 40}, {"mode": "replace"}),
            ("delete", {"PartitionKey": "rows", "RowKey": "00005"}),
        ])
        check(table.get_entity("rows", "new")["N"] == 1, "create not applied")
        check(table.get_entity("rows", "00003")["M"] == 3, "merge not applied")
        check(table.get_entity("rows", "00004")["N"] == 40, "upsert not applied")
        check(status_of(lambda: table.get_entity("rows", "00005")) == 404, "delete not applied")

    @step("a failing transaction applies nothing")
    def _():
        try:
            table.submit_transaction([
                ("create", {"PartitionKey": "rows", "RowKey": "never", "N": 1}),
                ("create", {"PartitionKey": "rows", "RowKey": "00006", "N": 6}),
            ])
        except TableTransactionError as error:
            check(error.status_code == 409, f"answered {error.status_code}")
        else:
            raise StepFailed("a transaction inserting an existing row succeeded")
        check(status_of(lambda: table.get_entity("rows", "never")) == 404, "partly applied")

    @step("delete an entity")
    def _():
        table.delete_entity("types", "all")
        check(status_of(lambda: table.get_entity("types", "all")) == 404, "still there")

    @step("delete the table")
    def _():
        service.delete_table(name)
        names = [t.name for t in service.list_tables()]
        check(name not in names, f"{name} still listed")
        try:
            table.get_entity("rows", "00001")
        except ResourceNotFoundError:
            pass
        else:
            raise StepFailed("the deleted table still answers")

    for title, body in steps:
        try:
            body()
        except Exception as error:  # every failure names its step
            print(f"FAILED: {title}: {type(error).__name__}: {error}")
            return 1
        print(f"ok: {title}")
    print("python scenario passed")
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1]))
