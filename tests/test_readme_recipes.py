"""The README's copy-paste judge configs are the files under examples/recipes/, word for
word, and each reads as a valid config whose preset expands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragjudge.config import load_config

REPO = Path(__file__).resolve().parents[1]
RECIPES = sorted((REPO / "examples" / "recipes").glob("*.yaml"))


def _readme_yaml_blocks() -> dict[str, str]:
    """The README's YAML blocks that open with the path of the file they show."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", readme, flags=re.DOTALL)
    named = {}
    for block in blocks:
        if match := re.match(r"# (examples/recipes/\S+\.yaml)", block):
            named[match.group(1)] = block
    return named


def test_there_is_a_recipe_for_openai_a_local_server_and_litellm() -> None:
    assert [p.name for p in RECIPES] == ["litellm.yaml", "local.yaml", "openai.yaml"]


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: p.name)
def test_the_readme_shows_the_recipe_as_it_is(recipe: Path) -> None:
    shown = _readme_yaml_blocks()

    assert shown[f"examples/recipes/{recipe.name}"] == recipe.read_text(encoding="utf-8")


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: p.name)
def test_every_recipe_reads_with_its_preset_expanded(recipe: Path) -> None:
    config = load_config(recipe)

    assert config.judge is not None and config.target is not None
    assert config.metrics[1:] == ["faithfulness", "context_recall", "context_precision"]
    assert (config.base_dir / "../quickstart/evalset.jsonl").is_file()
