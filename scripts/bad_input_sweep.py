"""A sweep of bad and sloppy input through the API and the data loaders.

Each case is classified as

* ``clear``    – a GenexpyInputError (a message naming the column / parameter and the fix);
* ``warning``  – accepted with a documented warning (a genexpy_nb warning class);
* ``correct``  – input that must be accepted (near-ties, rescaled targets) and gave the
                 right answer;
* ``silent``   – accepted without a word (or a wrong answer, or code from a file ran);
* ``traceback``– any other exception (a raw TypeError, ArrowInvalid, BadZipFile, ...).

Run from the repository root::

    PYTHONPATH=. python scripts/bad_input_sweep.py [--verbose]
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

import numpy as np
import polars as pl

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError

TMP = Path(tempfile.mkdtemp(prefix="genexpy_sweep_"))
MARKER = TMP / "CODE_RAN"
CASES: list[tuple[str, str, object, object]] = []


def case(group: str, name: str, check=None):
    def deco(fn):
        CASES.append((group, name, fn, check))
        return fn
    return deco


class _Evil:
    def __reduce__(self):
        return (os.system, (f"touch {MARKER}",))


def table(**over):
    rows = {"ds": [f"d{i // 6}" for i in range(36)], "alt": ["a", "b", "c"] * 12,
            "seed": [(i // 3) % 2 for i in range(36)], "acc": list(np.linspace(0.5, 0.9, 36))}
    df = pl.DataFrame(rows)
    return df.with_columns(**over) if over else df


KW = dict(alternatives="alt", target="acc", generalize="ds", average_over="seed",
          higher_is_better=True)


def study(df, **kw):
    return gx.Study(df, **{**KW, **kw})


def null_at(col, row=4):
    df = table()
    return df.with_columns(pl.when(pl.int_range(pl.len()) == row).then(None)
                           .otherwise(pl.col(col)).alias(col))


# ---- Study: factor and target columns ---------------------------------------------------
for _col in ("alt", "ds", "seed"):
    case("study", f"null in factor column {_col!r}")(lambda c=_col: study(null_at(c)))
case("study", "null in design column")(
    lambda: study(table(model=pl.when(pl.int_range(pl.len()) == 4).then(None)
                        .otherwise(pl.lit("m"))), design="model"))
case("study", "NaN level in a float alternatives column")(
    lambda: study(table(alt=pl.Series([1.0, 2.0, float("nan")] * 12))))
case("study", "generalize column all null")(
    lambda: study(table(ds=pl.lit(None, dtype=pl.String))))


def _pandas(col, value, row=4):
    pdf = table().to_pandas()
    pdf[col] = pdf[col].astype(object)
    pdf.loc[row, col] = value
    return pdf


case("study", "pandas object target with 'n/a'")(lambda: study(_pandas("acc", "n/a")))
case("study", "pandas object alternatives mixing str and int")(lambda: study(_pandas("alt", 7)))
case("study", "pandas None in alternatives")(lambda: study(_pandas("alt", None)))
case("study", "string target")(lambda: study(table(acc=pl.col("acc").cast(pl.String))))
case("study", "boolean target")(lambda: study(table(acc=pl.col("acc") > 0.7)))
for _v in (float("inf"), float("nan"), None):
    case("study", f"target value {_v!r}")(lambda v=_v: study(table(acc=pl.when(
        pl.int_range(pl.len()) == 3).then(v).otherwise(pl.col("acc")))))
case("study", "duplicate rows (seed given no role)")(
    lambda: gx.Study(table(), alternatives="alt", target="acc", generalize="ds",
                     higher_is_better=True))
case("study", "empty table")(lambda: study(table().head(0)))
case("study", "one alternative")(lambda: study(table().filter(pl.col("alt") == "a")))
case("study", "missing column")(lambda: study(table(), target="accuracy"))
case("study", "column with two roles")(lambda: study(table(), design="ds"))
case("study", "higher_is_better='yes'")(lambda: study(table(), higher_is_better="yes"))
case("study", "list-typed alternatives")(lambda: study(table(alt=pl.concat_list("alt"))))
case("study", "struct-typed generalize column")(lambda: study(table(ds=pl.struct("ds"))))
case("study", "levels that collapse as text ('a | b', 'c') vs ('a', 'b | c')")(
    lambda: gx.Study(pl.DataFrame({"g1": ["a | b", "a | b", "a", "a"],
                                   "g2": ["c", "c", "b | c", "b | c"], "alt": ["x", "y"] * 2,
                                   "s": [1.0, 2.0, 3.0, 4.0]}),
                     alternatives="alt", target="s", generalize=["g1", "g2"],
                     higher_is_better=True))
case("study", "held_constant level absent")(
    lambda: study(table(m=pl.lit("acc")), held_constant={"m": "f1"}))
case("study", "tol_missing_alternatives=1.5")(
    lambda: study(table(), tol_missing_alternatives=1.5))
case("study", "not a table (list)")(lambda: gx.Study([1, 2], **KW))


def _near_tie_ok(st):
    r = st.sample(0).rankings
    return bool((r[:, 0] == r[:, 1]).all())


case("study", "near-tie 0.1+0.2 vs 0.3 ranks as a tie", check=_near_tie_ok)(
    lambda: gx.Study(pl.DataFrame({"ds": ["x"] * 3 + ["y"] * 3, "alt": ["a", "b", "c"] * 2,
                                   "acc": [0.1 + 0.2, 0.3, 0.2, 0.1 + 0.2, 0.3, 0.2]}),
                     alternatives="alt", target="acc", generalize="ds",
                     higher_is_better=True))


def _affine_ok(pair):
    a, b = pair
    return all(np.array_equal(x.rankings, y.rankings)
               for x, y in zip(a.samples(), b.samples(), strict=True))


def _noisy_table():
    rng = np.random.default_rng(0)
    base = rng.choice([0.1, 0.2, 0.3, 0.7], size=(8, 4, 3))
    base[:, 1] = base[:, 0, ::-1]  # equal means in exact arithmetic, different float sums
    rows = [(f"d{i}", f"a{j}", s, float(base[i, j, s]))
            for i in range(8) for j in range(4) for s in range(3)]
    return pl.DataFrame(rows, schema=["ds", "alt", "seed", "acc"], orient="row")


case("study", "rankings invariant to score*3+1 (seed-averaging noise)", check=_affine_ok)(
    lambda: (study(_noisy_table()), study(_noisy_table().with_columns(pl.col("acc") * 3 + 1))))
case("study", "rankings invariant to row order (seed-averaging noise)", check=_affine_ok)(
    lambda: (study(_noisy_table()),
             study(_noisy_table().sample(fraction=1.0, shuffle=True, seed=1))))


# ---- rank_scores, kernels, MMD ------------------------------------------------------------
case("rank", "rank_scores with inf")(lambda: gx.rank_scores([[1.0, np.inf]]))
case("rank", "rank_scores of a 3-d array")(lambda: gx.rank_scores(np.zeros((2, 2, 2))))
case("rank", "rank_scores of strings")(lambda: gx.rank_scores([["a", "b"]]))
case("rank", "rank_scores near-tie", check=lambda r: r.tolist() == [[0, 0, 1]])(
    lambda: gx.rank_scores([[0.1 + 0.2, 0.3, 0.2]]))


def _mmd(x, y, k=None):
    from genexpy_nb.mmd import mmd

    return mmd(np.asarray(x), np.asarray(y), k or gx.Mallows().resolve(3))


case("mmd", "mmd with an empty sample")(lambda: _mmd(np.zeros((0, 3), int), [[0, 1, 2]]))
case("mmd", "mmd with a negative tier")(lambda: _mmd([[0, -1, 2]], [[0, 1, 2]]))
case("mmd", "Jaccard on negative tiers")(lambda: gx.Jaccard(1).resolve(3)([0, 1, -2], [0, 1, 2]))
case("mmd", "non-integer tiers")(lambda: _mmd([[0, 0.5, 2]], [[0, 1, 2]]))
case("mmd", "RBF with NaN scores")(
    lambda: _mmd([[0.1, np.nan, 0.3]], [[0.1, 0.2, 0.3]], gx.RBF().resolve(3)))
case("mmd", "rankings of the wrong width")(lambda: _mmd([[0, 1]], [[0, 1]]))
case("mmd", "mmd_distribution on an empty sample")(
    lambda: __import__("genexpy_nb.mmd", fromlist=["x"]).mmd_distribution(
        np.zeros((0, 3), int), gx.Mallows().resolve(3), 1))
case("mmd", "draw_pairs n > N/2")(
    lambda: __import__("genexpy_nb.mmd", fromlist=["x"]).draw_pairs(10, 6, 5))
case("mmd", "Jaccard k=0")(lambda: gx.Jaccard(k=0))
case("mmd", "Borda of an unknown alternative")(lambda: gx.Borda("zz").resolve(3, ["a", "b", "c"]))
case("mmd", "RBF gamma < 0")(lambda: gx.RBF(gamma=-1.0))
case("mmd", "parse_kernel garbage")(lambda: gx.parse_kernel("jaccard:k=x"))


# ---- seed variability ----------------------------------------------------------------------
def _var(name):
    from genexpy_nb import variability

    return getattr(variability, name)


_R = np.random.default_rng(0)
_P = _R.random((40, 2))
_Y = _R.integers(0, 2, 40)
case("variability", "ece given probabilities (T,)")(lambda: _var("ece")(_P[:, 1], _Y))
case("variability", "ece given a (T, 2) probability matrix")(lambda: _var("ece")(_P, _Y))
case("variability", "accuracy given (T, 2) logits")(
    lambda: _var("accuracy")(_R.normal(size=(40, 2)), _Y))
case("variability", "churn of mismatched lengths")(
    lambda: _var("churn")(np.ones(5), np.ones(6)))
case("variability", "ece labels of the wrong length")(
    lambda: _var("ece")(_R.normal(size=40), _Y[:-1]))
case("variability", "labels not 0/1")(lambda: _var("ece")(_R.normal(size=40), _Y * 2 - 1))
case("variability", "gaps with NaN")(lambda: _var("ece")(np.r_[np.nan, np.ones(39)], _Y))
case("variability", "empty gaps")(lambda: _var("ece")(np.zeros(0), np.zeros(0)))
case("variability", "ece bins=0")(lambda: _var("ece")(_R.normal(size=40), _Y, 0))


# ---- files a user points at ------------------------------------------------------------------
def _cifar_folder(evil_in: str | None = None) -> Path:
    f = Path(tempfile.mkdtemp(dir=TMP))
    rng = np.random.default_rng(0)
    for name in ("data_batch_1", "test_batch"):
        d = {b"labels": [int(v) for v in rng.integers(0, 10, 20)],
             b"data": rng.integers(0, 256, (20, 3072), dtype=np.uint8)}
        (f / name).write_bytes(pickle.dumps(d))
    if evil_in:
        (f / evil_in).write_bytes(pickle.dumps(_Evil()))
    return f


def _no_code_ran(_result):
    return not MARKER.exists()


def _load_cifar(folder):
    from genexpy_nb.experiments import load_cifar10_binary

    return load_cifar10_binary(folder, n_val=0)


for _f in ("data_batch_1", "test_batch", "batches.meta"):
    case("files", f"crafted pickle as CIFAR {_f}", check=_no_code_ran)(
        lambda f=_f: _load_cifar(_cifar_folder(f)))


def _truncated_cifar():
    f = _cifar_folder()
    b = (f / "data_batch_1").read_bytes()
    (f / "data_batch_1").write_bytes(b[: len(b) // 2])
    return _load_cifar(f)


case("files", "truncated CIFAR batch")(_truncated_cifar)
case("files", "CIFAR folder without batches")(lambda: _load_cifar(TMP / "nowhere"))


def _pool(kind):
    from genexpy_nb.experiments import load_pool

    p = TMP / f"pool_{kind}.npz"
    if kind == "object":
        arr = np.empty(1, dtype=object)
        arr[0] = _Evil()
        np.savez(p, gaps=arr, labels=np.zeros(2), meta=np.array("{}"))
    elif kind == "truncated":
        np.savez(p, a=np.zeros(100))
        p.write_bytes(p.read_bytes()[:40])
    elif kind == "meta":
        from genexpy_nb.experiments.pools import PER_MODEL_KEYS

        np.savez(p, labels=np.zeros(2), test_index=np.arange(2), meta=np.array("{not json"),
                 **{k: np.zeros((1, 2)) for k in PER_MODEL_KEYS})
    return load_pool(p)


case("files", "pool .npz holding a pickled object", check=_no_code_ran)(
    lambda: _pool("object"))
case("files", "truncated pool .npz")(lambda: _pool("truncated"))
case("files", "pool .npz with a garbage meta entry")(lambda: _pool("meta"))


def _weights():
    import torch

    from genexpy_nb.experiments.vit import _read_state

    p = TMP / "w.pt"
    torch.save({"w": torch.zeros(1), "x": _Evil()}, p)
    return _read_state(p)


case("files", "torch weights holding a pickled object", check=_no_code_ran)(_weights)


def _results(name, content: bytes):
    from genexpy_nb.data import read_results

    p = TMP / name
    p.write_bytes(content)
    return read_results(p)


case("files", "truncated parquet")(
    lambda: _results("t.parquet", _parquet_bytes()[:100]))
case("files", "garbage parquet")(lambda: _results("g.parquet", b"PAR1 not really" * 10))
case("files", "empty CSV")(lambda: _results("e.csv", b""))
case("files", "header-only CSV into a Study")(
    lambda: study(_results("h.csv", b"ds,alt,seed,acc\n")))
case("files", "unsupported extension")(lambda: _results("r.xlsx", b"x"))
case("files", "missing results file")(
    lambda: __import__("genexpy_nb.data", fromlist=["x"]).read_results(TMP / "none.csv"))


def _parquet_bytes() -> bytes:
    buf = io.BytesIO()
    table().write_parquet(buf)
    return buf.getvalue()


# ---- run ------------------------------------------------------------------------------------
def classify(fn, check):
    MARKER.unlink(missing_ok=True)
    with warnings.catch_warnings(record=True) as rec, contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("always")
        try:
            out = fn()
            exc = None
        except GenexpyInputError as e:
            out, exc = None, e
        except Exception as e:  # noqa: BLE001 (that is what the sweep looks for)
            out, exc = None, e
    ours = [w for w in rec if type(w.message).__module__.startswith("genexpy_nb")]
    if check is not None and check is _no_code_ran and MARKER.exists():
        return "silent", "CODE FROM THE FILE RAN"
    if isinstance(exc, GenexpyInputError):
        return "clear", str(exc)
    if exc is not None:
        return "traceback", f"{type(exc).__name__}: {exc}"
    if check is not None and check is not _no_code_ran:
        return ("correct", "") if check(out) else ("silent", "wrong result")
    if ours:
        return "warning", str(ours[0].message)
    return "silent", "accepted"


def main(verbose: bool = False) -> dict[str, int]:
    counts: dict[str, int] = {}
    for group, name, fn, check in CASES:
        kind, msg = classify(fn, check)
        counts[kind] = counts.get(kind, 0) + 1
        if verbose or kind in ("silent", "traceback"):
            print(f"[{kind:9s}] {group:11s} {name}: {msg[:150]}")
    print(json.dumps({"tried": len(CASES), **dict(sorted(counts.items()))}))
    return counts


if __name__ == "__main__":
    try:
        main(verbose="--verbose" in sys.argv)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        sys.exit(1)
