"""Reading an HTTP response body with a cap on its decoded size (a target's reply, a
judge's reply).

The cap counts the bytes after decompression, as they stream in, and reading stops as
soon as it is passed: a small gzip body that would inflate to gigabytes costs at most
the cap (gzip and deflate are inflated here in bounded steps; any other encoding by
httpx2, one network chunk at a time).
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Protocol

from ragjudge.errors import RagjudgeError

if TYPE_CHECKING:  # imported where a body is read: naming the encodings needs none
    import httpx2

__all__ = ["ACCEPT_ENCODING", "BodyTooLarge", "BodyUndecodable", "read_body", "read_start"]

ACCEPT_ENCODING = "gzip, deflate"
"""What a request offers: the encodings inflated here in bounded steps."""


class BodyTooLarge(RagjudgeError):
    """The decoded body passed its cap (the caller says whose body and which cap)."""


class BodyUndecodable(RagjudgeError):
    """The body is not valid in its declared content encoding."""


class _Decoder(Protocol):
    def decode(self, data: bytes, room: int) -> bytes:
        """At most ``room`` bytes decoded from ``data`` (and what came before)."""


class _Identity:
    def decode(self, data: bytes, room: int) -> bytes:
        return data


class _Inflater:
    """gzip or deflate, never producing more than asked for in one step."""

    def __init__(self, encoding: str) -> None:
        self._gzip = encoding in ("gzip", "x-gzip")
        # deflate is meant to be zlib-wrapped, but some servers send it raw.
        self._wbits = zlib.MAX_WBITS | 16 if self._gzip else zlib.MAX_WBITS
        self._inflater = zlib.decompressobj(self._wbits)
        self._first = True

    def decode(self, data: bytes, room: int) -> bytes:
        try:
            out = self._inflater.decompress(data, room)
        except zlib.error as exc:
            if self._gzip or not self._first:
                raise BodyUndecodable(str(exc)) from None
            self._first = False
            self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            return self.decode(data, room)
        self._first = False
        if self._gzip and self._inflater.eof and self._inflater.unused_data:
            # Concatenated gzip members: go on with the next one.
            rest = self._inflater.unused_data
            self._inflater = zlib.decompressobj(self._wbits)
            out += self.decode(rest, room - len(out)) if len(out) < room else b""
        return out


def _decoder(encoding: str) -> _Decoder | None:
    """A bounded decoder for ``encoding``, or None when httpx2 must decode it."""
    if encoding in ("", "identity"):
        return _Identity()
    if encoding in ("gzip", "x-gzip", "deflate"):
        return _Inflater(encoding)
    return None


async def read_body(response: httpx2.Response, limit: int) -> bytes:
    """The decoded body of a streamed ``response``; :class:`BodyTooLarge` as soon as
    it passes ``limit`` bytes (nothing more is read), :class:`BodyUndecodable` when it
    does not decode."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    declared = response.headers.get("content-length", "")
    if encoding in ("", "identity"):
        if declared.isdigit() and int(declared) > limit:
            raise BodyTooLarge
        return await _read_plain(response, limit)  # no decoder to step through
    parts: list[bytes] = []
    size = 0
    async with aclosing(_decoded(response, limit)) as chunks:
        async for chunk in chunks:
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge
            parts.append(chunk)
    return b"".join(parts)


async def _read_plain(response: httpx2.Response, limit: int) -> bytes:
    """The raw body of ``response``, read as it arrives; :class:`BodyTooLarge` as soon
    as it passes ``limit`` bytes (a transport may send more than it declared)."""
    parts: list[bytes] = []
    size = 0
    async for chunk in response.aiter_raw():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        parts.append(chunk)
    return b"".join(parts)


async def read_start(response: httpx2.Response, limit: int) -> bytes:
    """The first ``limit`` decoded bytes of the body at most (an error page to quote
    from); what does not decode is left out."""
    import httpx2

    parts: list[bytes] = []
    size = 0
    try:
        async with aclosing(_decoded(response, limit)) as chunks:
            async for chunk in chunks:
                parts.append(chunk)
                size += len(chunk)
                if size >= limit:
                    break
    except (BodyUndecodable, httpx2.DecodingError):
        pass
    return b"".join(parts)[:limit]


async def _decoded(response: httpx2.Response, limit: int) -> AsyncGenerator[bytes, None]:
    """Decoded chunks that together never pass ``limit + 1`` bytes by more than one
    network chunk, whatever the compression ratio (for gzip and deflate: not at all)."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    decoder = _decoder(encoding)
    if decoder is None:
        async for chunk in response.aiter_bytes():
            yield chunk
        return
    size = 0
    async for raw in response.aiter_raw():
        chunk = decoder.decode(raw, limit - size + 1)
        size += len(chunk)
        yield chunk
        if size > limit:
            return
