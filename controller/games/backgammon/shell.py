"""``mesa sim`` at a backgammon table: the terminal's keys and footer, and the window's keys.

>>> KEYS_HELP[0][:5]
'keys:'
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any

KEYS_HELP = (  # two lines: the terminal simulator fits 80 columns
    "keys: a/l press A/B · A/L hold A/B · space both held · c cube · p pause",
    "      1/2 card A/B · 0 unknown card · q quit",
)


def run_ui(sim: Any, ui: str, args: argparse.Namespace, stop: threading.Event) -> None:
    """The simulator's ``terminal`` or ``window`` user interface, until ``stop``."""
    if ui == "terminal":
        _terminal(sim, args, stop)
    else:
        _window(sim, args, stop)


def footer(sim: Any, outputs: Any) -> Any:
    from mesa.controller.games.backgammon.oled import compose

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
    device = TerminalDevice(w, h, footer=footer(sim, outputs))
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
