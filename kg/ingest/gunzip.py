"""Reading a gzip stream that may be cut short or followed by garbage: what decodes is
read, and the break is said, not raised."""

from __future__ import annotations

import io
import zlib
from typing import IO


class GunzipStream(io.RawIOBase):
    """A gzip file as a byte stream that keeps what it decoded before a break.

    ``gzip.GzipFile`` raises on a truncated file and loses the data of its last read; this
    stream returns everything it could decode and then sets :attr:`broken` to the reason.
    Concatenated gzip members are read one after another.
    """

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh
        self._inflater = zlib.decompressobj(wbits=31)
        self._started = False
        self._pending = b""
        self._offset = 0
        self._done = False
        self.broken: str | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        while self._offset >= len(self._pending) and not self._done:
            self._pending, self._offset = self._inflate(), 0
        n = min(len(buffer), len(self._pending) - self._offset)
        buffer[:n] = self._pending[self._offset : self._offset + n]
        self._offset += n
        return n

    def _inflate(self) -> bytes:
        chunk = self._fh.read(1 << 16)
        if not chunk:
            self._done = True
            if self._started and not self._inflater.eof:
                self.broken = "truncated gzip"
            return b""
        out = []
        try:
            while chunk:
                if self._inflater.eof:
                    if not chunk.strip(b"\0"):  # zero padding after the last member
                        break
                    self._inflater = zlib.decompressobj(wbits=31)
                self._started = True
                out.append(self._inflater.decompress(chunk))
                chunk = self._inflater.unused_data
        except zlib.error as exc:
            self._done = True
            self.broken = f"corrupt gzip data ({exc})"
        return b"".join(out)
