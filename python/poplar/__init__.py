"""poplar: IPU graphs from Python.

Build a graph of tensors and vertices, compile it, and run it on the
cycle-modelling simulator (``Device.ipu_model()``) or on all host cores
(``Device.cpu()``), with numpy arrays in and out. The package sits on the
same Rust core as the C++ host API (``libpoplar``): the same graph
builder, operations library, compiler and engine, so a graph gives the
same results and cycle counts from PIR, C++ and Python.

Names follow PEP 8; docs/python.md maps each to its Poplar C++ name.
Trust: an ``Executable`` holds native code, like a shared library; load
only executables you would run.
"""

from __future__ import annotations

try:
    from . import _poplar
except ImportError as e:  # pragma: no cover - a broken install
    raise ImportError(
        "poplar: the extension module poplar._poplar could not be loaded "
        f"({e}); rebuild the package with `pip install ./python` from the "
        "poplar-rs repository"
    ) from e

_ABI = 1
if getattr(_poplar, "ABI", None) != _ABI:  # pragma: no cover - a mismatched build
    raise ImportError(
        f"poplar: the extension module speaks ABI {getattr(_poplar, 'ABI', '?')} "
        f"but this Python package expects {_ABI}: the two come from different "
        "builds; reinstall with `pip install ./python`"
    )

from ._poplar import (  # noqa: E402
    CompileError,
    ComputeSet,
    DataStream,
    Device,
    Engine,
    Executable,
    Graph,
    GraphError,
    PoplarError,
    Program,
    PvaBlock,
    PvaReport,
    RemoteBuffer,
    RunError,
    StreamError,
    Target,
    Tensor,
    __version__,
    compile_pir,
    concat,
    where,
)
from ._poplar import Function  # noqa: E402
from ._poplar import block as Block  # noqa: E402
from ._poplar import call as Call  # noqa: E402
from ._poplar import copy as Copy  # noqa: E402
from ._poplar import execute as Execute  # noqa: E402
from ._poplar import if_ as If  # noqa: E402
from ._poplar import print_tensor as PrintTensor  # noqa: E402
from ._poplar import repeat as Repeat  # noqa: E402
from ._poplar import repeat_while_false as RepeatWhileFalse  # noqa: E402
from ._poplar import repeat_while_true as RepeatWhileTrue  # noqa: E402
from ._poplar import sequence as Sequence  # noqa: E402
from ._poplar import switch as Switch  # noqa: E402
from .profile import ExecutionProfile, GraphProfile, Report, profiles  # noqa: E402

__all__ = [
    "Block",
    "Call",
    "CompileError",
    "ComputeSet",
    "Copy",
    "DataStream",
    "Device",
    "Engine",
    "Execute",
    "ExecutionProfile",
    "Executable",
    "Function",
    "Graph",
    "GraphError",
    "GraphProfile",
    "If",
    "PoplarError",
    "PrintTensor",
    "Program",
    "PvaBlock",
    "PvaReport",
    "RemoteBuffer",
    "Repeat",
    "RepeatWhileFalse",
    "RepeatWhileTrue",
    "Report",
    "RunError",
    "Sequence",
    "StreamError",
    "Switch",
    "Target",
    "Tensor",
    "__version__",
    "compile_pir",
    "concat",
    "profiles",
    "where",
]
