"""A file from a spreadsheet read as text: UTF-8 with or without BOM, UTF-16, else
Windows-1252; refused, with its line, when it is a workbook, binary, undecodable, or already
broken (U+FFFD)."""

from __future__ import annotations

import codecs

import pytest

from mesa.tournament.i18n import refusal_of
from mesa.tournament.text_files import TextFileError, check_text, decode_text

TEXT = "nombre;puntos\r\nJOSÉ LUIS MARTÍNEZ;2,30\r\nBEGOÑA ÁLVAREZ;1,95\r\nÜRSULA «LA» ÑÚ;0,10\r\n"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (TEXT.encode("cp1252"), "windows-1252"),
        (TEXT.encode("utf-8"), "utf-8"),
        (codecs.BOM_UTF8 + TEXT.encode("utf-8"), "utf-8-sig"),
        (TEXT.encode("utf-16"), "utf-16"),  # Excel's "Unicode text" (with its BOM)
        ("ascii only;1\n".encode("cp1252"), "utf-8"),
        # Windows-1252's own letters beyond Latin-1: € and the curly quotes Excel writes.
        ("“EL €URO”;1\n".encode("cp1252"), "windows-1252"),
    ],
)
def test_every_encoding_a_spreadsheet_writes_reads_back_whole(data: bytes, encoding: str) -> None:
    got = decode_text(data)
    assert got.encoding == encoding
    assert got.text == data.decode({"windows-1252": "cp1252"}.get(encoding, encoding))
    assert "\ufffd" not in got.text and not got.text.startswith("\ufeff")


@pytest.mark.parametrize(
    ("data", "reason", "line"),
    [
        ("a;1\nJOS\ufffd;2\n".encode(), "text_replacement", 2),
        (b"PK\x03\x04\x14\x00", "text_workbook", None),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1xx", "text_workbook", None),
        (b"a;1\nb;2\n\x00", "text_binary", 3),
        (b"a;1\n\x81;2\n", "text_undecodable", 2),  # undefined in Windows-1252
        (codecs.BOM_UTF8 + b"a;1\nJOS\xc9;2\n", "text_undecodable", 2),  # a BOM says UTF-8
    ],
)
def test_a_file_that_would_make_broken_names_is_refused(data: bytes, reason: str,
                                                        line: int | None) -> None:
    with pytest.raises(TextFileError) as e:
        decode_text(data)
    assert e.value.reason == reason and e.value.params.get("line") == line
    assert e.value.code == "bad_text_file"
    for lang in ("es", "en"):
        said = refusal_of(e.value, lang)
        assert "{" not in said and (line is None or str(line) in said)


def test_pasted_text_with_lost_characters_is_refused_too() -> None:
    assert check_text("\ufeffa;1\n") == "a;1\n"
    with pytest.raises(TextFileError) as e:
        check_text("a;1\nb;2\nc\ufffd;3")
    assert e.value.params == {"line": 3}
