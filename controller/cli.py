"""``mesa controller``, ``mesa sim``, ``mesa hardware-check`` and ``mesa oled-refs``.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> register(sub)
>>> sorted(sub.choices)
['controller', 'hardware-check', 'oled-refs', 'sim']

Nothing heavy is imported here: each command imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

STARTED = time.monotonic()
log = logging.getLogger("mesa.controller")


def _logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a size is WIDTHxHEIGHT, not {text!r}") from None
    from mesa.controller.oled import SIZES

    if (w, h) not in SIZES:
        raise argparse.ArgumentTypeError(
            f"supported sizes: {', '.join(f'{a}x{b}' for a, b in SIZES)}"
        )
    return (w, h)


def _stop_on_signals(stop: threading.Event) -> None:
    def handler(signum: int, frame: Any) -> None:
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)


# ── mesa controller ────────────────────────────────────────────────────────
def _controller(args: argparse.Namespace) -> int:
    from mesa.controller.app import TableApp
    from mesa.controller.config import load_config
    from mesa.controller.sim_shell import link_factory
    from mesa.errors import ConfigError

    _logging(args.log_level)
    try:
        cfg = load_config(args.config)
        link_file = args.link or cfg.hub.link
        if link_file and Path(link_file).exists():
            from mesa.controller.enrol import with_link_table

            cfg = with_link_table(cfg, link_file)  # an adopted table's number is in its link
        hub = args.hub or (f"{cfg.hub.host}:{cfg.hub.port}" if cfg.hub.host else None)
        ns = argparse.Namespace(link=link_file, hub=hub, table_id=args.table_id or cfg.table.id)
        app: Any
        if cfg.table.game == "domino":
            from mesa.controller.domino_app import DominoTableApp

            app = DominoTableApp(cfg, link_factory=link_factory(ns, cfg.hub.outbox, "domino"))
        else:
            app = TableApp(cfg, link_factory=link_factory(ns, cfg.hub.outbox))
    except ConfigError as e:
        print(f"mesa controller: {e}", file=sys.stderr)
        return 2
    stop = threading.Event()
    _stop_on_signals(stop)
    app.start()
    try:
        stop.wait()
    finally:
        app.stop()
    return 0


# ── mesa sim ───────────────────────────────────────────────────────────────
ROBOTS = {"both": ("a", "b"), "a": ("a",), "b": ("b",), "none": ()}
KEYS_HELP = (  # two lines: the terminal simulator fits 80 columns
    "keys: a/l press A/B · A/L hold A/B · space both held · c cube · p pause",
    "      1/2 card A/B · 0 unknown card · q quit",
)


def _status_line(sim: Any, event: str, **extra: Any) -> str:
    rt = sim.runtime
    now = rt.now()
    view = rt.view(now)
    data: dict[str, Any] = {
        "event": event,
        "t": round(now, 4),
        "state": view.state,
        "match": view.match_id,
        "on_move": view.on_move,
        "reserve": {s: round(c.reserve, 4) for s, c in view.clocks.items()},
        "score": view.score,
        "game": view.game,
        "matches": sim.matches_ended,
    }
    data.update(extra)
    return json.dumps(data, ensure_ascii=False)


def _sim(args: argparse.Namespace) -> int:
    from mesa.controller.robots import FAST, RobotStyle
    from mesa.controller.sim import SimTable
    from mesa.controller.sim_shell import headless, link_factory, sim_outbox, start_info
    from mesa.errors import ConfigError

    _logging(args.log_level)
    if args.game == "domino":
        from mesa.controller.domino_cli import run_sim

        return run_sim(args, STARTED, _stop_on_signals)
    ui = "none" if args.headless else args.ui
    robots = ROBOTS[args.robots or ("both" if ui == "none" else "none")]
    style = FAST if args.fast else RobotStyle(ui=args.robot_ui)
    if args.fast and args.robot_ui != "menu":
        style = RobotStyle(**{**FAST.__dict__, "ui": args.robot_ui})
    players = tuple(args.players.split(",", 1)) if args.players else None
    try:
        factory = link_factory(args, sim_outbox(args))
    except ConfigError as e:
        print(f"mesa sim: {e}", file=sys.stderr)
        return 2
    sim = SimTable(
        args.table_id or "sim",
        speed=args.speed,
        seed=args.seed,
        robots=robots,
        style=style,
        journal_dir=args.journal,
        heartbeat=args.heartbeat,
        auto_assign=not (args.hub or args.link),
        length=args.length,
        language=args.language,
        matches=args.matches,
        players=players,
        buttons=ui == "window",
        link=factory,
    )
    stop = threading.Event()
    _stop_on_signals(stop)
    info = start_info(sim, STARTED)
    sim.start()
    try:
        if ui == "none":
            headless(
                args,
                stop,
                lambda event, **extra: _status_line(sim, event, **extra),
                info,
                lambda: args.matches is not None and sim.matches_ended >= args.matches,
            )
        elif ui == "terminal":
            _terminal(sim, args, stop)
        else:
            _window(sim, args, stop)
    finally:
        sim.stop()
    if ui == "none":
        print(_status_line(sim, "stop"), flush=True)
    return 0


def _footer(sim: Any, outputs: Any) -> Any:
    from mesa.controller.oled import compose

    def lines() -> list[str]:
        led = outputs.led_state
        beep = outputs.beeps[-1] if outputs.beeps else None
        lamps = "  ".join(
            f"{side.upper()} {'●' if led.get(side) == 'on' else '◐' if led.get(side) == 'blink' else '○'}"
            for side in ("a", "b")
        )
        buzz = f"buzzer: {beep.count}×" if beep else "buzzer: -"
        # The line to read, in plain text too: braille at 80 columns is a sketch of the OLED.
        rt = sim.runtime
        now = rt.now()
        screen = compose(rt.view(now), rt.status, now)
        words = (screen.pin or screen.banner or screen.big or screen.title).replace("\n", " ")
        return [f"{lamps}   {buzz}   t={now:.1f}   {words}"[:80], *KEYS_HELP]

    return lines


def _terminal(sim: Any, args: argparse.Namespace, stop: threading.Event) -> None:
    from mesa.controller.display import Display, TerminalDevice
    from mesa.controller.gpio import TableOutputs
    from mesa.controller.sim_shell import key_loop
    from mesa.engine.inputs import Input

    outputs = TableOutputs()
    sim.runtime.add_view_listener(outputs.update)
    sim.runtime.add_sink(outputs)
    w, h = args.size
    device = TerminalDevice(w, h, footer=_footer(sim, outputs))
    display = Display(sim.runtime, lambda: device, fps=10.0, idle_fps=4.0, size=args.size)
    rt = sim.runtime

    def cards() -> dict[str, str]:
        return dict(rt.table.s.cards)

    keys = {
        "a": Input("press", {"side": "a"}),
        "l": Input("press", {"side": "b"}),
        "A": Input("hold", {"side": "a"}),
        "L": Input("hold", {"side": "b"}),
        " ": Input("both_held"),
        "c": Input("cube"),
        "p": Input("pause_button"),
        "0": Input("card", {"card": "00UNKNOWN"}),
    }

    def on_key(ch: str) -> None:
        inp = keys.get(ch)
        if ch in ("1", "2"):
            card = cards().get("a" if ch == "1" else "b")
            inp = Input("card", {"card": card}) if card else None
        if inp is not None:
            rt.submit(inp, rt.now())

    key_loop(display, stop, on_key)


def _window(sim: Any, args: argparse.Namespace, stop: threading.Event) -> None:
    try:
        import tkinter as tk

        from PIL import ImageTk
    except ImportError as e:
        print(f"mesa sim: no window toolkit ({e}); use --ui terminal", file=sys.stderr)
        return
    from luma.core.device import dummy

    from mesa.controller.display import Display
    from mesa.controller.sim import WindowKeys

    w, h = args.size
    device = dummy(width=w, height=h, mode="1")
    display = Display(sim.runtime, lambda: device, fps=10.0, idle_fps=4.0, size=args.size)
    rt = sim.runtime
    try:
        root = tk.Tk()
    except tk.TclError as e:
        print(f"mesa sim: cannot open a window ({e}); use --ui terminal", file=sys.stderr)
        return
    root.title(f"Mesa · table {sim.table_id}")
    label = tk.Label(root, bg="black")
    label.pack()
    tk.Label(
        root,
        text="a / l: the clock buttons (hold them too) · c cube · p pause · "
        "1/2 card A/B · Esc quit",
    ).pack()
    keys = WindowKeys(rt, stop)

    def key(event: Any, pressed: bool) -> None:
        keys.key(event.char or event.keysym, event.keysym, pressed)

    root.bind("<KeyPress>", lambda e: key(e, True))
    root.bind("<KeyRelease>", lambda e: key(e, False))
    rt.submit_edge("a", False, rt.now(), initial=True)
    rt.submit_edge("b", False, rt.now(), initial=True)
    display.start()
    photo: list[Any] = []

    def refresh() -> None:
        if stop.is_set():
            root.destroy()
            return
        if device.image is not None:
            big = device.image.convert("L").resize((w * 4, h * 4))
            photo[:] = [ImageTk.PhotoImage(big)]
            label.configure(image=photo[0])
        root.after(50, refresh)

    refresh()
    try:
        root.mainloop()
    finally:
        display.stop()


# ── mesa hardware-check ────────────────────────────────────────────────────
def _hardware_check(args: argparse.Namespace) -> int:
    from mesa.controller.config import load_config
    from mesa.controller.hwcheck import PARTS, report, run_checks
    from mesa.errors import ConfigError

    _logging(args.log_level)
    try:
        cfg = load_config(args.config)
    except ConfigError as e:
        print(f"mesa hardware-check: {e}", file=sys.stderr)
        return 2
    only = set(args.only.split(",")) if args.only else None
    if only and only - set(PARTS):
        print(f"mesa hardware-check: parts are {', '.join(PARTS)}", file=sys.stderr)
        return 2

    def ask(question: str) -> bool:
        if args.yes:
            return True
        return input(f"{question} [y/n] ").strip().lower().startswith(("y", "s"))

    results = run_checks(cfg, only=only, ask=ask, timeout=args.timeout)
    print(report(results))
    return 0 if results and all(r.ok for r in results) else 1


# ── mesa oled-refs ─────────────────────────────────────────────────────────
def _oled_refs(args: argparse.Namespace) -> int:
    from mesa.controller.oled_scenes import write_references

    if args.game == "domino":
        from mesa.controller.oled_domino_scenes import write_references as domino_references

        out = Path(args.out if args.out != "docs/oled" else "docs/oled/domino")
        written = domino_references(out)
        print(f"{len(written)} files written to {out}")
        return 0
    written = write_references(Path(args.out))
    print(f"{len(written)} files written to {args.out}")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("controller", help="run the table on a Raspberry Pi (buttons, OLED, ...)")
    p.add_argument("--config", default="/etc/mesa/table.toml", help="the table's TOML file")
    p.add_argument("--link", help="the hub link file written by `mesa provision-table`")
    p.add_argument("--hub", metavar="HOST:PORT", help="the hub's broker (without --link)")
    p.add_argument("--table-id", help="this table's id (default: [table] id)")
    p.add_argument("--log-level", default="info")
    p.set_defaults(run=_controller)

    p = sub.add_parser("sim", help="the table on a laptop: emulated OLED, keys or robot players")
    p.add_argument("--game", choices=["backgammon", "domino"], default="backgammon",
                   help="the table's game (domino: four seats, robots for all four)")
    p.add_argument("--games", type=int, help="domino: stop after this many games")
    p.add_argument("--speed", type=float, default=1.0, help="time runs this many times faster")
    p.add_argument("--seed", type=int, default=0, help="the robots' random seed")
    p.add_argument(
        "--robots",
        choices=sorted(ROBOTS),
        help="who the robots play (default: both when headless, none otherwise)",
    )
    p.add_argument(
        "--robot-ui",
        choices=["menu", "buttons"],
        default="menu",
        help="robots use the menu inputs, or only the two buttons",
    )
    p.add_argument("--fast", action="store_true", help="quick robots, short games (demos, tests)")
    p.add_argument("--ui", choices=["terminal", "window", "none"], default="terminal")
    p.add_argument("--headless", action="store_true", help="no screen: print status lines")
    p.add_argument("--size", type=_size, default=(128, 64), help="emulated OLED, e.g. 128x32")
    p.add_argument("--journal", help="journal folder: a killed simulator resumes from it")
    p.add_argument("--heartbeat", type=float, default=1.0, help="journal heartbeat (table s)")
    p.add_argument("--length", type=int, default=3, help="match length of assigned matches")
    p.add_argument("--language", choices=["es", "en"], default="es")
    p.add_argument("--players", help="the two players' names, 'Ana,Beto'")
    p.add_argument("--matches", type=int, help="stop after this many matches")
    p.add_argument("--duration", type=float, help="stop after this many real seconds")
    p.add_argument(
        "--status-every",
        type=float,
        default=0.0,
        help="headless: print a status line every this many real seconds",
    )
    p.add_argument("--link", help="the hub link file written by `mesa provision-table`")
    p.add_argument("--hub", metavar="HOST:PORT", help="connect to the hub's broker")
    p.add_argument("--table-id", help="this table's id (default: sim)")
    p.add_argument("--log-level", default="warning")
    p.set_defaults(run=_sim)

    p = sub.add_parser("hardware-check", help="self-test a table's buttons, LEDs, display, ...")
    p.add_argument("--config", default="/etc/mesa/table.toml", help="the table's TOML file")
    p.add_argument("--only", help="comma-separated parts: buttons,leds,display,buzzer,card")
    p.add_argument("--timeout", type=float, default=15.0, help="seconds to wait for a person")
    p.add_argument("--yes", action="store_true", help="answer every question yes")
    p.add_argument("--log-level", default="warning")
    p.set_defaults(run=_hardware_check)

    p = sub.add_parser("oled-refs", help="write the OLED reference images (docs/oled)")
    p.add_argument("--out", default="docs/oled", help="the folder (default: docs/oled)")
    p.add_argument("--game", choices=["backgammon", "domino"], default="backgammon",
                   help="domino: the domino screens, into docs/oled/domino by default")
    p.set_defaults(run=_oled_refs)
