"""Reads a Parquet file with pyarrow and prints, as JSON lines, its schema (column name to
Arrow type) and then every row, each value in an exact text form: integers in decimal,
doubles as the hex of their IEEE bits, timestamps as integer nanoseconds, bytes and UUIDs as
hex, strings as they are, missing values as null."""

import json
import struct
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def exact(value, arrow_type):
    if value is None:
        return None
    if pa.types.is_boolean(arrow_type):
        return "true" if value else "false"
    if pa.types.is_floating(arrow_type):
        return struct.pack(">d", value).hex()
    if pa.types.is_integer(arrow_type):
        return str(value)
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if hasattr(value, "bytes"):  # uuid.UUID
        return value.bytes.hex()
    raise TypeError(f"unexpected {arrow_type}: {value!r}")


def main(path):
    table = pq.read_table(path)
    print(json.dumps({"schema": {f.name: str(f.type) for f in table.schema}}))
    columns = []
    for field, column in zip(table.schema, table.columns):
        arrow_type = field.type
        if pa.types.is_timestamp(arrow_type):
            column = column.cast(pa.int64())
            arrow_type = pa.int64()
        elif isinstance(arrow_type, pa.ExtensionType):
            column = pa.chunked_array([c.storage for c in column.chunks], arrow_type.storage_type)
            arrow_type = arrow_type.storage_type
        columns.append([exact(v, arrow_type) for v in column.to_pylist()])
    names = [f.name for f in table.schema]
    for row in zip(*columns):
        print(json.dumps(dict(zip(names, row))))


if __name__ == "__main__":
    main(sys.argv[1])
