"""The table's journal: its state survives ``kill -9`` and a power cut at any instant.

>>> import tempfile
>>> from mesa.engine.inputs import Input
>>> from mesa.controller.runtime import ManualClock, TableRuntime
>>> folder = tempfile.mkdtemp()
>>> journal = Journal(folder, fsync=False)
>>> recovery = journal.recover()          # nothing there yet: a fresh table
>>> recovery.table.state, recovery.problems
('idle', [])
>>> clock = ManualClock()
>>> rt = TableRuntime(recovery.table, clock=clock, sinks=[journal])
>>> journal.open(rt.snapshot(), rt.now())
>>> rt.submit(Input("assign", {"match_id": "M", "players": {"a": "Ana", "b": "Beto"},
...                            "length": 3}), 0.0)
>>> _ = rt.step(); journal.close()
>>> again = Journal(folder, fsync=False).recover()
>>> again.table.state, again.table.s.players["b"]
('assigned', 'Beto')

Layout: a folder of *generations* ``journal-000001.jsonl``, ``journal-000002.jsonl``, … Each
starts with a snapshot of the table and continues with one line per input that changed the table
(replayed through the same pure :class:`~mesa.games.backgammon.machine.Table` on recovery) and a heartbeat
line every ``heartbeat`` seconds while a clock runs. A line is ``<crc32 hex> <json>``: a torn or
flipped line is detected, never trusted.

SD-friendly writes:

- Append-only, one short line per record (~60 bytes), no rewriting in place.
- **Compaction**: after a game or match ends (or past ``compact_bytes``) a new generation starts
  with a fresh snapshot; generations older than the previous one are deleted once the new one is
  durable, so the folder stays a few kilobytes.
- **fsync policy**: records that change the match (assignment, check-in, games, cube, results,
  pauses, director commands) are synced at once; ordinary turn ends and heartbeats are written at
  once (so ``kill -9`` loses nothing: they are in the page cache) but synced at most every
  ``sync_interval`` seconds (default 5 s, ext4's own commit interval, so this adds little wear
  beyond what the kernel does anyway). A power cut therefore loses at most ``sync_interval`` of
  turn ends and heartbeats: less than one delay, and time the restored table gives *back* to the
  player on move rather than takes.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import logging
import os
import re
import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mesa.controller.games import TableGame, as_table_game
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome

if TYPE_CHECKING:
    from mesa.controller.runtime import TableRuntime

log = logging.getLogger(__name__)

NAME = re.compile(r"^journal-(\d{6,})\.jsonl$")


def encode(record: dict[str, Any]) -> bytes:
    """One journal line.

    >>> encode({"k": "h", "n": 7, "t": 12.5})
    b'8ac356b9 {"k":"h","n":7,"t":12.5}\\n'
    """
    body = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return f"{zlib.crc32(body):08x} ".encode() + body + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """The record of one line (without its newline), or :class:`ValueError` saying why not."""
    if len(line) < 10 or line[8:9] != b" ":
        raise ValueError("not a journal line")
    try:
        crc = int(line[:8], 16)
    except ValueError:
        raise ValueError("no checksum") from None
    body = line[9:]
    if zlib.crc32(body) != crc:
        raise ValueError("checksum mismatch")
    try:
        record = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ValueError("not JSON") from None
    if not isinstance(record, dict) or record.get("k") not in ("s", "i", "h"):
        raise ValueError("unknown record")
    if not isinstance(record.get("n"), int) or not isinstance(record.get("t"), int | float):
        raise ValueError("record without sequence number or time")
    return record


@dataclass
class Recovery:
    """What :meth:`Journal.recover` found: the table, the last instant the journal knew, and
    what could not be used (empty when the journal was whole)."""

    table: Any  # the game's machine
    last_t: float | None
    generation: int = 0
    records: int = 0  # records replayed after the snapshot
    sequence: int = 0  # the last sequence number applied
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0  # how long reading and replaying took


@dataclass
class JournalStats:
    bytes_written: int = 0
    records: int = 0
    heartbeats: int = 0
    syncs: int = 0
    urgent: int = 0  # records that asked for a sync at once
    compactions: int = 0
    write_errors: int = 0


class Journal:
    """The table's journal, an :class:`~mesa.controller.ports.OutcomeSink` (see the module).

    The machine it journals is ``game``'s (a :class:`~mesa.controller.games.TableGame` or its
    name; backgammon by default): the game says which events close a chapter (a new generation
    starts after them), in which states heartbeats note the time, which records may wait for the
    periodic sync, and how a snapshot record becomes a machine again.
    """

    def __init__(
        self,
        directory: str | Path,
        *,
        heartbeat: float = 1.0,
        sync_interval: float = 5.0,
        compact_bytes: int = 256 * 1024,
        fsync: bool = True,
        settings: Any = None,
        game: TableGame | str = "backgammon",
    ) -> None:
        self.game = as_table_game(game)
        self.dir = Path(directory)
        self.heartbeat = heartbeat
        self.sync_interval = sync_interval
        self.compact_bytes = compact_bytes
        self.fsync = fsync
        self.settings = settings  # the game's machine settings (None: the game's defaults)
        self.stats = JournalStats()
        self._fd: int | None = None
        self._gen = 0
        self._seq = 0
        self._size = 0
        self._last_t: float | None = None
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._urgent = False
        self._dirty_since: float | None = None  # real time of the oldest unsynced write
        self._to_close: list[int] = []
        self._dir_dirty = False
        self._closing = False
        self._syncer: threading.Thread | None = None
        self._backlog: deque[bytes] = deque()  # records the disk could not take yet
        self.storage_error: str | None = None  # why, while it lasts

    # ── reading ─────────────────────────────────────────────────────────
    def generations(self) -> list[int]:
        if not self.dir.is_dir():
            return []
        found = []
        for p in self.dir.iterdir():
            m = NAME.match(p.name)
            if m:
                found.append(int(m.group(1)))
        return sorted(found)

    def path(self, gen: int) -> Path:
        return self.dir / f"journal-{gen:06d}.jsonl"

    def recover(self) -> Recovery:
        """Rebuild the table from the newest readable snapshot and the records after it.

        Reading stops at the first record that is unreadable or out of sequence; everything
        from there on is reported in ``problems``, never applied. A line cut short at the very end
        (a crash while writing) is expected and reported too.
        """
        started = time.perf_counter()
        gens = self.generations()
        problems: list[str] = []
        files: dict[int, list[tuple[int, dict[str, Any] | None, str]]] = {}
        for gen in gens:
            lines = self._read(gen, problems)
            if lines is not None:
                files[gen] = lines
        gens = sorted(files)  # a generation pruned while we listed them is simply gone
        base = None
        table: Any = None
        for gen in reversed(gens):
            lines = files[gen]
            record = lines[0][1] if lines else None
            if record is None or record["k"] != "s":
                problems.append(f"{self.path(gen).name}: its snapshot is unreadable")
                continue
            # A whole line (its CRC holds) can still carry a snapshot this table cannot use
            # (wrong types, a field of another version): skipped like an unreadable one.
            table, why = self._restore(record)
            if table is not None:
                base = gen
                break
            problems.append(f"{self.path(gen).name}: snapshot cannot be restored ({why})")
        if base is None or table is None:
            if gens:
                problems.append("no readable snapshot: starting with an empty table")
            rec = Recovery(self.fresh_machine(), None, 0, problems=problems)
            rec.seconds = time.perf_counter() - started
            return rec
        snap = files[base][0][1]
        assert snap is not None
        seq = snap["n"]
        last_t = float(snap["t"])
        applied = 0
        # The base generation's records, then those of newer generations whose own snapshot
        # was unreadable: their records still continue the same sequence.
        stream: list[tuple[int, int, dict[str, Any] | None, str]] = []
        for gen in gens:
            if gen < base:
                continue
            for i, (lineno, record, error) in enumerate(files[gen]):
                if i == 0 and gen == base:
                    continue
                if i == 0:
                    # A newer generation's unreadable snapshot took one sequence number.
                    stream.append((gen, lineno, {"k": "skip"}, ""))
                    continue
                stream.append((gen, lineno, record, error))
        for index, (gen, lineno, record, error) in enumerate(stream):
            where = f"{self.path(gen).name} line {lineno}"
            rest = len(stream) - index - 1
            if record is not None and record["k"] == "skip":
                seq += 1
                continue
            if record is None:
                tail = f"; {rest} record(s) after it not applied" if rest else ""
                problems.append(f"{where}: {error}{tail}")
                break
            if record["n"] != seq + 1:
                problems.append(
                    f"{where}: record {record['n']} follows {seq} (records missing); "
                    f"it and {rest} after it not applied"
                )
                break
            seq = record["n"]
            last_t = max(last_t, float(record["t"]))
            if record["k"] != "i":
                continue
            try:
                outcome = table.apply(
                    record.get("i", ""), record.get("a", {}), now=float(record["t"])
                )
            except Exception as e:  # a record the machine chokes on: stop here, like a bad line
                tail = f"; {rest} record(s) after it not applied" if rest else ""
                problems.append(f"{where}: cannot be replayed ({type(e).__name__}: {e}){tail}")
                break
            applied += 1
            if outcome.accepted != bool(record.get("ok", 1)) or len(outcome.events) != record.get(
                "e", 0
            ):
                problems.append(
                    f"{where}: {record.get('i')} replayed differently "
                    f"({'accepted' if outcome.accepted else 'refused'}, "
                    f"{len(outcome.events)} events)"
                )
        rec = Recovery(table, last_t, base, applied, seq, problems)
        rec.seconds = time.perf_counter() - started
        self._seq = seq  # the next generation continues the sequence
        return rec

    def _restore(self, snap: dict[str, Any]) -> tuple[Any, str]:
        """The machine of a snapshot record, tried out (a tick at its instant), or
        ``(None, why not)``: nothing in a file is trusted to have the right types."""
        try:
            probe = self.restore_machine(copy.deepcopy(snap))
            t = float(snap["t"])
            self.probe_machine(probe, t)
            return self.restore_machine(copy.deepcopy(snap)), ""
        except Exception as e:  # any failure at all means: not a snapshot we can stand on
            return None, f"{type(e).__name__}: {str(e)[:120]}"

    # ── the machine, through its game ───────────────────────────────────
    def fresh_machine(self) -> Any:
        """The machine a journal without a readable snapshot starts from."""
        return self.game.new_table(self.settings)

    def restore_machine(self, snap: dict[str, Any]) -> Any:
        """The machine of a snapshot record; raises when its settings or state are not what a
        table writes (types checked: a whole line, CRC and all, can still be wrong)."""
        return self.game.restore_machine(snap, self.settings)

    def machine_settings(self) -> dict[str, Any]:
        """What a snapshot record stores beside the state (``set``)."""
        return self.game.machine_settings(self.settings)

    def probe_machine(self, machine: Any, t: float) -> None:
        """Raise if a restored machine cannot run: its view, its snapshot and a tick at ``t``."""
        self.game.view(machine, t)
        machine.snapshot()
        outcome = machine.apply("tick", {}, now=t)
        if outcome.refusal is not None and outcome.refusal.code == "internal_error":
            raise ValueError(outcome.refusal.message)

    def _read(
        self, gen: int, problems: list[str]
    ) -> list[tuple[int, dict[str, Any] | None, str]] | None:
        try:
            data = self.path(gen).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            problems.append(f"{self.path(gen).name}: cannot be read ({e.strerror})")
            return []
        lines = data.split(b"\n")
        out: list[tuple[int, dict[str, Any] | None, str]] = []
        for lineno, line in enumerate(lines, start=1):
            last = lineno == len(lines)
            if last and not line:
                break  # the file ends with a newline, as it should
            if last:
                out.append((lineno, None, "the last record was cut short (a crash while writing)"))
                break
            try:
                out.append((lineno, decode(line), ""))
            except ValueError as e:
                out.append((lineno, None, f"corrupt record ({e})"))
        return out

    def attach(self, runtime: TableRuntime) -> Recovery | None:
        """Recover into ``runtime`` (before it starts) and journal everything it applies.

        Returns the :class:`Recovery` when there was a journal to restore from (the runtime
        then resumes paused, and the screen says so), None on a first start. The same as
        :meth:`prepare` followed by ``runtime.restore(recovery)``.
        """
        recovery = self.prepare(runtime)
        if recovery is not None:
            runtime.restore(recovery)
        return recovery

    def prepare(self, runtime: TableRuntime) -> Recovery | None:
        """Recover, start a new generation and become ``runtime``'s sink, without restoring yet:
        sinks added before ``runtime.restore(recovery)`` (the hub link) see the restore too."""
        had = bool(self.generations())
        recovery = self.recover()
        if had:
            now = recovery.last_t if recovery.last_t is not None else runtime.now()
            self.open(recovery.table.snapshot(), now)
            runtime.add_sink(self)
            return recovery
        self.open(runtime.snapshot(), runtime.now())
        runtime.add_sink(self)
        return None

    # ── writing ─────────────────────────────────────────────────────────
    def open(self, snapshot: dict[str, Any], now: float) -> None:
        """Start a new generation from ``snapshot`` (after :meth:`recover`) and start syncing."""
        self.dir.mkdir(parents=True, exist_ok=True)
        gens = self.generations()
        self._gen = gens[-1] if gens else 0
        with self._lock:
            self._new_generation(snapshot, now)
        if self._syncer is None:
            self._closing = False
            self._syncer = threading.Thread(
                target=self._sync_loop, name="mesa-journal", daemon=True
            )
            self._syncer.start()

    def _new_generation(self, snapshot: dict[str, Any], now: float) -> None:
        """(With the lock.) Write a snapshot into a new file; the old fd is synced, then closed."""
        path = self.path(self._gen + 1)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_TRUNC, 0o640)
        except OSError as e:
            if self._fd is None:
                raise  # the first generation: the journal cannot work at all
            # A full card: carry on in the current generation; compaction is retried later.
            self.stats.write_errors += 1
            log.error("journal: cannot start a new generation (%s)", e)
            return
        self._gen += 1
        if self._fd is not None:
            self._to_close.append(self._fd)
        self._fd = fd
        self._size = 0
        self._seq += 1
        settings = self.machine_settings()
        self._write(
            {"k": "s", "n": self._seq, "t": now, "g": self._gen, "set": settings, "st": snapshot},
            urgent=True,
        )
        self._last_t = now
        self._dir_dirty = True
        self.stats.compactions += 1

    def _write(self, record: dict[str, Any], urgent: bool) -> None:
        """(With the lock.) Append one record now; ask the syncer for a sync.

        A record the disk cannot take (full, failing) waits in memory with those after it and is
        written first, in order, as soon as there is room: the sequence never has a hole.
        """
        assert self._fd is not None
        line = encode(record)
        self._backlog.append(line)
        self._drain_backlog()
        if urgent:
            self._urgent = True
            self.stats.urgent += 1
        if self._dirty_since is None:
            self._dirty_since = time.monotonic()
        self._cond.notify()

    def _drain_backlog(self) -> None:
        """(With the lock.) Write what waits, oldest first; stop at the first failure."""
        while self._backlog and self._fd is not None:
            line = self._backlog[0]
            try:
                written = os.write(self._fd, line)
            except OSError as e:
                # A full or failing card: keep the clock running, keep the record, say so.
                self.stats.write_errors += 1
                if self.storage_error is None or self.stats.write_errors % 1000 == 0:
                    log.error(
                        "journal write failed (%d record(s) waiting): %s", len(self._backlog), e
                    )
                self.storage_error = str(e)
                return
            if written < len(line):  # a partial write at the edge of a full disk
                self._backlog[0] = line[written:]
                continue
            self._backlog.popleft()
            self._size += len(line)
            self.stats.bytes_written += len(line)
            self.stats.records += 1
        if self.storage_error is not None and not self._backlog:
            log.warning("journal writable again")
            self.storage_error = None

    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        """Journal one applied input (the runtime calls this after every input)."""
        if self._fd is None:
            return
        if any(e.TYPE == "table.restored" for e in outcome.events):
            # The runtime's own ``table.restored`` (added to the restore's outcome for the hub)
            # is not the machine's: a replay would not produce it.
            outcome = dataclasses.replace(
                outcome, events=[e for e in outcome.events if e.TYPE != "table.restored"]
            )
        inp = outcome.input
        changed = bool(outcome.events) or (outcome.accepted and inp.name != "tick")
        with self._lock:
            if self._backlog:
                self._drain_backlog()  # retried at every tick while the disk is full
            if changed:
                self._seq += 1
                record: dict[str, Any] = {"k": "i", "n": self._seq, "t": now, "i": inp.name}
                if inp.args:
                    record["a"] = inp.args
                if not outcome.accepted:
                    record["ok"] = 0
                if outcome.events:
                    record["e"] = len(outcome.events)
                self._write(record, urgent=not self.game.is_lazy(outcome))
                self._last_t = now
                if not self._backlog and (
                    any(e.TYPE in self.game.compact_after for e in outcome.events)
                    or self._size > self.compact_bytes
                ):
                    # (Never while records wait: they belong to the current generation.)
                    self._new_generation(snapshot, now)
            elif (
                outcome.state in self.game.heartbeat_states
                and self._last_t is not None
                and now - self._last_t >= self.heartbeat
            ):
                self._seq += 1
                self._write({"k": "h", "n": self._seq, "t": now}, urgent=False)
                self.stats.heartbeats += 1
                self._last_t = now

    # ── syncing (its own thread: an fsync on an SD card may take 100 ms) ─
    def _sync_loop(self) -> None:
        while True:
            with self._cond:
                while not self._closing:
                    if self._urgent or self._to_close or self._dir_dirty:
                        break
                    if self._dirty_since is not None:
                        wait = self.sync_interval - (time.monotonic() - self._dirty_since)
                        if wait <= 0:
                            break
                        self._cond.wait(wait)
                    else:
                        self._cond.wait()
                fd, to_close, dir_dirty = self._fd, self._to_close, self._dir_dirty
                dirty = self._dirty_since is not None
                self._to_close, self._dir_dirty = [], False
                self._urgent, self._dirty_since = False, None
                closing = self._closing
            for old in to_close:
                self._sync(old)
                with contextlib.suppress(OSError):
                    os.close(old)
            if fd is not None and (dirty or dir_dirty):
                self._sync(fd)
            if dir_dirty:
                self._sync_dir()
                self._prune()
            if closing:
                return

    def _sync(self, fd: int) -> None:
        if not self.fsync:
            return
        try:
            (os.fdatasync if hasattr(os, "fdatasync") else os.fsync)(fd)
            self.stats.syncs += 1
        except OSError as e:
            log.error("journal sync failed: %s", e)

    def _sync_dir(self) -> None:
        if not self.fsync:
            return
        try:
            dfd = os.open(self.dir, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(dfd)
            self.stats.syncs += 1
        except OSError:
            pass
        finally:
            os.close(dfd)

    def _prune(self) -> None:
        """Keep the current generation and the one before it (the fallback)."""
        with self._lock:
            current = self._gen
        for gen in self.generations():
            if gen < current - 1:
                with contextlib.suppress(OSError):
                    self.path(gen).unlink()

    def flush(self) -> None:
        """Sync everything written so far, in the caller's thread (clean shutdown, tests)."""
        with self._lock:
            fd = self._fd
        if fd is not None:
            self._sync(fd)
        self._sync_dir()

    def close(self) -> None:
        """Sync and close; the journal stays on disk for the next start."""
        with self._cond:
            self._closing = True
            self._cond.notify()
        if self._syncer is not None:
            self._syncer.join(10)
            self._syncer = None
        with self._lock:
            if self._backlog:
                self._drain_backlog()
            if self._backlog:
                log.error(
                    "journal closed with %d record(s) the disk could not take", len(self._backlog)
                )
            if self._fd is not None:
                self._sync(self._fd)
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None
            for fd in self._to_close:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._to_close = []

    def size_on_disk(self) -> int:
        return sum(self.path(g).stat().st_size for g in self.generations())


def replay_input(record: dict[str, Any]) -> Input:
    """The input of an ``"i"`` record (for tools reading a journal)."""
    return Input(record["i"], dict(record.get("a", {})))
