"""Fills a table for the model-generation test with Microsoft's `azure-data-tables`.

Usage: fill_insight.py CONNECTION_STRING TABLE. Two kinds of rows (orders and customers) in
one table: every EDM type, properties only some rows hold, composite PartitionKeys
(`shop_0001`), RowKeys of inverted ticks as `inverted_ticks` writes them, and one property
whose type varies. The values are fixed, so the generated model is too.
"""

import sys
import uuid
from datetime import datetime, timedelta, timezone

from azure.data.tables import EdmType, EntityProperty, TableServiceClient

# DateTime.MaxValue in .NET ticks, as tablekit's `inverted_ticks` uses.
MAX_TICKS = 3155378975999999999
EPOCH = datetime(1, 1, 1, tzinfo=timezone.utc)


def inverted_ticks(t):
    delta = t - EPOCH
    ticks = (delta.days * 86400 + delta.seconds) * 10_000_000 + delta.microseconds * 10
    return f"{MAX_TICKS - ticks:019d}"


def main():
    connection_string, name = sys.argv[1], sys.argv[2]
    service = TableServiceClient.from_connection_string(connection_string)
    table = service.create_table(name)
    start = datetime(2025, 3, 1, 12, 0, 0, tzinfo=timezone.utc)
    for shop in range(1, 4):
        pk = f"shop_{shop:04d}"
        for i in range(4):
            placed = start + timedelta(hours=shop * 10 + i)
            order = {
                "PartitionKey": pk,
                "RowKey": inverted_ticks(placed),
                "Kind": "Order",
                "OrderId": uuid.UUID(int=shop * 100 + i),
                "PlacedAt": placed,
                "Quantity": i + 1,
                "Total": 9.5 * (i + 1),
                "Paid": i % 2 == 0,
                "Sequence": EntityProperty(5_000_000_000 + i, EdmType.INT64),
                "Score": i if i != 3 else "high",
            }
            if i % 2 == 1:
                order["Receipt"] = bytes([shop, i, 255])
                order["gift_note"] = "with love"
            table.create_entity(order)
        joined = start - timedelta(days=shop)
        table.create_entity(
            {
                "PartitionKey": pk,
                "RowKey": inverted_ticks(joined),
                "Kind": "Customer",
                "Email": f"owner{shop}@example.com",
                "Vip": shop == 1,
                "Since": joined,
            }
        )
    print("filled")


if __name__ == "__main__":
    main()
