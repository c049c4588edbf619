"""Peer packages used as test oracles, imported with what they need to import at all."""

from __future__ import annotations

import importlib
import inspect

import pytest


def rliable():
    """``(rliable.library, rliable.metrics)``, or a skip with the reason.

    rliable 1.2 requires ``arch < 8``, and arch 7.2 calls pandas' private
    ``deprecate_kwarg`` with its pre-pandas-3 signature (no warning class first), so
    ``import arch`` fails under pandas 3. The wrapper below supplies the class for such
    calls; it changes nothing else (and nothing at all on older pandas).
    """
    try:
        import pandas.util._decorators as dec
    except ImportError:  # pragma: no cover - pandas is in the test extra
        pytest.skip("pandas is needed by rliable (the oracle)")
    params = list(inspect.signature(dec.deprecate_kwarg).parameters)
    if params and params[0] == "klass" and not getattr(dec.deprecate_kwarg, "_compat", False):
        original = dec.deprecate_kwarg

        def deprecate_kwarg(*args, **kwargs):
            if args and isinstance(args[0], str):
                return original(FutureWarning, *args, **kwargs)
            return original(*args, **kwargs)

        deprecate_kwarg._compat = True
        dec.deprecate_kwarg = deprecate_kwarg
    try:
        library = importlib.import_module("rliable.library")
        metrics = importlib.import_module("rliable.metrics")
    except ImportError as exc:
        pytest.skip(f"rliable (the oracle, in the test extra) cannot be imported: {exc}")
    return library, metrics
