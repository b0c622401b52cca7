"""A build's steps as they go, on stderr: a bar on a terminal, a line every few seconds otherwise.

``kb build --cr-history`` said "matching rules across 62 official releases ..." and then nothing for ~9 s (the
index ~30 s on a busy machine): a user could not tell working from stuck. The build announces each step
(``step``) and, where it can count, how far it is (``tick``: releases read, releases matched, records indexed);
a clock thread keeps a step that cannot count (the index's final merge) alive with its elapsed time.

On a terminal the step's line is redrawn in place::

      matching rules across 62 official releases ... [###########---------]  34/62  5s

Elsewhere (a log, CI, a pipe) a step longer than ``every`` seconds gets a line each ``every`` seconds::

      matching rules across 62 official releases ... 34/62 (5s)
"""
from __future__ import annotations

import threading
import time
from typing import TextIO

__all__ = ["Progress", "EVERY"]

EVERY = 2.0  # seconds: a step quiet this long says where it is
_WIDTH = 20  # the bar's characters
_REDRAW = 0.1  # seconds between a terminal's redraws on ticks


class Progress:
    """Use as a context manager: ``step(line)`` starts a step, ``tick(done, total)`` says how far it is."""

    def __init__(self, stream: TextIO, tty: bool | None = None, every: float = EVERY):
        self.stream = stream
        self.tty = stream.isatty() if tty is None else tty
        self.every = every
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._label: str | None = None
        self._started = self._said = 0.0
        self._drawn = 0.0
        self._done: int | None = None
        self._total: int | None = None
        self._clock = threading.Thread(target=self._run, name="kb-build-progress", daemon=True)

    def __enter__(self) -> Progress:
        self._clock.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._clock.join()
        with self._lock:
            self._end_step()

    def step(self, line: str) -> None:
        with self._lock:
            self._end_step()
            self._label = line
            self._started = self._said = time.monotonic()
            self._done = self._total = None
            if self.tty:
                self._draw()
            else:
                self._write(f"  {line}\n")

    def tick(self, done: int, total: int) -> None:
        with self._lock:
            self._done, self._total = done, total
            if self.tty and time.monotonic() - self._drawn >= _REDRAW:
                self._draw()

    # -- what is written ---------------------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.wait(min(self.every, 0.5) if self.tty else self.every / 4):
            with self._lock:
                if self._label is None:
                    continue
                now = time.monotonic()
                if self.tty:
                    self._draw()
                elif now - self._said >= self.every:
                    self._said = now
                    self._write(f"  {self._label} {self._count()}({now - self._started:.0f}s)\n")

    def _count(self) -> str:
        if self._done is None or not self._total:
            return ""
        # all counted and still going: the step's last part, which cannot count (the index's merge)
        return f"{self._done:,}/{self._total:,}{', finishing' if self._done >= self._total else ''} "

    def _draw(self) -> None:
        self._drawn = time.monotonic()
        bar = ""
        if self._done is not None and self._total:
            filled = min(_WIDTH, _WIDTH * self._done // self._total)
            bar = f" [{'#' * filled}{'-' * (_WIDTH - filled)}] {self._count().rstrip()}"
        self._write(f"\r\x1b[2K  {self._label}{bar}  {self._drawn - self._started:.0f}s")

    def _end_step(self) -> None:
        if self._label is not None and self.tty:
            self._draw()
            self._write("\n")
        self._label = None

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
