"""Reading an HTTP body under a cap on its decoded size: gzip and deflate (raw or
wrapped, concatenated members) inflate in bounded steps, and a body that does not
decode is an error of its own."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import AsyncIterator

import httpx2
import pytest

from ragjudge._util.bodies import BodyTooLarge, BodyUndecodable, read_body, read_start


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


BODY = b'{"answer": "' + "答え".encode() * 2000 + b'"}'


@pytest.mark.parametrize(
    ("encoding", "data"),
    [
        ("", BODY),
        ("gzip", gzip.compress(BODY, mtime=0)),
        ("gzip", gzip.compress(BODY[:10], mtime=0) + gzip.compress(BODY[10:], mtime=0)),
        ("deflate", zlib.compress(BODY)),
        ("deflate", _raw_deflate(BODY)),
    ],
    # named, not by the bytes: test ids must be the same in every collecting process
    ids=["identity", "gzip", "gzip-two-members", "zlib", "raw-deflate"],
)
async def test_bodies_are_decoded_up_to_the_cap(encoding: str, data: bytes) -> None:
    def response() -> httpx2.Response:
        headers = {"Content-Encoding": encoding} if encoding else {}
        return httpx2.Response(200, headers=headers, stream=httpx2.ByteStream(data))

    assert await read_body(response(), len(BODY)) == BODY
    with pytest.raises(BodyTooLarge):
        await read_body(response(), len(BODY) - 1)
    assert await read_start(response(), 100) == BODY[:100]


async def test_a_body_that_does_not_inflate_is_undecodable() -> None:
    for encoding in ("gzip", "deflate"):
        garbage = httpx2.Response(
            200, headers={"Content-Encoding": encoding}, stream=httpx2.ByteStream(b"not packed")
        )
        with pytest.raises(BodyUndecodable):
            await read_body(garbage, 1000)


async def test_a_plain_body_longer_than_declared_still_stops_at_the_cap() -> None:
    async def endless() -> AsyncIterator[bytes]:
        while True:
            yield b"x" * 1000

    lying = httpx2.Response(200, headers={"Content-Length": "10"}, stream=_Stream(endless()))
    with pytest.raises(BodyTooLarge):
        await read_body(lying, 5000)


class _Stream(httpx2.AsyncByteStream):
    def __init__(self, chunks: AsyncIterator[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._chunks:
            yield chunk
