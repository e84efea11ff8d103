"""pysbd's processor run with a cheap test before each of its rules.

pysbd (``clean=False``) rewrites a line with some fifty regular-expression rules
(lists, abbreviations, numbers, ellipses, quotes, e-mail addresses, ...) before it cuts
it with its sentence-boundary pattern, then maps its placeholders back in every
sentence. Almost all of those rules find nothing in a given line, yet each scans it.

:func:`quick_sentences` takes the same steps in the same order with pysbd's own rules
and code, but runs a step only when a test shows that its patterns could match the
text as it stands at that step. Each test is a necessary condition of the step's
patterns (a character they all need, or the same pattern written to start with its
literal character so that it is searched for quickly), so a step skipped would have
left the text unchanged and the sentences are pysbd's. A line holding a line break or
one of pysbd's placeholder characters, or a line a step splits into several segments,
is left to pysbd (``None``).

Three small steps are written here rather than called, each shown equal to pysbd's on
the text it is given: the post-processing of a sentence without placeholders or a
closing quotation (a strip), the placeholders of a quoted span without a backslash (one
``str.translate``) and the two single-quote patterns, searched from their quote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

__all__ = ["quick_sentences"]

_PLACEHOLDERS = "∯∮♨☝ȸȹ☉☈☇☄ᓰᓱᓳᓴᓷᓸ✂⌬⎋♬♭ƪ☏♟♝"
"""Characters pysbd writes into the text while it works."""

_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Where ``str.splitlines`` (used by pysbd's abbreviation pass) breaks a line."""

_FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"
"""Characters that match an ASCII letter when case is ignored (İ, ı, ſ, the Kelvin
sign): without them a case-insensitive letter is an ASCII letter."""

_LEFT_TO_PYSBD = re.compile("[" + re.escape(_PLACEHOLDERS + _LINE_BREAKS + _FOLDS_TO_ASCII) + "]")

# Necessary conditions of pysbd's steps. "\.(?<=X\.)" finds the same periods as "X\."
# but is searched for by its first, literal character.
_LETTER_ITEM = re.compile(r"\.(?<=(?<!\S)[a-z]\.)")  # "a." (also "i.", "v.", "x.")
_LETTER_PAREN = re.compile(r"\)(?<=(?<![a-z])[a-z]\))")  # "a)"
_ROMAN_PAREN = re.compile(
    "|".join(rf"\)(?<=(?<![a-z])[ivx]{{{n}}}\))" for n in range(1, 6))  # "iv)"
)
_NUMBERED_ITEM = re.compile(r"\.(?<=(?<!\d)\d\.)[\s)]|\.(?<=(?<!\d)\d\d\.)[\s)]")  # "1. "
_NUMBERED_PAREN = re.compile(r"\)(?<=\d\))\s")  # "1) "
_POSSESSIVE = ".'s"
_KOMMANDITGESELLSCHAFT = re.compile(r"\.(?<=Co\.)\sKG")
_SINGLE_CAPITAL = re.compile(r"\.(?<=(?<!\S)[A-Z]\.)")
_MULTI_PERIOD = re.compile(r"\.(?<=\b[A-Za-z]\.)[A-Za-z]\.")  # single letters and periods ("U.S.")
_NUMBERS = re.compile(r"\.(?<=\d\.)|\.\d")
_NUMBERED_REFERENCE = re.compile(r"\.[\[\d]")
_DOTTED_NAME = re.compile(r"\.[A-Za-z0-9_]")  # e-mail addresses, URLs, file names
_FILE_FORMAT = re.compile(r"\.(?<=\s\.)[a-z]")  # every extension starts with a letter
_ELLIPSIS = re.compile(r"\.\.\.|\.\s\.")
_BETWEEN_TRIGGERS = re.compile("['‘\"\\[(«“「（]")
_SYMBOL_STARTS = re.compile("[∯♬♭&☉☇☈☄ȸȹ]")
"""The first characters of the placeholders pysbd maps back in each sentence."""
_ELLIPSIS_SYMBOLS = re.compile("[ƪ♟♝☏∮]")
"""The characters of the placeholders pysbd puts back as ellipses and periods."""
_PIECE_SYMBOLS = re.compile("[∯♬♭&☉☇☈☄ȸȹƪ♟♝☏∮]")
_LETTERS_ONLY = re.compile(r"\A[a-zA-Z]*\Z")


@dataclass(frozen=True)
class _Plan:
    """One language's rules, and the test of its abbreviation pass."""

    rules: Any
    abbreviations: re.Pattern[str]
    boundary: re.Pattern[str]
    punctuation: re.Pattern[str]
    quotation_at_end: re.Pattern[str]
    punctuations: tuple[str, ...]
    between: Any
    replacer: Any


def quick_sentences(line: str, rules: Any) -> list[str] | None:
    """pysbd's sentences of ``line`` as its processor returns them, or ``None`` when
    the line is left to pysbd."""
    plan = _plan(rules)
    if plan is None or not line or _left_to_pysbd(line):
        return None
    text = _rewritten(line, plan)
    if text is None:
        return None
    segment = _segment_rules(text, plan.rules)
    has_punctuation = plan.punctuation.search(segment) is not None
    pieces = _process_text(segment, plan) if has_punctuation else [segment]
    sentences: list[str] = []
    for piece in pieces:
        if _PIECE_SYMBOLS.search(piece) is None and plan.quotation_at_end.search(piece) is None:
            # what post-processing does to a piece without placeholders or a quotation
            # at a sentence end (a piece of letters only has nothing to strip)
            stripped = piece.strip()
            if stripped:
                sentences.append(stripped)
            continue
        if _SYMBOL_STARTS.search(piece):
            piece = _apply(piece, plan.rules.SubSymbolsRules.All)
        sentences.extend(_post_processed(piece, plan.rules))
    return [
        _apply(sentence, [plan.rules.SubSingleQuoteRule]) if "&" in sentence else sentence
        for sentence in sentences
    ]


def _left_to_pysbd(line: str) -> bool:
    """Whether ``line`` holds a line break, a placeholder or a folding letter (printable
    ASCII holds none of them)."""
    if line.isascii() and line.isprintable():
        return False
    return _LEFT_TO_PYSBD.search(line) is not None


def _rewritten(text: str, plan: _Plan) -> str | None:
    """The steps of pysbd's ``Processor.process`` before the text is cut into
    segments; ``None`` when they split the line into several segments."""

    rules = plan.rules
    text = _lists(text)
    text = _abbreviations(text, plan)
    if _NUMBERS.search(text):
        text = _apply(text, rules.Numbers.All)
    if "!" in text or "??" in text:
        text = re.sub(rules.CONTINUOUS_PUNCTUATION_REGEX, _continuous, text)
    if "∯" in text or _NUMBERED_REFERENCE.search(text):
        text = re.sub(rules.NUMBERED_REFERENCE_REGEX, r"∯\2\r\7", text)
    if _DOTTED_NAME.search(text):
        text = _apply(text, [rules.Abbreviation.WithMultiplePeriodsAndEmailRule])
    if "°" in text:
        text = _apply(text, [rules.GeoLocationRule])
    if _FILE_FORMAT.search(text):
        text = _apply(text, [rules.FileFormatRule])
    if '"' in text or "”" in text:
        text = re.sub(rules.PARENS_BETWEEN_DOUBLE_QUOTES_REGEX, _parens_between_quotes, text)
    return None if "\r" in text else text


def _abbreviations(text: str, plan: _Plan) -> str:
    """pysbd's ``AbbreviationReplacer.replace`` on one line, each of its steps run only
    when what it looks for is present; its search for abbreviations is given only
    those followed by a period after whitespace (the others cannot change the text)."""
    rules = plan.rules
    if _POSSESSIVE in text:
        text = _apply(text, [rules.PossessiveAbbreviationRule])
    if _KOMMANDITGESELLSCHAFT.search(text):
        text = _apply(text, [rules.KommanditgesellschaftRule])
    if _SINGLE_CAPITAL.search(text):
        text = _apply(text, rules.SingleLetterAbbreviationRules.All)
    if plan.abbreviations.search(text):
        listed = with_abbreviations(rules, _abbreviations_before_periods(text, plan))
        text = plan.replacer(text, listed).search_for_abbreviations_in_string(text)
    if _MULTI_PERIOD.search(text):
        replacer = plan.replacer(text, rules)
        replacer.replace_multi_period_abbreviations()
        text = replacer.text
    if "∯" in text:
        text = _apply(text, rules.AmPmRules.All)
        text = plan.replacer(text, rules).replace_abbreviation_as_sentence_boundary()
    return text


def _abbreviations_before_periods(text: str, plan: _Plan) -> tuple[str, ...]:
    """The abbreviations of the plan's rules that can take part in pysbd's search in
    ``text``: the dotted ones, and each one written after whitespace (or at the
    start) and followed by a period."""
    words = set()
    for match in plan.abbreviations.finditer(text):
        start = end = match.start()
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        words.add(text[start:end].lower())
    return tuple(a for a in plan.rules.Abbreviation.ABBREVIATIONS if "." in a or a.strip() in words)


@lru_cache(maxsize=4096)
def with_abbreviations(rules: Any, abbreviations: tuple[str, ...]) -> Any:
    """``rules`` with only ``abbreviations`` in their abbreviation list."""
    listed = type("Abbreviation", (rules.Abbreviation,), {"ABBREVIATIONS": list(abbreviations)})
    return type(rules.__name__, (rules,), {"Abbreviation": listed})


def _lists(text: str) -> str:
    """pysbd's ``ListItemReplacer.add_line_break``, each of its steps run only when at
    least two of the list items it looks for are present: pysbd rewrites an item only
    when it finds the one before or after it in the list, so a lone item is left."""
    from pysbd.lists_item_replacer import ListItemReplacer

    lists = ListItemReplacer(text)
    if _two_or_more(_LETTER_ITEM, lists.text):
        lists.add_line_breaks_for_alphabetical_list_with_periods(roman_numeral=False)
    if _two_or_more(_LETTER_PAREN, lists.text):
        lists.add_line_breaks_for_alphabetical_list_with_parens(roman_numeral=False)
    if _two_or_more(_LETTER_ITEM, lists.text):
        lists.add_line_breaks_for_alphabetical_list_with_periods(roman_numeral=True)
    if _two_or_more(_ROMAN_PAREN, lists.text):
        lists.add_line_breaks_for_alphabetical_list_with_parens(roman_numeral=True)
    if _two_or_more(_NUMBERED_ITEM, lists.text):
        lists.format_numbered_list_with_periods()
    if _two_or_more(_NUMBERED_PAREN, lists.text):
        lists.format_numbered_list_with_parens()
    result: str = lists.text
    return result


def _two_or_more(pattern: re.Pattern[str], text: str) -> bool:
    """Whether ``pattern`` matches ``text`` at least twice (each list item pysbd finds
    holds its own match of the item's test)."""
    found = pattern.finditer(text)
    return next(found, None) is not None and next(found, None) is not None


def _segment_rules(segment: str, rules: Any) -> str:
    """The rules pysbd applies to each segment before looking for punctuation."""
    if _ELLIPSIS.search(segment):
        segment = _apply(segment, [rules.SingleNewLineRule, *rules.EllipsisRules.All])
    return segment


def _process_text(text: str, plan: _Plan) -> list[str]:
    """pysbd's ``Processor.process_text``: the segment cut into sentences."""
    from pysbd.exclamation_words import ExclamationWords
    from pysbd.lists_item_replacer import ListItemReplacer

    rules = plan.rules
    if text[-1] not in plan.punctuations:
        text += "ȸ"
    if "!" in text or "ǃ" in text:
        text = ExclamationWords.apply_rules(text)
    if "--" in text or _BETWEEN_TRIGGERS.search(text):
        text = _between_punctuation(text, plan)
    if "?" in text or "!" in text:
        double = rules.DoublePunctuationRules
        if not re.match(double.DoublePunctuation, text):
            text = _apply(text, double.All)
        text = _apply(text, [rules.QuestionMarkInQuotationRule, *rules.ExclamationPointRules.All])
    if "(" in text:
        text = ListItemReplacer(text).replace_parens()
    if "&" in text:
        text = re.sub(r"&ᓴ&$", "!", text)
    pieces: list[str] = plan.boundary.findall(text)  # the pattern has no groups
    return pieces


def _post_processed(piece: str, rules: Any) -> list[str]:
    """pysbd's ``Processor.post_process_segments``, empty results left out."""
    if len(piece) > 2 and _LETTERS_ONLY.search(piece):
        return [piece]
    if _ELLIPSIS_SYMBOLS.search(piece):
        piece = _apply(piece, rules.ReinsertEllipsisRules.All)
    if re.search(rules.QUOTATION_AT_END_OF_SENTENCE_REGEX, piece):
        # pysbd keeps every part of such a split, empty ones included
        return re.split(rules.SPLIT_SPACE_QUOTATION_AT_END_OF_SENTENCE_REGEX, piece)
    stripped = piece.replace("\n", "").strip()
    return [stripped] if stripped else []


def _continuous(match: re.Match[str]) -> str:
    return match.group().replace("!", "&ᓴ&").replace("?", "&ᓷ&")


def _parens_between_quotes(match: re.Match[str]) -> str:
    spaced = re.sub(r"\s(?=\()", "\r", match.group())
    return re.sub(r"(?<=\))\s", "\r", spaced)


def _apply(text: str, rules: Any) -> str:
    """pysbd's ``Text.apply``: each rule's substitution in turn (a rule whose pattern
    is plain text absent from the text is skipped)."""
    for rule in rules:
        literal, pattern = _compiled(rule.pattern)
        if literal is None or literal in text:
            text = pattern.sub(rule.replacement, text)
    return text


@cache
def _compiled(pattern: str) -> tuple[str | None, re.Pattern[str]]:
    """``pattern`` compiled, and its text when it matches only that text."""
    literal = None if _METACHARACTERS.search(pattern) else pattern
    return literal, re.compile(pattern)


_METACHARACTERS = re.compile(r"[\\.^$*+?{}\[\]|()]")


def _between_punctuation(text: str, plan: _Plan) -> str:
    """pysbd's pass protecting punctuation between quotes and brackets, each of its
    substitutions run only when the character its pattern opens with is present."""
    from pysbd.between_punctuation import BetweenPunctuation

    between = plan.between
    if between is BetweenPunctuation:
        return _between_default(text, between)
    if plan.rules.iso_code == "ja" and between is plan.rules.__dict__.get("BetweenPunctuation"):
        for name, opening in _JAPANESE_SPANS:
            if opening in text:
                step = between(text)
                getattr(step, name)()
                text = step.text
        return text
    replaced: str = between(text).replace()
    return replaced


def _between_default(text: str, spans: Any) -> str:
    """pysbd's default pass (``BetweenPunctuation.replace``), its steps in order."""
    if _QUOTE_AFTER_SPACE.search(text):
        text = _single_quotes(text, spans)
    for opening, pattern in (
        ("‘", spans.BETWEEN_SINGLE_QUOTE_SLANTED_REGEX),
        ('"', spans.BETWEEN_DOUBLE_QUOTES_REGEX_2),
        ("[", spans.BETWEEN_SQUARE_BRACKETS_REGEX_2),
        ("(", spans.BETWEEN_PARENS_REGEX_2),
        ("«", spans.BETWEEN_QUOTE_ARROW_REGEX_2),
        ("--", spans.BETWEEN_EM_DASHES_REGEX_2),
        ("“", spans.BETWEEN_QUOTE_SLANTED_REGEX_2),
    ):
        if opening in text:
            text = re.sub(pattern, _protected, text)
    return text


def _single_quotes(text: str, spans: Any) -> str:
    """pysbd's ``sub_punctuation_between_single_quotes``."""
    leading = _quote_first(spans.WORD_WITH_LEADING_APOSTROPHE)
    if leading.search(text) and not re.search(r"'\s", text):
        return text
    between = _quote_first(spans.BETWEEN_SINGLE_QUOTES_REGEX)
    return between.sub(_protected_in_single_quotes, text)


@cache
def _quote_first(pattern: str) -> re.Pattern[str]:
    """``pattern``, which starts "(?<=\\s)'", written to start with its quote instead:
    "'(?<=\\s')" matches at the same places and is searched for much faster."""
    prefix = "(?<=\\s)'"
    if not pattern.startswith(prefix):
        return re.compile(pattern)
    return re.compile("'(?<=\\s')" + pattern[len(prefix) :])


_CHANGED_IN_SPANS = re.compile("[.。．！!?？'\\\\]")
"""What pysbd's ``replace_punctuation`` changes in a quoted span: its punctuation and
apostrophes become placeholders, and brackets and dashes are escaped then unescaped
(which gives them back unless a backslash is around)."""


def _protected(match: re.Match[str]) -> str:
    """pysbd's ``replace_punctuation`` of a quoted span."""
    return _replaced_punctuation(match, _PUNCTUATION_PLACEHOLDERS)


def _protected_in_single_quotes(match: re.Match[str]) -> str:
    """pysbd's ``replace_punctuation`` of a span between single quotes (whose
    apostrophes stay)."""
    return _replaced_punctuation(match, _PUNCTUATION_PLACEHOLDERS_SINGLE)


def _replaced_punctuation(match: re.Match[str], placeholders: dict[int, str]) -> str:
    """What pysbd's ``replace_punctuation`` makes of a span: without a backslash in it,
    its escaping and unescaping of brackets and dashes gives them back, so only the
    punctuation (and apostrophes) become placeholders; with one, pysbd's own function."""
    from pysbd.punctuation_replacer import replace_punctuation

    span = match.group()
    if _CHANGED_IN_SPANS.search(span) is None:
        return span
    if "\\" in span:
        single = placeholders is _PUNCTUATION_PLACEHOLDERS_SINGLE
        replaced: str = replace_punctuation(match, match_type="single" if single else None)
        return replaced
    return span.translate(placeholders)


_PUNCTUATION_PLACEHOLDERS_SINGLE = str.maketrans(
    {".": "∯", "。": "&ᓰ&", "．": "&ᓱ&", "！": "&ᓳ&", "!": "&ᓴ&", "?": "&ᓷ&", "？": "&ᓸ&"}
)
_PUNCTUATION_PLACEHOLDERS = {**_PUNCTUATION_PLACEHOLDERS_SINGLE, ord("'"): "&⎋&"}


_QUOTE_AFTER_SPACE = re.compile(r"'(?<=\s')")
_JAPANESE_SPANS = (
    ("sub_punctuation_between_parens_ja", "（"),
    ("sub_punctuation_between_quotes_ja", "「"),
)


@cache
def _plan(rules: Any) -> _Plan | None:
    """The quick pass for ``rules``, or ``None`` for a language whose processor has
    steps this pass does not take (its own processor or extra boundary rules)."""
    from pysbd.abbreviation_replacer import AbbreviationReplacer
    from pysbd.between_punctuation import BetweenPunctuation

    unknown = ("Processor", "ReplaceColonBetweenNumbersRule", "ReplaceNonSentenceBoundaryCommaRule")
    if any(hasattr(rules, name) for name in unknown):
        return None
    abbreviations = [a.strip() for a in rules.Abbreviation.ABBREVIATIONS]
    if not all(re.fullmatch(r"[a-z.]+", a) for a in abbreviations):
        return None
    return _Plan(
        rules=rules,
        abbreviations=_abbreviation_periods(abbreviations),
        boundary=re.compile(rules.SENTENCE_BOUNDARY_REGEX),
        punctuation=re.compile("[" + re.escape("".join(rules.Punctuations)) + "]"),
        quotation_at_end=re.compile(rules.QUOTATION_AT_END_OF_SENTENCE_REGEX),
        punctuations=tuple(rules.Punctuations),
        between=getattr(rules, "BetweenPunctuation", BetweenPunctuation),
        replacer=getattr(rules, "AbbreviationReplacer", AbbreviationReplacer),
    )


def _abbreviation_periods(abbreviations: list[str]) -> re.Pattern[str]:
    """A pattern finding a period right after an abbreviation that follows whitespace
    or starts the line, case ignored, the dots of dotted abbreviations matching any
    character (as pysbd's own search for them does); grouped by length, as a
    look-behind must have a fixed width."""
    by_length: dict[int, list[str]] = {}
    for abbreviation in abbreviations:
        by_length.setdefault(len(abbreviation), []).append(abbreviation)
    behind = "|".join(
        rf"(?<=(?<!\S)(?:{'|'.join(words)})\.)" for _, words in sorted(by_length.items())
    )
    return re.compile(rf"\.(?:{behind})", re.IGNORECASE)
