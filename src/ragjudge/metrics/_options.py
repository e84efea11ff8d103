"""Metric options that a run's config fills: an option may take a config-wide setting
(:class:`FromConfig`) or name files read relative to the config's folder
(:class:`ConfigPath`). Both are declared on the option itself, in its metric's
:class:`~ragjudge.metrics.MetricOptions` model::

    class ClassifyOptions(MetricOptions):
        spec_dirs: Annotated[list[str], FromConfig("specs"), ConfigPath()] = Field(
            default_factory=list
        )

and :meth:`ConfigSettings.fill` applies them to whatever metric a config names, so
the code that sets up a run never names a metric.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic.fields import FieldInfo

from ragjudge.metrics._base import MetricOptions

__all__ = ["ConfigPath", "ConfigSettings", "FromConfig"]

_UNSET: Any = object()
T = TypeVar("T")


@dataclass(frozen=True)
class FromConfig:
    """Marks an option that also takes the config-wide ``setting`` (``specs``): a list
    option gets the setting's entries after its own; any other option takes the
    setting's value when the metric's entry does not set it. An unset or empty setting
    changes nothing."""

    setting: str

    def merged(self, own: Any, given: Any) -> Any:
        """The option's value from its own (``_UNSET`` when not given) and the
        setting's."""
        if given is None or given == []:
            return own
        if own is _UNSET:
            return given
        if isinstance(own, list) and isinstance(given, list):
            return [*own, *given]
        return own


@dataclass(frozen=True)
class ConfigPath:
    """Marks an option that names files or folders (one, or a list), read relative to
    the config's folder. With ``suffixes``, only a value naming a file with one of them
    is a path (``fact`` names a built-in spec, ``tone.yaml`` a file); its ``#PART``
    (one part of the file) is kept as it is."""

    suffixes: tuple[str, ...] = ()

    def resolved(self, value: Any, folder: Path) -> Any:
        """``value`` with every path in it made absolute; anything else unchanged."""
        if isinstance(value, list):
            return [self.resolved(entry, folder) for entry in value]
        if not isinstance(value, str):
            return value
        if not self.suffixes:
            return str(_under(folder, value))
        path, mark, part = value.partition("#")
        if not path.endswith(self.suffixes):
            return value
        return str(_under(folder, path)) + mark + part


def _under(folder: Path, path: str) -> Path:
    found = Path(path)
    return found if found.is_absolute() else folder / found


@dataclass(frozen=True)
class ConfigSettings:
    """What a run's config gives metric options: its ``folder`` (relative paths are
    read from there) and its settings, by name (``setting("specs")``)."""

    folder: Path
    setting: Callable[[str], Any]

    def fill(self, model: type[MetricOptions], options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` (a metric's entry in the config) with every option of ``model``
        that declares :class:`FromConfig` or :class:`ConfigPath` filled in."""
        filled = dict(options)
        for name, info in model.model_fields.items():
            value = self._option(info, filled.get(name, _UNSET))
            if value is not _UNSET:
                filled[name] = value
        return filled

    def _option(self, info: FieldInfo, value: Any) -> Any:
        path = _marker(info, ConfigPath)
        source = _marker(info, FromConfig)
        if path is not None and value is not _UNSET:
            value = path.resolved(value, self.folder)
        if source is None:
            return value
        given = self.setting(source.setting)
        if path is not None:
            given = path.resolved(given, self.folder)
        return source.merged(value, given)


def _marker(info: FieldInfo, kind: type[T]) -> T | None:
    return next((m for m in info.metadata if isinstance(m, kind)), None)
