"""Shared fixtures: small targets (16 tiles) keep the suite fast."""

from __future__ import annotations

import os
import shutil
from typing import Iterator, Optional

import pytest

import poplar

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(params=["sim", "cpu"])
def device(request: pytest.FixtureRequest) -> Iterator[poplar.Device]:
    """Each test that takes a device runs on both."""
    if request.param == "sim":
        yield poplar.Device.ipu_model(tiles_per_ipu=16)
    else:
        yield poplar.Device.cpu()


@pytest.fixture
def sim() -> poplar.Device:
    return poplar.Device.ipu_model(tiles_per_ipu=16)


def poplar_run() -> Optional[str]:
    """The command-line runner of this checkout (built by `cargo test` or
    `cargo build --release`), or the one on PATH."""
    for profile in ("release", "debug"):
        p = os.path.join(ROOT, "target", profile, "poplar-run")
        if os.path.exists(p):
            return p
    return shutil.which("poplar-run")
