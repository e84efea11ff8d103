"""Pages the documentation site writes from the code on every build, so they cannot
drift from it: the command-line reference (from the ``ragjudge`` command tree) and the
JSON Schema of eval.yaml (from ``EvalConfig``)."""

from __future__ import annotations

import json
from typing import Any

from mkdocs.structure.files import File, Files

from ragjudge.cli._reference import cli_reference
from ragjudge.cli._schema import eval_schema


def on_files(files: Files, config: Any) -> Files:
    """Add the generated pages to the site's files."""
    schema = json.dumps(eval_schema(), ensure_ascii=False, indent=2) + "\n"
    files.append(File.generated(config, "cli.md", content=cli_reference()))
    files.append(File.generated(config, "eval.schema.json", content=schema))
    return files
