"""Reading a config's YAML: the safe loader, under the one text-file rule, refusing
what plain YAML accepts without a word but a config must not hold:

- a key given twice in one mapping (plain YAML keeps the last value);
- aliases that repeat values beyond :data:`MAX_CONFIG_VALUES` (an alias bomb: a few
  hundred bytes of ``&anchors`` and ``*aliases`` that stand for hundreds of millions of
  values), or an alias inside the value it names;
- a whole number too long to read (Python refuses more than 4,300 digits).

Every problem is a :class:`~ragjudge.errors.ConfigError` naming the file and the line.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

import yaml

from ragjudge._util.textfiles import read_text_file
from ragjudge.errors import ConfigError, TextFileError
from ragjudge.loading._json import MAX_INT_DIGITS

__all__ = ["MAX_CONFIG_VALUES", "BoundedLoader", "YamlRefused", "read_yaml"]

MAX_CONFIG_VALUES = 100_000
"""The most values (scalars, lists and mappings) a config's YAML may stand for, each
alias counted as all the values it repeats; a config holds a few hundred."""


class YamlRefused(ConfigError):
    """What :class:`BoundedLoader` refuses, on the line it names (the reader adds the
    file)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line, self.reason = line, reason


class BoundedLoader(yaml.SafeLoader):
    """The safe YAML loader refusing runaway aliases and whole numbers too long to read
    (:class:`YamlRefused`); also what spec files are read with."""

    def get_single_node(self) -> yaml.Node | None:
        node: yaml.Node | None = super().get_single_node()
        if node is not None:
            _check_expansion(node)
        return node

    def construct_long_int(self, node: yaml.ScalarNode) -> int:
        digits = sum(character.isdigit() for character in str(node.value))
        if digits > MAX_INT_DIGITS:
            raise YamlRefused(
                _line(node),
                f"a whole number of {digits:,} digits; at most {MAX_INT_DIGITS:,} can be "
                "read (quote it to keep it as text)",
            )
        number: int = self.construct_yaml_int(node)
        return number


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_long_int)


class _ConfigLoader(BoundedLoader):
    """:class:`BoundedLoader`, refusing a key given twice in one mapping too. Keys
    brought in by a ``<<`` merge may be overridden, as YAML intends."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        first_lines: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
                continue
            key = self.construct_object(key_node, deep=True)
            line = _line(key_node)
            if key in first_lines:
                raise YamlRefused(
                    line,
                    f"the key {key!r} is given twice in one mapping (first on line "
                    f"{first_lines[key]}); keep one",
                )
            first_lines[key] = line
        return super().construct_mapping(node, deep=deep)


_MERGE_TAG = "tag:yaml.org,2002:merge"


def read_yaml(path: Path) -> Any:
    """The YAML document of the file at ``path``, or a :class:`ConfigError` saying why
    there is none."""
    try:
        text = read_text_file(path)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: no such file") from exc
    except IsADirectoryError as exc:
        raise ConfigError(f"{path}: is a folder, not a YAML file") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
    except TextFileError as exc:
        raise ConfigError(str(exc)) from None
    try:
        return yaml.load(text, Loader=_ConfigLoader)  # a SafeLoader subclass
    except YamlRefused as exc:
        raise ConfigError(f"{path}, line {exc.line}: {exc.reason}") from None
    except yaml.MarkedYAMLError as exc:
        for mark in (exc.context_mark, exc.problem_mark):
            if mark is not None:
                mark.name = str(path)
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: lists or mappings are nested too deeply to read") from None


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a document whose aliases stand for more than :data:`MAX_CONFIG_VALUES`
    values, or one with an alias inside the value it names. Each node is counted
    once (a repeated alias reuses its count), so the check takes the document's own
    size, not the size it stands for."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    pending: list[tuple[yaml.Node, bool]] = [(root, False)]
    while pending:
        node, children_counted = pending.pop()
        key = id(node)
        if children_counted:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > MAX_CONFIG_VALUES:
                raise YamlRefused(
                    _line(node),
                    f"the aliases (*name) here repeat values beyond {MAX_CONFIG_VALUES:,} "
                    "in all, more than a config holds: write the values out, or repeat "
                    "fewer",
                )
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise YamlRefused(_line(node), "an alias (*name) stands inside the value it names")
        open_nodes.add(key)
        pending.append((node, True))
        pending.extend((child, False) for child in _children(node) if id(child) not in sizes)


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        yield from node.value
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield key
            yield value


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1
