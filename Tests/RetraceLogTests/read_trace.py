#!/usr/bin/env python3
"""An independent reader of Retrace traces, written from docs/TRACE_FORMAT.md alone.

Usage: read_trace.py TRACE  -> prints a JSON summary. It walks the frames itself (checking
every CRC32C), lets the stock `zstd` tool decompress the record stream, and decodes the
records with cbor2.
"""
import io
import json
import struct
import subprocess
import sys

import cbor2


def crc32c(data, crc=0):
    table = crc32c.table
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc ^ 0xFFFFFFFF


crc32c.table = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    crc32c.table.append(c)


def main(path):
    data = open(path, "rb").read()
    magic, size = struct.unpack_from("<II", data, 0)
    assert magic == 0x184D2A50, "not a trace"
    content = data[8 : 8 + size]
    assert content[0:4] == b"RTRC"
    version, _, n = struct.unpack_from("<HHI", content, 4)
    assert crc32c(content[: 12 + n]) == struct.unpack_from("<I", content, 12 + n)[0], "header CRC"
    header = cbor2.loads(content[12 : 12 + n])

    offset = 8 + size
    crc_errors = 0
    chunks = 0
    while offset < len(data):
        magic, size = struct.unpack_from("<II", data, offset)
        if magic == 0x184D2A51:
            h = data[offset + 8 : offset + 8 + 48]
            frame_size = struct.unpack_from("<I", h, 36)[0]
            frame = data[offset + 56 : offset + 56 + frame_size]
            expected = struct.unpack_from("<I", h, 40)[0]
            if crc32c(frame, crc32c(h[44:48], crc32c(h[0:40]))) != expected:
                crc_errors += 1
            offset += 56 + frame_size
            chunks += 1
        elif magic == 0x184D2A5E:
            offset += 8 + size
        else:
            raise SystemExit("unexpected frame at %d" % offset)

    stream = subprocess.run(["zstd", "-q", "-dc", path], check=True, capture_output=True).stdout
    decoder = cbor2.CBORDecoder(io.BytesIO(stream))
    sequence = header["firstSequence"]
    actions = 0
    last_action = None
    checkpoint_hashes = []
    first_sequence = None
    while decoder.fp.tell() < len(stream):
        record = decoder.decode()
        kind = record[0]
        if kind == 0:
            sequence += 1
            actions += 1
            if first_sequence is None:
                first_sequence = sequence
            last_action = record[2]
        elif kind == 2:
            checkpoint_hashes.append(str(record[2]))
    print(json.dumps({
        "domain": header["domain"],
        "version": version,
        "chunks": chunks,
        "crcErrors": crc_errors,
        "actions": actions,
        "firstSequence": first_sequence,
        "lastAction": last_action,
        "checkpointHashes": checkpoint_hashes,
    }))


if __name__ == "__main__":
    main(sys.argv[1])
