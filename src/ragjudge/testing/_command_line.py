"""The command line of the test server (``python -m ragjudge.testing.server``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

__all__ = ["parse_server_args"]


def parse_server_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options of ``python -m ragjudge.testing.server``."""
    parser = argparse.ArgumentParser(
        prog="python -m ragjudge.testing.server",
        description="Serve a local OpenAI-compatible test endpoint on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=8999)
    parser.add_argument("--latency", type=float, nargs=2, metavar=("LOW", "HIGH"))
    parser.add_argument("--rpm", type=int, help="requests-per-minute limit")
    parser.add_argument("--tpm", type=int, help="tokens-per-minute limit")
    parser.add_argument(
        "--per-second",
        action="store_true",
        help="enforce the limits per sliding second (rpm/60 requests in any second)",
    )
    parser.add_argument("--error-rate", type=float, default=0.0, help="share of 500 answers")
    parser.add_argument("--timeout-rate", type=float, default=0.0)
    parser.add_argument("--hang-seconds", type=float, default=30.0)
    parser.add_argument(
        "--garbled-rate", type=float, default=0.0, help="share of chat replies spoiled"
    )
    parser.add_argument(
        "--refuse-schemas",
        action="store_true",
        help="answer requests with a reply schema (response_format json_schema) 400",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reply", default="OK", help="the reply to every prompt")
    parser.add_argument("--embedding-dim", type=int, default=16)
    return parser.parse_args(argv)
