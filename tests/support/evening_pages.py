"""The dashboard as a director's browser sees it: the forms and links of a page, values a
director might type into a form, and which links to follow.

>>> route_of("/director/matches/KO-QF-2.json"), route_of("/players/P0003")
('/director/matches/{id}.json', '/players/{id}')
>>> p = parse_page('<form method="post" action="/director/actions/pause">'
...     '<input type="hidden" name="table" value="t1"><select name="why"><option value="break">'
...     'x</option></select></form><a href="/groups">g</a>')
>>> p.forms[0].name, p.forms[0].hidden, p.forms[0].selects, p.links
('pause', {'table': 't1'}, {'why': ['break']}, ['/groups'])
>>> twin("/players/P0001"), twin("/"), twin("/rankings?kind=rating"), crawlable("/events")
('/players/P0001.json', '/index.json', '/rankings.json?kind=rating', False)
"""

from __future__ import annotations

import random
import re
import urllib.parse
from dataclasses import dataclass, field
from html.parser import HTMLParser


def route_of(path: str) -> str:
    """A URL with its ids folded, for grouping violations by page."""
    path = urllib.parse.urlsplit(path).path
    return re.sub(
        r"^/(director/matches|director/tables|players)/[^/]+?(\.json)?$", r"/\1/{id}\2", path
    )


# ── pages and forms ──────────────────────────────────────────────────────────
@dataclass
class Form:
    action: str
    hidden: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, dict[str, str]] = field(default_factory=dict)
    selects: dict[str, list[str]] = field(default_factory=dict)
    textareas: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        path = urllib.parse.urlsplit(self.action).path
        return path.rsplit("/", 1)[-1] if "/director/actions/" in path else ""


class PageParser(HTMLParser):
    """The forms and the local links of a page (what a director can click)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self.links: list[str] = []
        self._form: Form | None = None
        self._select: str | None = None
        self._option: dict[str, str] | None = None
        self._option_text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "a" and a.get("href", "").startswith("/"):
            self.links.append(a["href"])
        elif tag == "form":
            self._form = Form(a.get("action", ""))
            self.forms.append(self._form)
        elif self._form is None:
            return
        elif tag == "input" and a.get("name"):
            if a.get("type") == "hidden":
                self._form.hidden[a["name"]] = a.get("value", "")
            else:
                self._form.inputs[a["name"]] = a
        elif tag == "select" and a.get("name"):
            self._select = a["name"]
            self._form.selects[self._select] = []
        elif tag == "option" and self._select is not None:
            self._option = a
            self._option_text = ""
        elif tag == "textarea" and a.get("name"):
            self._form.textareas.append(a["name"])

    def handle_data(self, data: str) -> None:
        if self._option is not None:
            self._option_text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "option" and self._option is not None and self._form and self._select:
            value = self._option.get("value", self._option_text.strip())
            self._form.selects[self._select].append(value)
            self._option = None
        elif tag == "select":
            self._select = None
        elif tag == "form":
            self._form = None


def parse_page(html: str) -> PageParser:
    p = PageParser()
    p.feed(html)
    p.close()
    return p


def fill(form: Form, rng: random.Random, *, step: int, length: int = 3) -> dict[str, str]:
    """Values a director might type into ``form``: hidden fields kept, a choice in every
    select, scores that end a match of ``length`` (now and then one that cannot), a reason."""
    out = dict(form.hidden)
    for name, opts in form.selects.items():
        out[name] = rng.choice(opts) if opts else ""
    for name in form.textareas:
        out[name] = "caos"
    for name, attrs in form.inputs.items():
        typ = attrs.get("type", "text")
        if typ == "checkbox":
            if rng.random() < 0.2:
                out[name] = attrs.get("value") or "1"
        elif name == "seconds":
            out[name] = str(rng.choice((-90, -30, 15, 60, 240)))
        elif name in ("a", "b"):
            current = int(attrs.get("value") or 0)
            out[name] = str(max(0, current + rng.choice((-1, 0, 0, 1))))
        elif name == "values":
            n = len([p for p in form.hidden.get("players", "").split(",") if p])
            out[name] = ",".join(str(d) for d in rng.sample(range(1, 7), min(6, max(n, 2))))
        elif typ == "number":
            out[name] = str(rng.randint(0, length))
        else:
            out[name] = f"caos {step}"
    if "score_a" in form.inputs and "score_b" in form.inputs:
        loser = rng.randrange(length)
        a, b = (length, loser) if rng.random() < 0.5 else (loser, length)
        if rng.random() < 0.1:
            a, b = length, length  # a score no match ends with: must be refused, not a 500
        out["score_a"], out["score_b"] = str(a), str(b)
    return out


def crawlable(link: str) -> bool:
    path = urllib.parse.urlsplit(link).path
    return not (
        path.startswith(("/events", "/lang/", "/logout", "/static/", "/login"))
        or path.endswith((".zip",))
    )


def twin(path: str) -> str | None:
    parts = urllib.parse.urlsplit(path)
    if parts.path.endswith(".json") or "." in parts.path.rsplit("/", 1)[-1]:
        return None
    twin = "/index.json" if parts.path == "/" else parts.path + ".json"
    return twin + ("?" + parts.query if parts.query else "")
