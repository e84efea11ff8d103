"""The spec library: the built-in specs (``fact``, ``closedqa``, ``battle`` and their
Japanese ``_ja`` twins) and the specs in the folders a user names.

A spec file is YAML in the openai-evals "modelgraded" layout: a mapping from spec
names to spec fields, so an openai-evals ``registry/modelgraded`` folder is a spec
folder as it is. A file whose top level holds a ``prompt`` is one spec named after the
file. A spec is named in a metric by its name, by a path (``my_spec.yaml``, or
``specs.yaml#tone`` for one spec of several), or given inline as a mapping.

A key given twice in one mapping of a spec file is an error, unless the files are
read as openai-evals reads its registry (``duplicate_keys="warn"``): then a
:class:`DuplicateKeyWarning` names the file, line and key, and the later value is kept,
as PyYAML keeps it (the official registry holds such a file).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from ragjudge._util.textfiles import read_text_file
from ragjudge.config._yaml import BoundedLoader, YamlRefused
from ragjudge.errors import TextFileError
from ragjudge.metrics.classify._spec import ClassifySpec, SpecError, build_spec

__all__ = [
    "BUILTIN_DIR",
    "DuplicateKeyWarning",
    "DuplicateKeys",
    "SpecSource",
    "find_spec",
    "list_specs",
    "read_spec_file",
    "yaml_loader",
]

BUILTIN_DIR = Path(__file__).resolve().parent / "specs"
BUILT_IN = "built-in"
_SUFFIXES = (".yaml", ".yml")

DuplicateKeys = Literal["refuse", "warn"]
"""What a key given twice in one mapping of a spec file is: an error (``refuse``), or
a warning with the later value kept (``warn``, as openai-evals reads its registry)."""


class DuplicateKeyWarning(UserWarning):
    """A key given twice in one mapping of a spec file read as openai-evals reads it:
    the later value is kept."""


@dataclass(frozen=True)
class SpecSource:
    """A spec as read from a file, not yet checked: its fields and where it is."""

    name: str
    raw: Any
    source: str


class _UniqueKeys(BoundedLoader):
    """The safe loader (aliases bounded, see :mod:`ragjudge.config._yaml`), refusing a
    key given twice in one mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        first_lines: dict[Any, int] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                if key in first_lines:
                    self.repeated_key(key, line, first_lines[key])
                else:
                    first_lines[key] = line
        return super().construct_mapping(node, deep=deep)

    def repeated_key(self, key: Any, line: int, first_line: int) -> None:
        """Refuse ``key``, given again on ``line``."""
        raise SpecError(f"the key {key!r} is given twice (line {line})")


_WARNED: dict[Any, Any] = {}
"""The duplicate-key warnings already shown (the warnings module's registry)."""


class _RegistryKeys(_UniqueKeys):
    """:class:`_UniqueKeys` warning of a key given twice, keeping the later value."""

    label = ""
    """The file being read, named in the warning (set on a subclass per file)."""

    def repeated_key(self, key: Any, line: int, first_line: int) -> None:
        """Warn of ``key``, given again on ``line``; the later value is kept."""
        # shown as coming from the YAML file's line (with that line), once per file and
        # line however often the file is read
        warnings.warn_explicit(
            f"{self.label}, line {line}: the key {key!r} is given twice in one mapping "
            f"(first on line {first_line}); the later value is used, as openai-evals "
            "does",
            DuplicateKeyWarning,
            self.label,
            line,
            registry=_WARNED,
        )


def yaml_loader(duplicate_keys: DuplicateKeys, label: str) -> type[BoundedLoader]:
    """The safe YAML loader (aliases bounded) for the file ``label`` under the rule
    ``duplicate_keys``; a refused key raises :class:`SpecError`."""
    if duplicate_keys == "refuse":
        return _UniqueKeys
    return type("_RegistryFileKeys", (_RegistryKeys,), {"label": label})


def read_spec_file(
    path: Path, *, label: str | None = None, duplicate_keys: DuplicateKeys = "refuse"
) -> list[SpecSource]:
    """The specs of one YAML file (a mapping of names to specs, or one spec); a key
    given twice in one mapping is refused or warned of by ``duplicate_keys``."""
    shown = label or str(path)
    try:
        text = read_text_file(path, shown)
        data = yaml.load(text, Loader=yaml_loader(duplicate_keys, shown))  # a SafeLoader subclass
    except FileNotFoundError:
        raise SpecError(f"{shown}: no such spec file") from None
    except IsADirectoryError:
        raise SpecError(f"{shown}: is a folder, not a spec file") from None
    except OSError as exc:
        raise SpecError(f"{shown}: cannot read it: {exc.strerror or exc}") from None
    except TextFileError as exc:
        raise SpecError(str(exc)) from None
    except SpecError as exc:
        raise SpecError(f"{shown}: {exc}") from None
    except YamlRefused as exc:
        raise SpecError(f"{shown}, line {exc.line}: {exc.reason}") from None
    except yaml.YAMLError as exc:
        raise SpecError(f"{shown}: not valid YAML: {exc}") from None
    if not isinstance(data, dict) or not data:
        raise SpecError(f"{shown}: expected a mapping of spec names to specs")
    if "prompt" in data:
        return [SpecSource(path.stem, data, shown)]
    for name, raw in data.items():
        if not isinstance(name, str) or not isinstance(raw, dict):
            raise SpecError(f"{shown}: {name!r}: expected a spec name and its fields")
    return [SpecSource(name, raw, shown) for name, raw in data.items()]


def _builtin_sources() -> list[SpecSource]:
    return [
        source
        for path in sorted(BUILTIN_DIR.glob("*.yaml"))
        for source in read_spec_file(path, label=f"{BUILT_IN} {path.name}")
    ]


def _folder_sources(folder: Path, duplicate_keys: DuplicateKeys) -> list[SpecSource]:
    if not folder.is_dir():
        raise SpecError(f"specs: {folder} is not a folder")
    files = sorted(p for p in folder.iterdir() if p.suffix in _SUFFIXES and p.is_file())
    return [
        source for path in files for source in read_spec_file(path, duplicate_keys=duplicate_keys)
    ]


def library(
    folders: Sequence[str | Path] = (), *, duplicate_keys: DuplicateKeys = "refuse"
) -> dict[str, SpecSource]:
    """Every spec by name: the built-ins, then each folder's (a folder's spec replaces a
    built-in of the same name; two files of the folders naming the same spec are an
    error). ``duplicate_keys`` is the rule for a key given twice in a folder's file."""
    found = {s.name: s for s in _builtin_sources()}
    users: dict[str, SpecSource] = {}
    for folder in folders:
        for source in _folder_sources(Path(folder), duplicate_keys):
            if source.name in users:
                raise SpecError(
                    f"{source.source}: spec {source.name!r} is also defined in "
                    f"{users[source.name].source}; rename one"
                )
            users[source.name] = source
    return {**found, **users}


def find_spec(
    ref: str | Mapping[str, Any],
    folders: Sequence[str | Path] = (),
    *,
    multicomp_n: int | None = None,
    inline_source: str = "the config",
    duplicate_keys: DuplicateKeys = "refuse",
) -> ClassifySpec:
    """The spec ``ref`` names: a name (built-in or in ``folders``), a path to a YAML
    file (``file.yaml`` or ``file.yaml#name``) or an inline mapping of spec fields;
    ``duplicate_keys`` is the rule for a key given twice in a file read."""
    if isinstance(ref, Mapping):
        name = str(ref.get("name", "classify"))
        fields = {k: v for k, v in ref.items() if k != "name"}
        return build_spec(fields, name=name, source=inline_source, multicomp_n=multicomp_n)
    path, _, wanted = ref.partition("#")
    if path.endswith(_SUFFIXES):
        return _from_file(Path(path).expanduser(), wanted, multicomp_n, duplicate_keys)
    known = library(folders, duplicate_keys=duplicate_keys)
    source = known.get(ref)
    if source is None:
        raise SpecError(
            f"spec: unknown spec {ref!r}; known specs: {', '.join(sorted(known))} "
            "(or give a path to a .yaml file)"
        )
    return build_spec(source.raw, name=source.name, source=source.source, multicomp_n=multicomp_n)


def _from_file(
    path: Path, wanted: str, multicomp_n: int | None, duplicate_keys: DuplicateKeys
) -> ClassifySpec:
    sources = read_spec_file(path, duplicate_keys=duplicate_keys)
    if wanted:
        chosen = [s for s in sources if s.name == wanted]
        if not chosen:
            names = ", ".join(s.name for s in sources)
            raise SpecError(f"{path}: no spec {wanted!r} in it; it holds {names}")
        source = chosen[0]
    elif len(sources) == 1:
        source = sources[0]
    else:
        names = ", ".join(s.name for s in sources)
        raise SpecError(f"{path} holds several specs ({names}); name one as {path}#NAME")
    return build_spec(source.raw, name=source.name, source=source.source, multicomp_n=multicomp_n)


def list_specs(folders: Sequence[str | Path] = ()) -> list[ClassifySpec]:
    """Every spec of the library, checked (a bad one is a :class:`SpecError`)."""
    return [build_spec(s.raw, name=s.name, source=s.source) for s in library(folders).values()]
