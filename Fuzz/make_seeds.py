#!/usr/bin/env python3
"""Makes the seed corpora of the fuzz targets from the sample traces.

usage: make_seeds.py TRACES_DIR... OUT_DIR

OUT_DIR/trace:  the traces, small prefixes of them, and an unfinished trace with a journal
OUT_DIR/chunk:  the first records of each trace's chunks, in the `chunk` target's layout
OUT_DIR/record: the encoded actions and states, in the `record` target's layout
(The layouts are documented in Fuzz/Sources/retrace-fuzz/Targets.swift.)

Every trace seeds the `trace` target. The `chunk` and `record` seeds and the unfinished
trace come from format-1 traces only: their chunks are CBOR records, which this script
reads, where format 2 stores a chunk's actions as columns.
"""
import io, os, struct, subprocess, sys
import cbor2

# The order of Examples.domains; a layout byte holds a domain's number in bits 0-1 and 4-7.
DOMAINS = ["counter", "banking", "settings", "posts", "registration", "dishes", "movies", "stocks",
           "package", "notes"]
CHUNK_MAGIC, HEADER_MAGIC = 0x184D2A51, 0x184D2A50


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def frames(data):
    """(magic, offset, content) of each frame, chunk frames with their zstd frame."""
    offset = 0
    while offset + 8 <= len(data):
        magic, size = struct.unpack_from("<II", data, offset)
        content = data[offset + 8 : offset + 8 + size]
        if magic == CHUNK_MAGIC:
            frame_size = struct.unpack_from("<I", content, 36)[0]
            yield magic, offset, content, data[offset + 8 + size : offset + 8 + size + frame_size]
            offset += 8 + size + frame_size
        else:
            yield magic, offset, content, b""
            offset += 8 + size


def records(raw):
    stream = io.BytesIO(raw)
    decoder = cbor2.CBORDecoder(stream)
    while stream.tell() < len(raw):
        yield decoder.decode()


def write(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main(directories, out):
    seen = set()
    paths = [os.path.join(d, name) for d in directories for name in sorted(os.listdir(d))]
    for path in paths:
        if not path.endswith(".trace"):
            continue
        data = open(path, "rb").read()
        stem = os.path.basename(os.path.dirname(path)) + "-" + os.path.basename(path)[:-6]
        all_frames = list(frames(data))
        header = all_frames[0]
        header_end = 8 + len(header[2])
        version = struct.unpack_from("<H", header[2], 4)[0]
        domain = cbor2.loads(header[2][12:-4])["domain"]
        number = DOMAINS.index(domain)
        d = (number & 3) | (number >> 2) << 4
        # Whole traces, and the header with the first chunk (a small, complete file).
        write(f"{out}/trace", stem, data)
        chunks = [f for f in all_frames if f[0] == CHUNK_MAGIC]
        if chunks:
            first = chunks[0]
            end = first[1] + 8 + len(first[2]) + len(first[3])
            write(f"{out}/trace", stem + "-first-chunk", data[:end])
        if version != 1:
            continue
        kept = 0
        for i, (_, _, content, frame) in enumerate(chunks[:4]):
            raw = subprocess.run(["zstd", "-dcq"], input=frame, capture_output=True, check=True).stdout
            recs = list(records(raw))
            snapshot = recs[0][0] == 1
            body = recs[1:24] if snapshot else recs[:24]
            actions = sum(1 for r in body if r[0] == 0)
            encoded = b"".join(cbor2.dumps(r) for r in body)
            if snapshot:
                state = cbor2.dumps(recs[0][3])
                if len(state) > 0xFFFF:  # the layout's length is 16 bits
                    continue
                seed = bytes([d | 4, actions & 255, (len(body) + 1) & 255]) + struct.pack("<H", len(state)) + state + encoded
            else:
                seed = bytes([d, actions & 255, len(body) & 255]) + encoded
            write(f"{out}/chunk", f"{stem}-{i}", seed)
            for r in recs:
                if r[0] == 0:
                    payload = bytes([d]) + cbor2.dumps(r[2])
                elif r[0] == 1:
                    payload = bytes([d | 4]) + cbor2.dumps(r[3])
                else:
                    continue
                if payload not in seen and kept < 120:
                    seen.add(payload)
                    kept += 1
                    write(f"{out}/record", f"{stem}-{kept}", payload)
            if i == 0 and snapshot:
                # An unfinished session: the header and a journal of the chunk's first actions.
                salt = 0x1234567
                journal = struct.pack("<4sHHIQq", b"RTJN", 1, 0, salt, 1, 0)
                journal += struct.pack("<I", crc32c(journal))
                seq, t = 1, 0
                for r in recs[1:16]:
                    if r[0] != 0:
                        continue
                    t += r[1]
                    payload = cbor2.dumps([0, seq, t, r[2]])
                    journal += struct.pack("<II", len(payload), crc32c(payload, crc32c(struct.pack("<I", salt)))) + payload
                    seq += 1
                journal += bytes(8)
                write(f"{out}/trace", stem + "-unfinished-journal", data[:header_end] + journal)


if __name__ == "__main__":
    main(sys.argv[1:-1], sys.argv[-1])
