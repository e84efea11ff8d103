"""Joining an endpoint's path to a base URL: before the base URL's query string."""

from __future__ import annotations

import pytest

from ragjudge._util.urls import join_path


@pytest.mark.parametrize(
    ("base", "path", "joined"),
    [
        ("http://h/v1", "chat/completions", "http://h/v1/chat/completions"),
        ("http://h/v1/", "/embeddings", "http://h/v1/embeddings"),
        (
            "https://r.openai.azure.com/openai/v1?api-version=2024-10-21",
            "chat/completions",
            "https://r.openai.azure.com/openai/v1/chat/completions?api-version=2024-10-21",
        ),
        (
            "http://u:p@h:8000/v1/?a=1&b=2#f",
            "embeddings",
            "http://u:p@h:8000/v1/embeddings?a=1&b=2#f",
        ),
        ("http://h", "x", "http://h/x"),
        ("http://h?x=1", "y", "http://h/y?x=1"),
    ],
)
def test_the_path_goes_before_the_query(base: str, path: str, joined: str) -> None:
    assert join_path(base, path) == joined
