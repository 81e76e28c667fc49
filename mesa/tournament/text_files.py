"""A text file as a director brings it from a spreadsheet: its bytes read as UTF-8 (with or
without a byte order mark), UTF-16 (Excel's "Unicode text") or, failing UTF-8, Windows-1252
(what Spanish Excel writes for "CSV (delimitado por comas)"). A file that cannot be read as any
of them, that is a workbook rather than text, or whose text holds U+FFFD (characters already
lost before the file reached us) is refused with its line: importing it would create players
with broken names.

>>> decode_text("José;2,30\\n".encode("cp1252"))
DecodedText(text='José;2,30\\n', encoding='windows-1252')
>>> decode_text(b"\\xef\\xbb\\xbfJos\\xc3\\xa9;2,30\\n")
DecodedText(text='José;2,30\\n', encoding='utf-8-sig')
>>> decode_text("nombre;puntos\\nJos\\ufffd;1\\n".encode("utf-8"))
Traceback (most recent call last):
...
mesa.tournament.text_files.TextFileError: line 2 holds U+FFFD (a character lost before the file was saved)
>>> check_text("\\ufeffnombre;puntos\\n")
'nombre;puntos\\n'
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from mesa.tournament.errors import TournamentError

# How each encoding is named to the director (the preview says how the file was read).
ENCODING_NAMES = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8 (BOM)", "utf-16": "UTF-16",
                  "windows-1252": "Windows-1252"}
# A workbook is not text: its first bytes say so (xlsx/ods are zip files; xls is OLE2).
_WORKBOOKS = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")
REPLACEMENT = "\ufffd"


class TextFileError(TournamentError):
    """The file cannot be read as text, or its text is already broken; nothing was imported."""

    code = "bad_text_file"


@dataclass(frozen=True)
class DecodedText:
    text: str
    encoding: str  # a key of ENCODING_NAMES

    @property
    def encoding_name(self) -> str:
        return ENCODING_NAMES[self.encoding]


def _line_of(data: bytes, offset: int) -> int:
    return data[:offset].count(b"\n") + 1


def decode_text(data: bytes) -> DecodedText:
    """The file's text and the encoding it was read with; :class:`TextFileError` if none fits.

    A file that is valid UTF-8 is taken as UTF-8: Windows-1252 text with accents is almost
    never valid UTF-8 (an accented letter is one byte ≥ 0x80 between ASCII ones).
    """
    if data.startswith(_WORKBOOKS):
        raise TextFileError("a spreadsheet workbook, not a text file", reason="text_workbook")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _checked(data, "utf-16")
    if data.startswith(codecs.BOM_UTF8):
        return _checked(data, "utf-8-sig")  # the mark says UTF-8: no guessing after it
    if b"\x00" in data:
        raise TextFileError("not a text file (it holds NUL bytes)", reason="text_binary",
                            line=_line_of(data, data.index(b"\x00")))
    try:
        return _checked(data, "utf-8")
    except TextFileError as e:
        if e.reason != "text_undecodable":
            raise
    return _checked(data, "windows-1252")


def _checked(data: bytes, encoding: str) -> DecodedText:
    codec = "cp1252" if encoding == "windows-1252" else encoding
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as e:
        raise TextFileError(f"line {_line_of(data, e.start)} is not {ENCODING_NAMES[encoding]}",
                            reason="text_undecodable", line=_line_of(data, e.start),
                            encoding=ENCODING_NAMES[encoding]) from None
    return DecodedText(check_text(text), encoding)


def check_text(text: str) -> str:
    """``text`` without a leading byte order mark; :class:`TextFileError` if it holds U+FFFD
    (a pasted text, or a file a program read with the wrong encoding before saving it)."""
    text = text.removeprefix("\ufeff")
    at = text.find(REPLACEMENT)
    if at >= 0:
        line = text.count("\n", 0, at) + 1
        raise TextFileError(f"line {line} holds U+FFFD (a character lost before the file was "
                            "saved)", reason="text_replacement", line=line)
    return text
