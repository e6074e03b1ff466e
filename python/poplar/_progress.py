"""The progress bar of a compile (`Engine(graph, ...)`, `compile_pir`).

The compiler names each pass as it starts (`map_tiles`, `lower_tile`, ...,
and `compiling codelets f.cpp` for PIR's codelets) and says when it ends;
`for_compile` turns the `progress=` argument into the function it calls.
The bar is drawn with tqdm when it can be imported, else as one plain line
rewritten in place, on standard error; it appears only once a compile has
run for `DELAY` seconds, so short compiles print nothing, and is cleared at
the end.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, Optional, TextIO, Union

#: Seconds a compile runs before its progress appears.
DELAY = 1.0

Step = Callable[[Optional[str]], None]
ProgressArg = Union[None, bool, Callable[[str], Any]]


class _Bar:
    """A compile's display: nothing for `DELAY` seconds, then tqdm's bar or
    a plain line."""

    def __init__(self, out: TextIO, delay: float) -> None:
        self._out = out
        self._delay = delay
        self._start = time.monotonic()
        self._steps = 0
        self._tqdm: Any = None
        self._plain = False

    def __call__(self, step: Optional[str]) -> None:
        if step is None:
            self._close()
            return
        self._steps += 1
        elapsed = time.monotonic() - self._start
        if self._tqdm is None and not self._plain:
            if elapsed < self._delay:
                return
            self._open()
        if self._tqdm is not None:
            self._tqdm.update(1)
            self._tqdm.set_postfix_str(step)  # redraws now: a pass can be long
        else:
            line = f"poplar: compiling [{elapsed:.1f}s] step {self._steps}: {step}"
            self._out.write("\r\x1b[K" + line)
            self._out.flush()

    def _open(self) -> None:
        try:
            from tqdm import tqdm  # type: ignore[import-untyped, import-not-found, unused-ignore]
        except ImportError:
            self._plain = True
            return
        # The steps before the bar appeared count as done.
        self._tqdm = tqdm(
            desc="poplar: compiling",
            unit="step",
            initial=self._steps - 1,
            file=self._out,
            leave=False,
        )

    def _close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()
            self._tqdm = None
        elif self._plain:
            self._out.write("\r\x1b[K")
            self._out.flush()
            self._plain = False


def for_compile(progress: ProgressArg) -> Optional[Step]:
    """What a compile calls with each pass's name (and `None` at its end),
    or `None` for no progress.

    `progress=None` (the default) shows the bar when standard error is a
    terminal; `False` never does; `True` always does (a notebook, whose
    standard error is not a terminal); a function is called with each
    pass's name instead.
    """
    if progress is False:
        return None
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        if isatty is None or not isatty():
            return None
        return _Bar(sys.stderr, DELAY)
    if progress is True:
        return _Bar(sys.stderr, DELAY)
    if callable(progress):
        user = progress

        def step(name: Optional[str]) -> None:
            if name is not None:
                user(name)

        return step
    raise TypeError(f"progress must be None, True, False or a function of a step's name, not {progress!r}")
