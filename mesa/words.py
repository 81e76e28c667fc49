"""The words machinery every package shares: the languages, checked catalogs, plurals, formats.

Each package keeps its own catalog (the table's, the domino table's, the tournament engine's,
the dashboard's) as a Python mapping in its ``i18n`` module, and builds it into one
:class:`Catalog` here. A catalog is checked when it is built: every key has every language of
:data:`LANGUAGES`, every language of a key has the same ``{placeholders}``, and a plural entry
is plural in every language. A gap raises :class:`CatalogError` at import, so a missing word
fails every test that imports the module, not a page in front of the director.

>>> words = Catalog({"players": {"es": Plural("{n} jugador", "{n} jugadores"),
...                              "en": Plural("{n} player", "{n} players")},
...                  "hello": {"es": "Hola, {name}", "en": "Hello, {name}"}})
>>> words.text("es", "hello", name="Ana"), words.text("en", "hello", name="Ana")
('Hola, Ana', 'Hello, Ana')
>>> [words.text("es", "players", n=n) for n in (0, 1, 2)]
['0 jugadores', '1 jugador', '2 jugadores']
>>> words.text("fr", "hello", name="Ana")   # an unknown language reads in Spanish
'Hola, Ana'
>>> words.text("es", "goodbye")              # an unknown key reads as itself, as in gettext
'goodbye'
>>> words.text("hello", "es")
Traceback (most recent call last):
...
TypeError: text(language, key) was given ('hello', 'es')

**The one lookup**: ``text(language, key, /, **values)``; the language comes first because the
caller knows it before it knows the words (a screen, a request, an export are in one language).
**An unknown key reads as itself**, gettext's rule for a missing message: a key built from what
a table reported (``"call." + why`` on a card) may name nothing, and the director's page or the
table's screen must not fail over it. A key written in the code cannot be missing: a test reads
every literal key of every lookup and template (``tests/test_words.py``,
``tests/hub/web/test_web_i18n.py``) and fails on one that no catalog has, and a catalog with a
gap does not build. **An unknown language** reads in Spanish, the club's language (HGV 1.6): a
language comes from a cookie or a settings file, and a screen must never go blank over it.

**Plurals** follow gettext's ``ngettext``: a :class:`Plural` holds the singular and the plural
form, and the count given for its ``count`` placeholder picks one. Spanish and English share
the rule ``nplurals=2; plural=(n != 1)`` ("0 jugadores", "1 jugador", "2 jugadores"), which is
the rule :meth:`gettext.NullTranslations.ngettext` applies, so it is used as is.

**The clock and the points** are formatted here, once, for the table's screen, the hub's
pages and (mirrored in ``hub/web/static/live.js``, checked on the same vectors in Chromium)
the browser: see :func:`format_clock` and :func:`format_points`.
"""

from __future__ import annotations

import gettext
import math
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

LANGUAGES: tuple[str, ...] = ("es", "en")
DEFAULT_LANGUAGE = "es"
LANGUAGE_NAMES: Mapping[str, str] = {"es": "Español", "en": "English"}

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "LANGUAGE_NAMES", "Catalog", "CatalogError",
           "Entry", "Plural", "format_clock", "format_number", "format_points",
           "forms", "language", "placeholders"]

# Both languages pick their plural with n != 1: gettext's default rule is exactly that.
_PLURAL_RULE = gettext.NullTranslations()


@dataclass(frozen=True)
class Plural:
    """A word with a count: ``one`` when the count is 1, ``other`` otherwise (``ngettext``).

    ``count`` names the placeholder that carries the count (``n`` unless said otherwise). A
    sentence with two counts nests a second :class:`Plural` in a form (the sentence stays
    whole, as gettext asks, instead of being glued from pieces):

    >>> two = Plural(Plural("{a} mesa, {b} jugador", "{a} mesa, {b} jugadores", "b"),
    ...              Plural("{a} mesas, {b} jugador", "{a} mesas, {b} jugadores", "b"), "a")
    >>> two.pick({"a": 1, "b": 2}), two.pick({"a": 0, "b": 1})
    ('{a} mesa, {b} jugadores', '{a} mesas, {b} jugador')
    """

    one: Entry
    other: Entry
    count: str = "n"

    def pick(self, values: Mapping[str, Any]) -> str:
        """The form for the counts in ``values`` (a missing count raises ``KeyError``)."""
        singular = _PLURAL_RULE.ngettext("one", "other", values[self.count]) == "one"
        form = self.one if singular else self.other
        return form.pick(values) if isinstance(form, Plural) else form


Entry = str | Plural


class CatalogError(ValueError):
    """A catalog with a gap: a key without a language, or languages that disagree."""


def placeholders(template: str) -> set[str]:
    """The ``{names}`` a template expects.

    >>> sorted(placeholders("{a}-{b} a {length}"))
    ['a', 'b', 'length']
    """
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def forms(entry: Entry) -> tuple[str, ...]:
    """Every text an entry can read as (one for a text; each form of a plural).

    >>> forms(Plural("{n} mesa", "{n} mesas")), forms("Hola")
    (('{n} mesa', '{n} mesas'), ('Hola',))
    """
    if isinstance(entry, Plural):
        return forms(entry.one) + forms(entry.other)
    return (entry,)


def language(lang: str | None) -> str:
    """``lang`` if it is one of :data:`LANGUAGES`, else Spanish.

    >>> language("en"), language("fr"), language(None)
    ('en', 'es', 'es')
    """
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def _fields(entry: Entry) -> set[str]:
    """The placeholders of an entry, counts included; the forms of a plural must agree."""
    if isinstance(entry, Plural):
        one, other = _fields(entry.one), _fields(entry.other)
        if one != other:
            raise CatalogError(f"the forms differ in placeholders: {entry}")
        return one | {entry.count}
    if not isinstance(entry, str):
        raise CatalogError(f"not a text: {entry!r}")
    return placeholders(entry)


def _check(key: str, by_language: Mapping[str, Entry]) -> None:
    if set(by_language) != set(LANGUAGES):
        raise CatalogError(f"{key}: languages {sorted(by_language)}, want {sorted(LANGUAGES)}")
    first = by_language[DEFAULT_LANGUAGE]
    for lang, entry in by_language.items():
        if _fields(entry) != _fields(first):
            raise CatalogError(f"{key}: {lang} has {sorted(_fields(entry))}, "
                               f"{DEFAULT_LANGUAGE} has {sorted(_fields(first))}")
        if isinstance(entry, Plural) != isinstance(first, Plural):
            raise CatalogError(f"{key}: plural in one language only")


class Catalog(Mapping[str, Mapping[str, Entry]]):
    """Checked words, key → language → text or :class:`Plural`; read with :meth:`text`.

    A catalog is a read-only mapping of its entries (so ``key in catalog`` asks whether a key
    exists); ``Catalog(a, b)`` merges several sources, and a key given twice is refused.
    """

    def __init__(self, *sources: Mapping[str, Mapping[str, Entry]]) -> None:
        entries: dict[str, Mapping[str, Entry]] = {}
        for source in sources:
            for key, by_language in source.items():
                if key in entries:
                    raise CatalogError(f"{key} is given twice")
                _check(key, by_language)
                entries[key] = dict(by_language)
        self._entries = entries

    @classmethod
    def by_language(cls, tables: Mapping[str, Mapping[str, Entry]]) -> Catalog:
        """A catalog from language → key → text (the layout of the table's catalogs)."""
        keys: dict[str, dict[str, Entry]] = {}
        for lang, table in tables.items():
            for key, entry in table.items():
                keys.setdefault(key, {})[lang] = entry
        return cls(keys)

    def __getitem__(self, key: str) -> Mapping[str, Entry]:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def text(self, lang: str | None, key: str, /, **values: Any) -> str:
        """The words for ``key`` in ``lang`` with ``values`` filled in (see the module doc)."""
        entry = self._entries.get(key)
        if entry is None:
            if key in LANGUAGES:  # text(key, lang): the order of the older lookups
                raise TypeError(f"text(language, key) was given ({lang!r}, {key!r})")
            return key
        chosen = entry[language(lang)]
        if isinstance(chosen, Plural):
            chosen = chosen.pick(values)
        return chosen.format(**values) if values else chosen


# ── the clock ──────────────────────────────────────────────────────────────────────────────


def format_clock(seconds: float | None, *, tenths: bool = False) -> str:
    """A reserve or a countdown as ``m:ss`` (``h:mm:ss`` from an hour), ROUNDED DOWN.

    The rule: a clock shows the time the player still has, never more. 59.5 s left reads
    ``0:59`` on the table, the dashboard and the browser: the player has 59 whole seconds and a
    half; showing ``1:00`` would promise half a second that is not there. Rounding down is what
    the table has always done on its own screen, and the table is the clock of record (the
    flag falls there); the hub's pages copy it so a director and a player reading the same
    reserve read the same figure. With ``tenths`` (the table's main figure) the last ten
    seconds show tenths, also rounded down, so ``0.0`` shows only in the last tenth before the
    flag. Elapsed times ("silent for …") round down too: 59.5 s is not yet a minute.

    ``None`` or a figure that is not finite reads ``—``; a negative one reads zero.

    >>> format_clock(59.5), format_clock(600.0), format_clock(3725.9), format_clock(-3)
    ('0:59', '10:00', '1:02:05', '0:00')
    >>> format_clock(9.96, tenths=True), format_clock(59.99, tenths=True), format_clock(None)
    ('9.9', '0:59', '—')
    """
    if seconds is None or not math.isfinite(seconds):
        return "—"
    s = max(0.0, float(seconds))
    # The small lift absorbs a float that is a hair under a whole (60 - 0.1 * 10 steps).
    if tenths and (t := math.floor(s * 10 + 1e-9)) < 100:
        return f"{t // 10}.{t % 10}"
    whole = math.floor(s + 1e-9)
    h, rest = divmod(whole, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


# ── numbers and points ─────────────────────────────────────────────────────────────────────


def format_number(value: float | None, lang: str, decimals: int = 2, *,
                  grouping: bool = True) -> str:
    """A number with the language's decimal mark and, by default, thousands grouped.

    Spanish writes ``1.534,26``, English ``1,534.26``. ``grouping=False`` leaves the thousands
    ungrouped, for files a program reads back (the ranking CSV is parsed by
    ``mesa.tournament.points.parse_points``, which takes one decimal mark and no grouping).

    >>> format_number(1534.256, "es"), format_number(1534.256, "en")
    ('1.534,26', '1,534.26')
    >>> format_number(1534.256, "es", grouping=False), format_number(None, "es")
    ('1534,26', '—')
    """
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    out = f"{value:{',' if grouping else ''}.{decimals}f}"
    if language(lang) == "es":
        out = out.replace(",", "\x00").replace(".", ",").replace("\x00", ".")
    return out


def format_points(hundredths: float | None, lang: str, *, grouping: bool = True) -> str:
    """Tournament points kept in hundredths (HGV 7.5), with two decimals: 230 → ``2,30``.

    Past a thousand the thousands are grouped as the language writes them (``1.234,56``,
    ``1,234.56``); ``grouping=False`` is for files read back by a program (see
    :func:`format_number`). Exact: hundredths are whole numbers (a float is rounded to one).

    >>> format_points(230, "es"), format_points(230, "en"), format_points(-8, "es")
    ('2,30', '2.30', '-0,08')
    >>> format_points(123456, "es"), format_points(123456, "en")
    ('1.234,56', '1,234.56')
    >>> format_points(123456, "es", grouping=False), format_points(None, "es")
    ('1234,56', '—')
    """
    if hundredths is None:
        return "—"
    sign = "-" if hundredths < 0 else ""
    whole, cents = divmod(abs(round(hundredths)), 100)
    es = language(lang) == "es"
    figures = f"{whole:,}" if grouping else str(whole)
    if es:
        figures = figures.replace(",", ".")
    return f"{sign}{figures}{',' if es else '.'}{cents:02d}"
