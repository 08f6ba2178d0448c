#!/usr/bin/env python3
"""An independent reader of Retrace traces, written from docs/TRACE_FORMAT.md alone.

Usage: read_trace.py TRACE  -> prints a JSON summary. It walks the frames itself (checking
every CRC32C), lets the stock `zstd` tool decompress the chunks, splits its output by each
chunk's rawSize, and decodes the records with cbor2: format 1's record stream, or format 2's
snapshot, action block (section 3.2, decoded here) and trailing records.
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


class Damage(Exception):
    pass


def wrap64(value):
    """A signed 64-bit integer, as two's-complement arithmetic leaves it."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


# The action block (section 3.2).

MARK_INT, MARK_TEXT, MARK_FLOAT, MARK_BYTES, MARK_ITEM = 0x1C, 0x1D, 0x1E, 0x3C, 0x3D
INTEGERS, MICROSECONDS, RAW_FLOATS, TEXT, BYTES, ITEMS = range(6)
FITS = {
    MARK_INT: (INTEGERS,),
    MARK_TEXT: (TEXT,),
    MARK_FLOAT: (MICROSECONDS, RAW_FLOATS),
    MARK_BYTES: (BYTES,),
    MARK_ITEM: (ITEMS,),
}
WIDTH_SIZE = {25: 2, 26: 4, 27: 8}


class Section:
    """Bounds-checked reading of varints and slices in data[position:end]."""

    def __init__(self, data, position, end):
        self.data, self.position, self.end = data, position, end

    def byte(self):
        if self.position >= self.end:
            raise Damage("the block ends early at %d" % self.position)
        self.position += 1
        return self.data[self.position - 1]

    def varint(self):
        value, shift = 0, 0
        while True:
            if self.position >= self.end:
                raise Damage("a number runs past its section at %d" % self.position)
            byte = self.data[self.position]
            self.position += 1
            if shift > 63 or (shift == 63 and byte > 1):
                raise Damage("a number exceeds 64 bits at %d" % self.position)
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    def count(self, what):
        value = self.varint()
        if value > len(self.data):
            raise Damage("%s %d is too large" % (what, value))
        return value

    def zigzag(self):
        value = self.varint()
        return (value >> 1) ^ -(value & 1)

    def divisor(self):
        value = self.varint()
        if value == 0:
            raise Damage("a divisor of 0 at %d" % self.position)
        return wrap64(value)

    def slice(self, what):
        length = self.varint()
        if length > self.end - self.position:
            raise Damage("a %s runs past its section at %d" % (what, self.position))
        self.position += length
        return self.position - length, self.position

    def section(self, what):
        start, end = self.slice(what)
        return Section(self.data, start, end)


def head(data, position, end):
    """A CBOR head in data[position:end]: (major, info, argument, end of the head)."""
    if position >= end:
        raise Damage("a data item is missing at %d" % position)
    major, info = data[position] >> 5, data[position] & 0x1F
    if info < 24:
        return major, info, info, position + 1
    if info in (28, 29, 30):
        raise Damage("reserved additional information at %d" % position)
    if info == 31:
        if major < 2 or major == 6:
            raise Damage("no indefinite length for major type %d at %d" % (major, position))
        return major, info, 0, position + 1
    size = 1 << (info - 24)
    if position + 1 + size > end:
        raise Damage("a head runs past its end at %d" % position)
    return major, info, int.from_bytes(data[position + 1 : position + 1 + size], "big"), position + 1 + size


def skip_item(data, position, end):
    """Where the data item at `position` ends. Definite lengths are counted in a loop; an item
    that holds an indefinite length is skipped again, recursively, at most 256 levels deep."""
    start, pending = position, 1
    while pending > 0:
        major, info, argument, position = head(data, position, end)
        if info == 31:
            return skip_nested(data, start, end, 0)
        pending -= 1
        if major in (2, 3):
            if argument > end - position:
                raise Damage("a string runs past its end at %d" % position)
            position += argument
        elif major in (4, 5):
            if argument > end - position:
                raise Damage("a count runs past its end at %d" % position)
            pending += argument * (2 if major == 5 else 1)
        elif major == 6:
            pending += 1
    return position


def skip_nested(data, position, end, depth):
    if depth >= 256:
        raise Damage("nesting too deep at %d" % position)
    major, info, argument, position = head(data, position, end)
    if major in (2, 3, 4, 5) and info == 31:
        while True:
            if position >= end:
                raise Damage("an indefinite length runs past its end")
            if data[position] == 0xFF:
                return position + 1
            for _ in range(2 if major == 5 else 1):
                position = skip_nested(data, position, end, depth + 1)
    if major in (2, 3):
        if argument > end - position:
            raise Damage("a string runs past its end at %d" % position)
        return position + argument
    if major in (4, 5):
        if argument > end - position:
            raise Damage("a count runs past its end at %d" % position)
        for _ in range(argument * (2 if major == 5 else 1)):
            position = skip_nested(data, position, end, depth + 1)
        return position
    if major == 6:
        return skip_nested(data, position, end, depth + 1)
    if info == 31:
        raise Damage("an unexpected break at %d" % position)
    return position


def compile_template(data, start, end, columns):
    """A template as operations: ("literal", bytes) or (marker, column, width)."""
    ops, literal, leaf, position, pending = [], bytearray(), 0, start, 1
    while pending > 0:
        if position >= end:
            raise Damage("a template ends inside its item")
        pending -= 1
        first = data[position]
        if first in (MARK_INT, MARK_TEXT, MARK_BYTES, MARK_ITEM, MARK_FLOAT):
            width = 0
            if first == MARK_FLOAT:
                if position + 1 >= end or data[position + 1] not in WIDTH_SIZE:
                    raise Damage("a template has a float marker without a width")
                width = data[position + 1]
            if leaf >= len(columns):
                raise Damage("a template has more leaves than columns")
            if literal:
                ops.append(("literal", bytes(literal)))
                literal = bytearray()
            ops.append((first, columns[leaf], width))
            leaf += 1
            position += 2 if first == MARK_FLOAT else 1
            continue
        major, info, argument, item_end = head(data, position, end)
        if info == 31:
            raise Damage("a template holds an indefinite length")
        if major in (2, 3):
            if argument > end - item_end:
                raise Damage("a template's string runs past its end")
            item_end += argument
        elif major in (4, 5):
            if argument > end - item_end:
                raise Damage("a template's count runs past its end")
            pending += argument * (2 if major == 5 else 1)
        elif major == 6:
            pending += 1
        literal += data[position:item_end]
        position = item_end
    if position != end:
        raise Damage("a template has bytes after its item")
    if leaf != len(columns):
        raise Damage("a template has fewer leaves than columns")
    if literal:
        ops.append(("literal", bytes(literal)))
    return ops


def cbor_head(major, argument):
    if argument < 24:
        return bytes([major << 5 | argument])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if argument < 1 << (8 * size):
            return bytes([major << 5 | info]) + argument.to_bytes(size, "big")


def float_bits(value, width):
    """The CBOR argument of `value` at `width`, or None when that width does not hold it."""
    form = {25: ">e", 26: ">f", 27: ">d"}[width]
    try:
        packed = struct.pack(form, value)
    except (OverflowError, struct.error):
        return None
    if struct.unpack(form, packed)[0] != value:
        return None
    return packed


def decode_action_block(data, offset, expected_count, base_time, max_output=1 << 30):
    """The block at `offset`: a list of (action bytes, time offset), and where it ends."""
    block = Section(data, offset, len(data))
    count = block.count("action count")
    if count != expected_count:
        raise Damage("the block holds %d actions, the chunk header says %d" % (count, expected_count))
    action_bytes = block.varint()
    if action_bytes > max_output:
        raise Damage("the actions would take %d bytes, more than %d" % (action_bytes, max_output))
    templates = []
    template_count = block.count("template count")
    if template_count > count:
        raise Damage("%d templates for %d actions" % (template_count, count))
    leaf_total = 0
    for _ in range(template_count):
        start, end = block.slice("template")
        leaf_count = block.count("leaf count")
        if leaf_count > end - start:
            raise Damage("%d leaves in a template of %d bytes" % (leaf_count, end - start))
        leaf_total += leaf_count
        columns = [block.count("column number") for _ in range(leaf_count)]
        templates.append(compile_template(data, start, end, columns))
    strings = []
    for _ in range(block.count("string count")):
        start, end = block.slice("string")
        strings.append(data[start:end])
    ids = block.section("template ids")
    times = block.section("times")
    time_divisor = times.divisor()
    columns = []
    column_count = block.count("column count")
    if column_count > leaf_total:
        raise Damage("%d columns for %d leaves" % (column_count, leaf_total))
    for _ in range(column_count):
        kind = block.byte()
        if kind > ITEMS:
            raise Damage("unknown column kind %d" % kind)
        column = block.section("column")
        column.kind, column.previous = kind, 0
        if kind in (INTEGERS, MICROSECONDS):
            column.step = column.divisor()
        columns.append(column)
    text_bytes = sum(c.end - c.position for c in columns if c.kind == TEXT)
    if len(strings) > text_bytes:
        raise Damage("%d strings for %d bytes of references" % (len(strings), text_bytes))
    for ops in templates:
        for op in ops:
            if op[0] == "literal":
                continue
            if op[1] >= len(columns):
                raise Damage("a template names column %d of %d" % (op[1], len(columns)))
            if columns[op[1]].kind not in FITS[op[0]]:
                raise Damage("a template's leaf is not of its column's kind")
    end = block.position

    def next_integer(column):
        column.previous = wrap64(column.previous + column.zigzag() * column.step)
        return column.previous

    actions, time, total = [], base_time, 0
    for _ in range(count):
        template = ids.count("template id")
        if template >= len(templates):
            raise Damage("template id %d of %d" % (template, len(templates)))
        time = wrap64(time + times.zigzag() * time_divisor)
        out = bytearray()
        for op in templates[template]:
            if op[0] == "literal":
                out += op[1]
                continue
            marker, column, width = op
            column = columns[column]
            if marker == MARK_INT:
                value = next_integer(column)
                out += cbor_head(0, value) if value >= 0 else cbor_head(1, -1 - value)
            elif marker == MARK_TEXT:
                index = column.count("string index")
                if index >= len(strings):
                    raise Damage("string %d of %d" % (index, len(strings)))
                out += cbor_head(3, len(strings[index])) + strings[index]
            elif marker == MARK_BYTES:
                start, stop = column.slice("value")
                out += cbor_head(2, stop - start) + data[start:stop]
            elif marker == MARK_ITEM:
                start, stop = column.slice("value")
                if skip_item(data, start, stop) != stop:
                    raise Damage("a kept item is not one data item")
                out += data[start:stop]
            elif column.kind == MICROSECONDS:
                bits = float_bits(float(next_integer(column)) / 1e6, width)
                if bits is None:
                    raise Damage("a float does not fit its width")
                out += bytes([0xE0 | width]) + bits
            else:
                size = WIDTH_SIZE[width]
                if column.end - column.position < size:
                    raise Damage("a float column ends early")
                out += bytes([0xE0 | width]) + data[column.position : column.position + size]
                column.position += size
            if total + len(out) > action_bytes:
                raise Damage("the actions take more than the %d bytes the block says" % action_bytes)
        total += len(out)
        actions.append((bytes(out), time))
    if total != action_bytes:
        raise Damage("the actions take %d bytes, the block says %d" % (total, action_bytes))
    if ids.position != ids.end or times.position != times.end:
        raise Damage("template ids or times left over")
    for column in columns:
        if column.position != column.end:
            raise Damage("a column holds values left over")
    return actions, end


# The trace.


def chunk_records(raw, version, flags, first_sequence, action_count, base_time):
    """A chunk's records in format 1's order: ("action", seq, t, bytes) or the CBOR array."""
    stream = io.BytesIO(raw)
    decoder = cbor2.CBORDecoder(stream)
    if version == 1:
        records, sequence, time = [], first_sequence, base_time
        while stream.tell() < len(raw):
            start = stream.tell()
            record = decoder.decode()
            if record[0] == 0:
                time = wrap64(time + record[1])
                # The action's own bytes: the record's third item.
                action = skip_item(raw, skip_item(raw, head(raw, start, len(raw))[3], len(raw)), len(raw))
                records.append(("action", sequence, time, raw[action : stream.tell()]))
                sequence += 1
            else:
                records.append(record)
        return records
    leading = []
    if flags & 1:
        snapshot = decoder.decode()
        if len(snapshot) != 4 or snapshot[0] != 1 or snapshot[1] != first_sequence - 1:
            raise Damage("the chunk header promises a snapshot first")
        leading.append(snapshot)
    actions = []
    if action_count > 0:
        actions, end = decode_action_block(raw, stream.tell(), action_count, base_time)
        stream.seek(end)
    # Checkpoints in order, within the chunk's actions; the end record last.
    trailing = []
    previous, last = first_sequence - 1, first_sequence - 1 + action_count
    while stream.tell() < len(raw):
        record = decoder.decode()
        if trailing and trailing[-1][0] == 3:
            raise Damage("a record after the chunk's end record")
        if record[0] == 2 and len(record) == 3:
            if not previous <= record[1] <= last:
                raise Damage("a checkpoint for sequence %d out of order" % record[1])
            previous = record[1]
        elif record[0] != 3 or len(record) != 3:
            raise Damage("unknown record kind %r with %d fields" % (record[0], len(record)))
        trailing.append(record)
    # Each checkpoint after the action it hashes.
    records = leading + [r for r in trailing if r[0] == 2 and r[1] == first_sequence - 1]
    for index, (action, time) in enumerate(actions):
        sequence = first_sequence + index
        records.append(("action", sequence, time, action))
        records += [r for r in trailing if r[0] == 2 and r[1] == sequence]
    records += [r for r in trailing if r[0] != 2]
    return records


def main(path):
    data = open(path, "rb").read()
    magic, size = struct.unpack_from("<II", data, 0)
    assert magic == 0x184D2A50, "not a trace"
    content = data[8 : 8 + size]
    assert content[0:4] == b"RTRC"
    version, _, n = struct.unpack_from("<HHI", content, 4)
    assert version in (1, 2), "format version %d" % version
    assert crc32c(content[: 12 + n]) == struct.unpack_from("<I", content, 12 + n)[0], "header CRC"
    header = cbor2.loads(content[12 : 12 + n])

    offset = 8 + size
    crc_errors = 0
    chunks = []
    while offset < len(data):
        magic, size = struct.unpack_from("<II", data, offset)
        if magic == 0x184D2A51:
            h = data[offset + 8 : offset + 8 + 48]
            flags, first, action_count, record_count, base_time, raw_size, frame_size = struct.unpack_from(
                "<HQIIqII", h, 6
            )
            checkpoint_count = struct.unpack_from("<I", h, 44)[0]
            frame = data[offset + 56 : offset + 56 + frame_size]
            expected = struct.unpack_from("<I", h, 40)[0]
            if crc32c(frame, crc32c(h[44:48], crc32c(h[0:40]))) != expected:
                crc_errors += 1
            chunks.append((flags, first, action_count, record_count, base_time, raw_size, checkpoint_count))
            offset += 56 + frame_size
        elif magic == 0x184D2A5E:
            offset += 8 + size
        else:
            raise SystemExit("unexpected frame at %d" % offset)

    # `zstd -dc` prints every chunk's content, one after another: rawSize bytes each.
    stream = subprocess.run(["zstd", "-q", "-dc", path], check=True, capture_output=True).stdout
    assert len(stream) == sum(chunk[5] for chunk in chunks), "decompressed size"
    start = 0
    actions = []
    checkpoint_hashes = []
    for flags, first, action_count, record_count, base_time, raw_size, checkpoint_count in chunks:
        raw = stream[start : start + raw_size]
        start += raw_size
        records = chunk_records(raw, version, flags, first, action_count, base_time)
        checkpoints = sum(1 for record in records if record[0] == 2)
        if len(records) != record_count or checkpoints != checkpoint_count:
            raise SystemExit("a chunk's records do not match its header")
        for record in records:
            if record[0] == "action":
                actions.append(record[1:])
            elif record[0] == 2:
                checkpoint_hashes.append(str(record[2]))
    print(json.dumps({
        "domain": header["domain"],
        "version": version,
        "chunks": len(chunks),
        "crcErrors": crc_errors,
        "actions": len(actions),
        "firstSequence": actions[0][0] if actions else None,
        "lastAction": cbor2.loads(actions[-1][2]) if actions else None,
        "actionTimes": [time for _, time, _ in actions],
        "actionBytes": [action.hex() for _, _, action in actions],
        "checkpointHashes": checkpoint_hashes,
    }))


if __name__ == "__main__":
    main(sys.argv[1])
