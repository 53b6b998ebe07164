"""A small UBJSON reader: enough for XGBoost's ``.ubj`` model files, without XGBoost.

UBJSON (ubjson.org, draft 12) is JSON in binary: every value starts with a one-byte
type marker, numbers are big-endian, object keys are length-prefixed strings without
a marker, and a container may declare its element type (``$``) and count (``#``) up
front, which is how XGBoost writes its per-node arrays (float32 ``d``, int32 ``l``,
uint8 ``U``). A truncated or corrupted file raises ``ValueError`` naming the offset.
"""

from __future__ import annotations

import struct

import numpy as np

__all__ = ["loads"]

# fixed-size numbers: marker -> (struct format, numpy big-endian dtype)
_NUMBERS = {
    b"i": (">b", ">i1"),
    b"U": (">B", ">u1"),
    b"I": (">h", ">i2"),
    b"l": (">i", ">i4"),
    b"L": (">q", ">i8"),
    b"d": (">f", ">f4"),
    b"D": (">d", ">f8"),
}
_MAX_DEPTH = 64  # XGBoost's models nest about 8 deep; deeper means a corrupted file


class _Reader:
    def __init__(self, data):
        self.data = memoryview(bytes(data))
        self.pos = 0

    def fail(self, what):
        raise ValueError(f"not a valid UBJSON file: {what} at byte {self.pos}")

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            self.fail(f"the data ends early (wanted {n} more bytes)")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def marker(self):
        m = bytes(self.take(1))
        while m == b"N":  # no-op padding
            m = bytes(self.take(1))
        return m

    def number(self, m):
        fmt, _ = _NUMBERS[m]
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def count(self):
        m = self.marker()
        if m not in _NUMBERS or m in (b"d", b"D"):
            self.fail(f"a count must be an integer, not marker {m!r}")
        n = self.number(m)
        if n < 0:
            self.fail(f"negative count {n}")
        return n

    def string(self):
        raw = self.take(self.count())
        try:
            return str(raw, "utf-8")
        except UnicodeDecodeError:
            self.fail("a string that is not UTF-8")

    def value(self, m, depth):
        if m in _NUMBERS:
            return self.number(m)
        if m == b"S" or m == b"H":
            return self.string()
        if m == b"C":
            return str(self.take(1), "latin-1")
        if m == b"Z":
            return None
        if m == b"T":
            return True
        if m == b"F":
            return False
        if m == b"[":
            return self.array(depth + 1)
        if m == b"{":
            return self.object(depth + 1)
        self.fail(f"unknown type marker {m!r}")

    def header(self):
        """A container's optional ``$type`` and ``#count``."""
        kind, n = None, None
        m = self.marker()
        if m == b"$":
            kind = self.marker()
            m = self.marker()
            if m != b"#":
                self.fail("a typed container without a count")
        if m == b"#":
            n = self.count()
            # every element takes at least one byte, except those of a zero-size type (null,
            # true, false), which the count alone stands for: a count beyond the bytes
            # that remain is a corrupted file either way (a 20-byte file must not ask for 2³¹)
            if n > len(self.data) - self.pos:
                self.fail(f"a count of {n} elements, more than the {len(self.data) - self.pos} "
                          "bytes that remain")  # fmt: skip
            return kind, n, None
        return kind, n, m

    def array(self, depth):
        if depth > _MAX_DEPTH:
            self.fail("containers nested too deep")
        kind, n, m = self.header()
        if n is None:
            out = []
            while m != b"]":
                out.append(self.value(m, depth))
                m = self.marker()
            return out
        if kind in _NUMBERS:  # a typed numeric array: read it in one go
            dtype = np.dtype(_NUMBERS[kind][1])
            raw = self.take(n * dtype.itemsize)
            return np.frombuffer(raw, dtype=dtype).astype(dtype.newbyteorder("="))
        return [self.value(kind or self.marker(), depth) for _ in range(n)]

    def object(self, depth):
        if depth > _MAX_DEPTH:
            self.fail("containers nested too deep")
        kind, n, m = self.header()
        out = {}
        if n is None:
            while m != b"}":
                self.pos -= 1  # m was the first byte of the key's length
                key = self.string()
                out[key] = self.value(self.marker(), depth)
                m = self.marker()
            return out
        for _ in range(n):
            key = self.string()
            out[key] = self.value(kind or self.marker(), depth)
        return out


def loads(data):
    """The Python value of UBJSON ``data`` (bytes); typed numeric arrays come back as numpy."""
    reader = _Reader(data)
    value = reader.value(reader.marker(), 0)
    if reader.pos != len(reader.data):
        reader.fail("extra data after the end of the value")
    return value
