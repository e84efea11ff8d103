"""Every error ragjudge raises on purpose derives from :class:`RagjudgeError`, through
one of a few branches that say what went wrong::

    RagjudgeError
    ├── ConfigError     the config file, its keys, a command's options, a classification
    │                   spec, a judge that does not answer the pre-flight question
    │   └── MissingExtra  a feature asked for needs an optional extra that is not
    │                     installed (the message gives the pip command)
    ├── DataError       the evaluation set: a file that is missing or cannot be read
    │                   (DatasetError lists every bad row), rows lacking a metric's inputs
    ├── StoreError      the store file, a run that is not in it or is busy elsewhere
    ├── JudgeError      a judge model's call, the judge reply cache
    ├── TargetError     the system under test: it cannot be set up, its call failed, its
    │                   reply is malformed or too large
    ├── ExportError     a file export, an MLflow export, an HTML report
    ├── ClusterError    the Ray cluster lost work beyond its retries
    ├── MetricError     inside a metric: a score that failed, a judge reply that does
    │                   not parse, a metric that does not apply to a sample
    ├── AnalysisError   a stored run cannot answer what was asked of it: a score, a
    │                   metadata key or human labels it does not have
    └── RunFailed       ``evaluate(..., on_failure="raise")``: the run ended
                        ``incomplete`` or ``failed`` (its result is attached)

:class:`RunFailedWarning` is what ``evaluate(..., on_failure="warn")`` (the default)
warns with instead.

The ``ragjudge`` command prints any of them as ``error: <message>`` and exits 2 (with a
:class:`DatasetError` it adds how to skip the bad rows); a :class:`ClusterError` ends
``ragjudge run`` with exit 1 and the command that resumes the run. Anything else a
command raises is a bug in ragjudge: the traceback is printed, with a request to report
it, and the exit status is 1.

A class keeps the builtin base it had before the tree (``ConfigError`` is a
``ValueError``, a missing evaluation set a ``FileNotFoundError``, an unknown run a
``KeyError`` …), so ``except ValueError`` in code written against older versions still
works. Errors of one part live in its module (``ModelError`` in
:mod:`ragjudge.models`, ``MetricFailure`` in :mod:`ragjudge.metrics` …); the root, the
branches and the errors several parts share are here.

Nothing here imports another ragjudge module, so every part can use it.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

__all__ = [
    "AnalysisError",
    "ClusterError",
    "ConfigError",
    "DataError",
    "DataFileNotFound",
    "DatasetError",
    "ExportError",
    "JudgeError",
    "MetricError",
    "MissingExtra",
    "NothingNew",
    "RagjudgeError",
    "RowProblem",
    "RunFailed",
    "RunFailedWarning",
    "SpendingLimitReached",
    "StoreError",
    "TargetError",
    "TargetSetupError",
    "TextFileError",
]


class RagjudgeError(Exception):
    """The root of every error ragjudge raises on purpose: a mistake in what it was
    given, or a failure it expected and explains. The message is written for people."""

    def __str__(self) -> str:
        # a KeyError would show its message in quotes
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class ConfigError(RagjudgeError, ValueError):
    """The configuration cannot be used: the file is unreadable or invalid, a key or a
    command's option is wrong, a classification spec is broken, or the judge does not
    answer before the run."""


class MissingExtra(ConfigError, ImportError):
    """A feature asked for needs an optional extra (``local``, ``pdf``, ``mlflow`` …)
    whose packages are not installed; the message names the feature and the pip command
    that installs the extra. It is an ``ImportError`` too, so code that treats a missing
    package as optional keeps doing so."""

    def __init__(self, message: str, *, extra: str) -> None:
        super().__init__(message)
        self.extra = extra


class DataError(RagjudgeError, ValueError):
    """The evaluation set cannot be scored as given."""


class StoreError(RagjudgeError):
    """The store cannot be used (a folder, a file that is not a ragjudge SQLite store,
    a place that cannot be written), or the run asked for is not in it or is being
    executed elsewhere. The message names the path or the run."""


class JudgeError(RagjudgeError):
    """A judge model or the judge reply cache failed."""


class TargetError(RagjudgeError):
    """The system under test cannot be set up, or one of its calls failed."""


class ExportError(RagjudgeError, ValueError):
    """A run cannot be exported or reported as asked (the message says what to give
    instead, or which file cannot be written and why)."""


class ClusterError(RagjudgeError, RuntimeError):
    """The cluster lost a batch beyond its retries; finished results are stored and
    ``--resume`` completes the run."""


class SpendingLimitReached(RagjudgeError):
    """The run stopped at its cost ceiling (``max_cost``); finished results are stored
    and ``--resume`` (with a higher ceiling) completes the run."""


class NothingNew(RagjudgeError):
    """An incremental run found no row its config has not scored already; no run is
    made (``ragjudge run --incremental`` says so and exits 0)."""


class MetricError(RagjudgeError):
    """Raised inside a metric about one sample; it becomes that sample's score (an
    error, or not applicable), never the run's failure."""


class AnalysisError(RagjudgeError, ValueError):
    """A stored run cannot answer what was asked of it: a score, a metadata key or a
    human label it does not have, or two runs that share nothing to compare."""


class RunFailed(RagjudgeError):
    """The run ended, but not every score arrived: its status is ``incomplete`` (more
    of a metric's results failed than ``max_error_rate`` allows) or ``failed`` (a
    metric has no value at all). Raised by ``evaluate(..., on_failure="raise")``;
    ``result`` is the run's :class:`~ragjudge.EvaluationResult`, stored as usual."""

    def __init__(self, message: str, result: object) -> None:
        super().__init__(message)
        self.result = result


class RunFailedWarning(UserWarning):
    """Warned by ``evaluate(..., on_failure="warn")`` (the default) for a run whose
    status is ``incomplete`` or ``failed``; the message says why."""


class TargetSetupError(TargetError, ValueError):
    """The target (or other code a config names by ``module:function``) cannot be set
    up: a bad path, a missing function, a wrong signature, an incomplete spec."""


class DataFileNotFound(DataError, FileNotFoundError):
    """The evaluation set's file is not there."""


class RowProblem(BaseModel):
    """One thing wrong with one row of an evaluation set.

    ``row`` is 1-based: the line number in JSON Lines, the data row (1 = the first row
    after the header) in CSV, the element index + 1 otherwise. Row 0 means the source
    as a whole.
    """

    model_config = ConfigDict(frozen=True)

    source: str
    row: int
    field: str
    reason: str

    def __str__(self) -> str:
        if self.row == 0:
            return f"{self.source}: {self.reason}"
        return f"{self.source}, row {self.row}, field '{self.field}': {self.reason}"


class DatasetError(DataError):
    """An evaluation set has bad rows; ``problems`` lists every one of them."""

    def __init__(self, problems: Sequence[RowProblem]) -> None:
        self.problems: list[RowProblem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class TextFileError(DataError):
    """A file that cannot be read as text under the encoding rule of
    :func:`ragjudge._util.textfiles.decode_text`; ``reason`` says where and why,
    without the file's name."""

    def __init__(self, label: str, reason: str) -> None:
        super().__init__(f"{label}: {reason}")
        self.label = label
        self.reason = reason
