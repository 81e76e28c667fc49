"""What every ``mesa`` command shares: one help style, the options several commands take under
one name, and passwords that never travel on the command line.

A command is made with :func:`add_command` (a one-line summary, a description, an example); an
option whose default is worked out when the command runs says so with :func:`default_text`.
:class:`HelpFormatter` writes every default the one way, ``(default: X)``, from the option's own
default or that text, so no help line spells a default by hand.

>>> p = argparse.ArgumentParser(prog="mesa x", formatter_class=HelpFormatter)
>>> _ = p.add_argument("--speed", type=float, default=30.0, help="how many times faster")
>>> default_text(p.add_argument("--db", help="the store"), "var/hub.sqlite3")
>>> add_log_level(p, "warning")
>>> " ".join(p.format_help().split())  # doctest: +ELLIPSIS
'usage: mesa x ... --speed SPEED how many times faster (default: 30) --db DB the store (default: var/hub.sqlite3) --log-level {debug,info,warning,error,critical} how much the log says (default: warning) -v, --verbose the same as --log-level debug'
>>> p.parse_args(["-v"]).log_level, p.parse_args(["--log-level", "ERROR"]).log_level
('debug', 'error')
"""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from mesa.errors import ConfigError

__all__ = [
    "LOG_LEVELS",
    "HelpFormatter",
    "add_command",
    "add_language",
    "add_log_level",
    "add_old_name",
    "add_password_options",
    "ask_new_password",
    "default_text",
    "log_level",
    "read_password",
    "read_password_file",
    "refuse",
    "summary_of",
]

LOG_LEVELS: tuple[str, ...] = ("debug", "info", "warning", "error", "critical")
WIDTH = 78  # the descriptions' width: RawDescriptionHelpFormatter keeps them as written

_DEFAULT_TEXT = "mesa_default_text"  # the Action attribute default_text() sets


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and examples as written; every option's default as ``(default: X)``.

    The default shown is the option's ``default_text`` (see :func:`default_text`) or its
    default; none is shown for a flag, a ``None`` default or an option without a value.
    """

    def _split_lines(self, text: str, width: int) -> list[str]:
        # As argparse does, but a path or a command name is never broken at its hyphens.
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = shown_default(action)
        if text is None or not action.help:
            return action.help
        return f"{action.help} (default: {text.replace('%', '%%')})"


def shown_default(action: argparse.Action) -> str | None:
    """The text of ``action``'s default as the help shows it, or None when none is shown.

    >>> p = argparse.ArgumentParser()
    >>> shown_default(p.add_argument("--size", type=str, default=(128, 64)))
    '128x64'
    >>> shown_default(p.add_argument("--fast", action="store_true")) is None
    True
    """
    text = getattr(action, _DEFAULT_TEXT, None)
    if text is not None:
        return str(text)
    value = action.default
    if not action.option_strings or action.nargs == 0:  # a positional, a flag
        return None
    if value is None or value is argparse.SUPPRESS or isinstance(value, bool):
        return None
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):  # a size: (128, 64)
        return "x".join(str(v) for v in value)
    return str(value)


def default_text(action: argparse.Action, text: str) -> None:
    """Show ``text`` as ``action``'s default: for a default the command works out when it runs
    (``None`` on the command line, a setting, an environment variable, a folder per table)."""
    setattr(action, _DEFAULT_TEXT, text)


def add_command(
    sub: Any,
    name: str,
    *,
    summary: str,
    description: str = "",
    examples: Sequence[str],
    aliases: Sequence[str] = (),
) -> argparse.ArgumentParser:
    """A subcommand of ``sub`` (what ``add_subparsers()`` returned) in the one style: its
    ``summary`` (one line, ``mesa --help`` lists it), then ``description`` (paragraphs separated
    by a blank line, wrapped here), its options, and ``examples``, command lines as written.

    >>> sub = argparse.ArgumentParser(prog="mesa").add_subparsers()
    >>> p = add_command(sub, "hub", summary="The hub", description="It runs.",
    ...                 examples=["mesa hub --db var/hub.sqlite3"], aliases=["web"])
    >>> print(p.format_help())  # doctest: +NORMALIZE_WHITESPACE
    usage: mesa hub [-h]
    The hub
    It runs.
    options:
      -h, --help  show this help message and exit
    example:
      mesa hub --db var/hub.sqlite3
    >>> sub.choices["web"] is p, summary_of(p)
    (True, 'The hub')
    """
    if not examples:
        raise ValueError(f"mesa {name}: a command shows at least one example")
    paragraphs = [summary, *(d for d in description.split("\n\n") if d.strip())]
    text = "\n\n".join(textwrap.fill(" ".join(par.split()), WIDTH, break_on_hyphens=False)
                         for par in paragraphs)
    label = "example:" if len(examples) == 1 else "examples:"
    epilog = "\n".join([label, *(f"  {e}" for e in examples)])
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        aliases=list(aliases),
        help=summary,
        description=text,
        epilog=epilog,
        formatter_class=HelpFormatter,
    )
    return parser


def summary_of(parser: argparse.ArgumentParser) -> str:
    """A command's one-line summary: its description's first paragraph, on one line."""
    return " ".join((parser.description or "").split("\n\n", 1)[0].split())


# ── one name for each shared option ─────────────────────────────────────────
class _Alias(argparse.Action):
    """An old spelling that still works (``--lang``): it sets the new option's value and says,
    on standard error, what the option is called now. Hidden from the help."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, new: str,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"{parser.prog}: {option_string} is now {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_old_name(parser: argparse.ArgumentParser, old: str, option: argparse.Action) -> None:
    """``old`` keeps working as another name of ``option`` (hidden from the help; using it says
    on standard error what the option is called now)."""
    same: dict[str, Any] = {"type": option.type} if option.type is not None else {}
    parser.add_argument(old, dest=option.dest, choices=option.choices, metavar=option.metavar,
                        default=argparse.SUPPRESS, help=argparse.SUPPRESS, action=_Alias,
                        new=option.option_strings[-1], **same)


def add_language(
    parser: argparse.ArgumentParser,
    default: str | None,
    *,
    help: str,
    languages: Sequence[str] = ("es", "en"),
) -> argparse.Action:
    """``--language`` (``--lang``, its old name on ``mesa demo``, still works); returns it.

    >>> p = argparse.ArgumentParser(prog="mesa demo")
    >>> _ = add_language(p, "es", help="the language")
    >>> p.parse_args([]).language, p.parse_args(["--language", "en"]).language
    ('es', 'en')
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     p.parse_args(["--lang", "en"]).language
    'en'
    >>> err.getvalue()
    'mesa demo: --lang is now --language\\n'
    """
    action = parser.add_argument("--language", choices=tuple(languages), default=default,
                                 help=help)
    add_old_name(parser, "--lang", action)
    return action


def add_log_level(parser: argparse.ArgumentParser, default: str) -> None:
    """``--log-level`` (``-v``/``--verbose``: the same as ``--log-level debug``)."""
    parser.add_argument("--log-level", type=str.lower, choices=LOG_LEVELS, default=default,
                        help="how much the log says")
    parser.add_argument("-v", "--verbose", dest="log_level", action="store_const",
                        const="debug", default=argparse.SUPPRESS,
                        help="the same as --log-level debug")


def log_level(name: str) -> int:
    """The :mod:`logging` level of a ``--log-level`` name.

    >>> log_level("debug") == logging.DEBUG, log_level("warning") == logging.WARNING
    (True, True)
    """
    level = logging.getLevelName(name.upper())
    return level if isinstance(level, int) else logging.INFO


# ── passwords: a prompt, a file or the environment, never an argument ──────
class _Refused(argparse.Action):
    """An option that is never taken: the parser stops with ``message``."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, message: str,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.message = message

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        parser.error(f"{option_string} {self.message}")


def refuse(parser: argparse.ArgumentParser, option: str, message: str) -> None:
    """``option`` stops the parser with ``message`` (hidden from the help). Declared, it also
    keeps argparse from reading it as an abbreviation of a longer option."""
    parser.add_argument(option, nargs="?", dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS, action=_Refused, message=message)


def add_password_options(
    parser: argparse.ArgumentParser, *, env: str, prompt: bool, otherwise: str | None = None
) -> argparse.Action:
    """``--password-file FILE`` (``-``: standard input), else the environment variable ``env``,
    else (``prompt``) a prompt in a terminal, else ``otherwise`` (what the command does without
    one); ``--password VALUE`` is refused with how to give it. Returns ``--password-file``.

    >>> p = argparse.ArgumentParser(prog="mesa director-password")
    >>> _ = add_password_options(p, env="MESA_WEB_DIRECTOR_PASSWORD", prompt=True)
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.suppress(SystemExit):
    ...     p.parse_args(["--password", "verde"])
    >>> print(err.getvalue().splitlines()[-1])  # doctest: +NORMALIZE_WHITESPACE
    mesa director-password: error: --password is not taken on the command line, where ps and
    the shell's history show it: use --password-file FILE (- for standard input), the
    environment variable MESA_WEB_DIRECTOR_PASSWORD, or the prompt (run it in a terminal)
    """
    ways = ["--password-file FILE (- for standard input)", f"the environment variable {env}"]
    ways += ["the prompt (run it in a terminal)"] if prompt else []
    said = ", ".join(ways[:-1]) + f"{',' if len(ways) > 2 else ''} or {ways[-1]}"
    said += f"; without one, {otherwise}" if otherwise else ""
    action = parser.add_argument(
        "--password-file",
        type=Path,
        metavar="FILE",
        help="read the password from the first line of FILE (- for standard input)",
    )
    shown = [env, *(["asked for in a terminal"] if prompt else []),
             *([otherwise] if otherwise else [])]
    default_text(action, ", else ".join(shown))
    refuse(parser, "--password", "is not taken on the command line, where ps and the shell's "
           f"history show it: use {said}")
    return action


def read_password_file(path: Path, stdin: IO[str] | None = None) -> str:
    """The first line of ``path`` (``-``: standard input) without its line ending.

    >>> import io
    >>> read_password_file(Path("-"), io.StringIO("verde\\r\\nmore\\n"))
    'verde'
    """
    try:
        if str(path) == "-":
            line = (stdin or sys.stdin).readline()
        else:
            with open(path, encoding="utf-8") as f:
                line = f.readline()
    except OSError as e:
        raise ConfigError(f"cannot read the password file {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"the password file {path} is not UTF-8 text") from None
    password = line.rstrip("\r\n")
    if not password:
        raise ConfigError(f"the password file {path} holds no password on its first line")
    return password


def read_password(
    args: argparse.Namespace,
    *,
    env: str,
    ask: Callable[[], str] | None = None,
    environ: Mapping[str, str] | None = None,
    stdin: IO[str] | None = None,
) -> str | None:
    """The password from ``--password-file``, else the environment variable ``env``, else
    ``ask()`` when standard input is a terminal; None when none of them gives one.

    >>> import io
    >>> args = argparse.Namespace(password_file=None)
    >>> read_password(args, env="PW", environ={"PW": "verde"})
    'verde'
    >>> read_password(args, env="PW", environ={}, ask=lambda: "rojo", stdin=io.StringIO()) is None
    True
    """
    stdin = stdin or sys.stdin
    if getattr(args, "password_file", None) is not None:
        return read_password_file(args.password_file, stdin)
    value = (os.environ if environ is None else environ).get(env)
    if value:
        return value
    if ask is not None and stdin.isatty():
        return ask()
    return None


def ask_new_password(user: str) -> str:
    """A new password typed twice at a terminal (not echoed); a ConfigError if they differ."""
    first = getpass.getpass(f"new password for {user}: ")
    if getpass.getpass("the same again: ") != first:
        raise ConfigError("the two passwords differ; nothing was changed")
    return first
