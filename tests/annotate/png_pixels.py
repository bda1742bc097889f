"""Decode an 8-bit, non-interlaced PNG (what Chromium's screenshots are) with the stdlib,
so the browser test can check a screenshot is not blank without an image library."""

from __future__ import annotations

import struct
import zlib

_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel


def decode(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """Return ``(width, height, channels, rows)`` of a PNG.

    Args:
        data: The PNG file content.
    """
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    offset, idat = 8, b""
    width = height = channels = 0
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset : offset + 8])
        body = data[offset + 8 : offset + 8 + length]
        offset += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace or colour not in _CHANNELS:
                raise ValueError(f"unsupported PNG (depth {depth}, colour {colour}, interlace {interlace})")
            channels = _CHANNELS[colour]
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(kind, line, previous, channels)
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def _unfilter(kind: int, line: bytearray, up: bytearray, bpp: int) -> None:
    if kind == 0:
        return
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        above = up[i]
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + above) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + ((left + above) >> 1)) & 0xFF
        elif kind == 4:
            corner = up[i - bpp] if i >= bpp else 0
            estimate = left + above - corner
            pa, pb, pc = abs(estimate - left), abs(estimate - above), abs(estimate - corner)
            predictor = left if pa <= pb and pa <= pc else (above if pb <= pc else corner)
            line[i] = (line[i] + predictor) & 0xFF
        else:
            raise ValueError(f"unknown PNG filter {kind}")
