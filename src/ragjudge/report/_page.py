"""Pages from the templates: the Jinja environment (autoescaping every value), the
inlined style sheet and script with a Content-Security-Policy that allows exactly
those two and no network, and the packed per-sample fragments.

Every page is one file: the CSS and the script are inlined and allowed by their
SHA-256 hashes, so an injected ``<script>`` or event handler would not run even if
some text escaped the templates' escaping; ``default-src 'none'`` forbids every
request (images, fonts, fetches) the page could make.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from functools import cache
from importlib.resources import files
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from ragjudge._util.known_secrets import mask_secrets
from ragjudge._version import __version__
from ragjudge.report import _svg, _text
from ragjudge.report._details import node_of

__all__ = ["content_policy", "environment", "pack_fragments", "render_fragment", "render_page"]


def _asset(name: str) -> str:
    return files("ragjudge.report").joinpath("templates", name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


@cache
def environment() -> Environment:
    """The report's Jinja environment: autoescaping on, undefined names are errors."""
    env = Environment(
        loader=PackageLoader("ragjudge.report", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        shown=_text.shown,
        breakable=_text.breakable,
        lang_of=_text.lang_of,
        fmt=_text.fmt,
        pct=_text.pct,
        money=_text.money,
        preview=_text.preview,
        json_text=_text.json_text,
    )
    env.globals.update(
        ci_cell=_svg.ci_cell,
        diff_cell=_svg.diff_cell,
        share_cell=_svg.share_cell,
        node_of=node_of,
        version=__version__,
    )
    return env


@cache
def _assets() -> tuple[str, str]:
    css, script = _asset("report.css"), _asset("report.js")
    if "</script" in script.lower() or "</style" in css.lower():
        raise ValueError("an inlined asset may not close its own element")
    return css, script


def content_policy(*, forms: bool = False) -> str:
    """The Content-Security-Policy of every page: the inlined style and script by hash,
    ``data:`` for the empty icon, no request anywhere (with ``forms``, the viewer's
    run picker may submit to its own server)."""
    css, script = _assets()
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src 'sha256-{_sha256(script)}'",
            f"style-src 'sha256-{_sha256(css)}'",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'self'" if forms else "form-action 'none'",
        ]
    )


def render_page(template: str, *, forms: bool = False, **context: Any) -> str:
    """A whole page from ``template`` (which extends ``page.html.jinja``), the secrets
    this process knows masked (:mod:`ragjudge._util.known_secrets`)."""
    css, script = _assets()
    page = (
        environment()
        .get_template(template)
        .render(csp=content_policy(forms=forms), css=Markup(css), script=Markup(script), **context)
    )
    return mask_secrets(page)


def render_fragment(template: str, **context: Any) -> str:
    """A piece of a page (no head, no policy), escaped and masked like the pages."""
    return mask_secrets(environment().get_template(template).render(**context))


def pack_fragments(fragments: list[str]) -> str:
    """HTML fragments as gzip-compressed JSON in base64: the page unpacks them with the
    browser's own ``DecompressionStream`` when a sample is opened. Repeated text
    (judge instructions, contexts quoted in prompts) compresses well, which keeps a
    1,000-sample report at a few MB. The alphabet of base64 cannot end the script
    element the text sits in."""
    raw = json.dumps(fragments, ensure_ascii=False).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")
