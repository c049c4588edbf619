"""A hostile-input sweep: bad and careless input through the API, every CLI command and
every loader, each case asserting its outcome.

Every case is either

* ``clear`` - a :class:`~genexpy_nb.GenexpyInputError` (or, from the command line, exit 1
  with one line ``genexpy-nb CMD: error: ...``; exit 2 for a malformed option) whose message
  names the parameter or column (the strings given with the case) and says what to do; no
  traceback, no numba error; or
* ``correct`` - input that must be accepted, and a check of the answer.

For every case: no other exception, no hang (a timeout per case), and no input file changed
(every file the cases read is hashed before and after). CLI cases run in-process through
``genexpy_nb.cli.main``. ``python scripts/bad_input_sweep.py`` runs the same cases outside
pytest and prints the counts per outcome.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import pickle
import re
import signal
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_hostile_files as crafted

#: seconds one case may take before it counts as a hang
CASE_TIMEOUT = 30


@dataclass
class Case:
    """One hostile input: ``fn(out_folder)`` and the outcome it must have."""

    group: str
    name: str
    fn: Callable[[Path], object]
    expect: str  # "clear" or "correct"
    names: tuple[str, ...] = ()  # for "clear": what the message must name
    check: Callable[[object], bool] | None = None  # for "correct"
    warns: bool = False  # the case emits a documented warning

    @property
    def id(self) -> str:
        return f"{self.group}: {self.name}"


CASES: list[Case] = []


def clear(group: str, name: str, *names: str, warns: bool = False):
    def deco(fn):
        CASES.append(Case(group, name, fn, "clear", names, warns=warns))
        return fn
    return deco


def correct(group: str, name: str, check: Callable[[object], bool], warns: bool = False):
    def deco(fn):
        CASES.append(Case(group, name, fn, "correct", check=check, warns=warns))
        return fn
    return deco


def add_clear(group: str, name: str, fn, *names: str) -> None:
    CASES.append(Case(group, name, fn, "clear", names))


# ---- input files, built once, hashed around every case -------------------------------------

INPUTS: dict[str, Path] = {}


def F(name: str) -> Path:
    """The path of an input file built by :func:`build_inputs`."""
    return INPUTS[name]


def table(n_ds: int = 6, **over) -> pl.DataFrame:
    """3 alternatives x n_ds datasets x 2 seeds; alternative c is best, a worst."""
    rows = {"ds": [f"d{i // 6}" for i in range(6 * n_ds)],
            "alt": ["a", "b", "c"] * (2 * n_ds),
            "seed": [(i // 3) % 2 for i in range(6 * n_ds)],
            "acc": [0.5 + 0.1 * (i % 3) + 0.01 * ((7 * i) % 5) for i in range(6 * n_ds)]}
    df = pl.DataFrame(rows)
    return df.with_columns(**over) if over else df


def _npz_bytes(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def build_inputs(folder: Path) -> None:
    """Every file a case reads: results tables, pools, CIFAR folders, weights."""
    folder.mkdir(parents=True, exist_ok=True)

    def put(name: str, content: bytes) -> Path:
        p = folder / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content)
        INPUTS[name] = p
        return p

    buf = io.BytesIO()
    table(n_ds=10).write_parquet(buf)
    put("r.parquet", buf.getvalue())
    put("r.csv", table(n_ds=10).write_csv().encode())
    put("r_m.csv", table(n_ds=10, m=pl.lit("x")).write_csv().encode())
    put("one_alt.csv", table(n_ds=10).filter(pl.col("alt") == "a").write_csv().encode())
    put("strtarget.csv", table(n_ds=10).with_columns(
        pl.col("acc").cast(pl.String) + "%").write_csv().encode())
    put("nan_target.csv", table(n_ds=4, acc=pl.lit(None, pl.Float64)).write_csv().encode())
    put("reserved.csv", table(n_ds=6).rename({"seed": "__condition__"}).write_csv().encode())
    put("reserved_alt.csv", table(n_ds=10).rename({"alt": "__block__"}).write_csv().encode())
    put("ties.csv", table(n_ds=10, acc=pl.lit(0.5)).write_csv().encode())
    names = ["</script><script>alert(1)</script>", "=HYPERLINK(\"x\")", "ünï 🎉 " + "L" * 300]
    put("payload.csv", table(n_ds=10).with_columns(
        pl.col("alt").replace({"a": names[0], "b": names[1], "c": names[2]})
    ).write_csv().encode())
    for name, (content, _msg) in crafted.BAD_TABLES.items():
        put(f"bad/{name}", content() if callable(content) else content)
    (folder / "x.csv").mkdir(exist_ok=True)
    INPUTS["x.csv"] = folder / "x.csv"
    loop = folder / "loop.csv"
    if not loop.is_symlink():
        loop.symlink_to(loop)
    INPUTS["loop.csv"] = loop
    INPUTS["absent.csv"] = folder / "absent.csv"
    link = folder / "link.csv"
    if not link.is_symlink():
        link.symlink_to(F("r.csv"))
    INPUTS["link.csv"] = link

    # pools and plain .npz archives of logit gaps
    rng = np.random.default_rng(0)
    put("gaps.npz", _npz_bytes(gaps=rng.normal(size=(8, 60)), labels=rng.integers(0, 2, 60)))
    put("t4.npz", _npz_bytes(gaps=rng.normal(size=(8, 4)), labels=rng.integers(0, 2, 4)))
    put("probs.npz", _npz_bytes(gaps=rng.random((8, 60)), labels=rng.integers(0, 2, 60)))
    put("oned.npz", _npz_bytes(gaps=rng.normal(size=60), labels=rng.integers(0, 2, 60)))
    put("nolabels.npz", _npz_bytes(gaps=rng.normal(size=(8, 60))))
    put("nan_gaps.npz", _npz_bytes(gaps=np.full((8, 60), np.nan), labels=np.ones(60)))
    for kind, (make, _msg) in crafted.CRAFTED_NPZ.items():
        put(f"npz/{kind.replace(' ', '_')}.npz", make())
    (folder / "dir.npz").mkdir(exist_ok=True)
    INPUTS["dir.npz"] = folder / "dir.npz"

    # CIFAR folders: a good one, and one per crafted batch
    def cifar(name: str, batch: bytes | None = None) -> Path:
        f = folder / "cifar" / name
        f.mkdir(parents=True, exist_ok=True)
        for i, fn in enumerate(("data_batch_1", "test_batch")):
            good = pickle.dumps(crafted._batch(seed=i), protocol=4)
            (f / fn).write_bytes(batch if (batch is not None and fn == "data_batch_1")
                                 else good)
        INPUTS[f"cifar/{name}"] = f
        return f

    cifar("good")
    for kind, make in crafted.CRAFTED_CIFAR.items():
        cifar(kind.replace(" ", "_"), make())
    evil = pickle.dumps(crafted._WritesMarker(folder / "CODE_RAN"), protocol=4)
    cifar("code", evil)
    good = pickle.dumps(crafted._batch(seed=0), protocol=4)
    cifar("truncated", good[: len(good) // 2])
    cifar("notadict", pickle.dumps([1, 2, 3]))

    # weights
    try:
        import torch

        wb = io.BytesIO()
        torch.save({"w": torch.zeros(50)}, wb)
        put("w_trunc.pt", wb.getvalue()[:100])
        wb = io.BytesIO()
        torch.save({"w": torch.zeros(2), "x": crafted._WritesMarker(folder / "CODE_RAN")}, wb)
        put("w_evil.pt", wb.getvalue())
    except ImportError:  # pragma: no cover - torch is in the test extras
        pass


def _hashes() -> dict[str, str]:
    out = {}
    for name, p in INPUTS.items():
        if p.is_file() and not p.is_symlink():
            out[name] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


# ---- running one case ------------------------------------------------------------------------


class CaseTimeout(BaseException):
    """A case ran past CASE_TIMEOUT (BaseException: no ``except Exception`` swallows it)."""


@contextlib.contextmanager
def time_limit(seconds: float):
    if not hasattr(signal, "setitimer"):  # pragma: no cover - Windows: no limit
        yield
        return

    def on_alarm(signum, frame):
        raise CaseTimeout(f"no answer after {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class CliRun:
    rc: int
    err: str
    out: str
    folder: Path = field(default_factory=Path)

    def lines(self) -> list[str]:
        return [ln for ln in self.err.replace("\r", "\n").splitlines()
                if ln.strip() and not ln.startswith(("note:", "genexpy_nb: preparing"))]


def cli(*argv: object) -> CliRun:
    from genexpy_nb.cli import main

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        rc = main([str(a) for a in argv])
    return CliRun(rc, err.getvalue(), out.getvalue())


def outcome(case: Case, folder: Path) -> tuple[str, str]:
    """('clear' | 'correct' | what went wrong, message) of one case; never raises."""
    marker = F("r.csv").parent / "CODE_RAN"
    before = _hashes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with time_limit(CASE_TIMEOUT):
                result, exc = case.fn(folder), None
        except GenexpyInputError as e:
            result, exc = None, e
        except CaseTimeout as e:
            return "hang", str(e)
        except TypeError as e:  # Python's own check of a call's arguments names the parameter
            if not re.search(r"missing \d+ required|unexpected keyword argument", str(e)):
                return "traceback", f"TypeError: {str(e)[:300]}"
            result, exc = None, GenexpyInputError(str(e))
        except Exception as e:
            return "traceback", f"{type(e).__name__}: {str(e)[:300]}"
    if marker.exists():
        return "code ran", "a file ran code"
    if _hashes() != before:
        return "input changed", str(sorted(set(_hashes().items()) ^ set(before.items())))
    ours = [w for w in caught if type(w.message).__module__.startswith("genexpy_nb")
            or issubclass(w.category, UserWarning)]
    if ours and not case.warns:
        return "unexpected warning", str(ours[0].message)
    if isinstance(result, CliRun):
        bad = _unescaped(result)
        if bad:
            return "unescaped", bad
        lines = result.lines()
        if result.rc == 0:
            exc = None
        elif result.rc in (1, 2):
            if "Traceback" in result.err:
                return "traceback", result.err[-300:]
            want = "usage:" if result.rc == 2 else "genexpy-nb "
            if result.rc == 1 and (len(lines) != 1 or not lines[0].startswith(want)):
                return "messy error", result.err[-300:]
            exc = GenexpyInputError(" ".join(lines))
        else:
            return "traceback", f"exit {result.rc}: {result.err[-300:]}"
    if exc is not None:
        msg = str(exc)
        if "numba" in msg.lower() or "Traceback" in msg:
            return "traceback", msg
        if case.expect != "clear":
            return "refused", msg
        missing = [n for n in case.names if n not in msg]
        if missing:
            return "vague error", f"does not name {missing}: {msg}"
        return "clear", msg
    if case.expect == "clear":
        return "silent", f"accepted: {str(result)[:200]}"
    return ("correct", "") if case.check(result) else ("wrong answer", str(result)[:300])


def _unescaped(run: CliRun) -> str:
    """What a CLI run printed or wrote unescaped for its format ('' when nothing)."""
    import test_hostile_names as hn

    try:
        hn.check_terminal((run.out + run.err).replace("\r", ""))
        folder = run.folder
        if folder != Path() and folder.is_dir():
            for p in sorted(folder.iterdir()):
                if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in (
                        ".md", ".tex", ".csv", ".tsv", ".svg", ".html", ".json"):
                    hn.check_output(p)
        elif folder != Path() and folder.is_file() and folder.suffix in (".csv", ".tsv"):
            hn.check_output(folder)
    except (AssertionError, pytest.fail.Exception) as exc:
        return str(exc)[:300]
    return ""


# ---- the Study: factor and target columns ------------------------------------------------

KW = dict(alternatives="alt", target="acc", generalize="ds", average_over="seed",
          higher_is_better=True)


def study(df, **kw):
    return gx.Study(df, **{**KW, **kw})


def null_at(col, row=4, df=None):
    df = table() if df is None else df
    return df.with_columns(pl.when(pl.int_range(pl.len()) == row).then(None)
                           .otherwise(pl.col(col)).alias(col))


for _col in ("alt", "ds", "seed"):
    add_clear("study", f"null in factor column {_col!r}", lambda o, c=_col: study(null_at(c)),
              repr(_col), "fill")
add_clear("study", "null in a design column",
          lambda o: study(table(model=pl.when(pl.int_range(pl.len()) == 4).then(None)
                                .otherwise(pl.lit("m"))), design="model"), "'model'")
add_clear("study", "NaN level in a float alternatives column",
          lambda o: study(table(alt=pl.Series([1.0, 2.0, float("nan")] * 12))), "'alt'")
add_clear("study", "generalize column all null",
          lambda o: study(table(ds=pl.lit(None, dtype=pl.String))), "'ds'")


def _pandas(col, value, row=4):
    pdf = table().to_pandas()
    pdf[col] = pdf[col].astype(object)
    pdf.loc[row, col] = value
    return pdf


add_clear("study", "pandas object target with 'n/a'", lambda o: study(_pandas("acc", "n/a")),
          "'acc'", "pd.to_numeric")
add_clear("study", "pandas alternatives mixing str and int",
          lambda o: study(_pandas("alt", 7)), "'alt'")
add_clear("study", "pandas None in alternatives", lambda o: study(_pandas("alt", None)),
          "'alt'")
add_clear("study", "pandas frame with two columns of one name",
          lambda o: study(table().to_pandas().set_axis(["ds", "alt", "ds", "acc"], axis=1)),
          "['ds']")
add_clear("study", "string target", lambda o: study(table(acc=pl.col("acc").cast(pl.String))),
          "'acc'")
add_clear("study", "boolean target", lambda o: study(table(acc=pl.col("acc") > 0.7)), "'acc'")
for _v in (float("inf"), float("-inf"), float("nan"), None):
    add_clear("study", f"target value {_v!r}",
              lambda o, v=_v: study(table(acc=pl.when(pl.int_range(pl.len()) == 3).then(v)
                                          .otherwise(pl.col("acc")))), "'acc'",
              "invalid_target")
add_clear("study", "every target NaN with invalid_target='drop'",
          lambda o: study(table(acc=pl.lit(float("nan"))), invalid_target="drop"),
          "every score", "'acc'")
add_clear("study", "duplicate rows (seed given no role)",
          lambda o: gx.Study(table(), alternatives="alt", target="acc", generalize="ds",
                             higher_is_better=True), "average_over", "seed")
add_clear("study", "duplicated cells (every row twice)",
          lambda o: study(pl.concat([table(), table()])), "duplicate rows")
add_clear("study", "empty table", lambda o: study(table().head(0)), "empty")
add_clear("study", "one-row table", lambda o: study(table().head(1)), "'alt'")
add_clear("study", "one alternative", lambda o: study(table().filter(pl.col("alt") == "a")),
          "'alt'")
add_clear("study", "missing column", lambda o: study(table(), target="accuracy"),
          "'accuracy'")
add_clear("study", "a column with two roles", lambda o: study(table(), design="ds"), "'ds'")
add_clear("study", "higher_is_better='yes'", lambda o: study(table(), higher_is_better="yes"),
          "higher_is_better")
add_clear("study", "higher_is_better left out",
          lambda o: gx.Study(table(), alternatives="alt", target="acc", generalize="ds",
                             average_over="seed"), "higher_is_better")
add_clear("study", "alternatives given as a list",
          lambda o: study(table(), alternatives=["alt"]), "alternatives")
add_clear("study", "generalize=''", lambda o: study(table(), generalize=""), "['']",
          "not found")
add_clear("study", "list-typed alternatives", lambda o: study(table(alt=pl.concat_list("alt"))),
          "'alt'")
add_clear("study", "struct-typed generalize column", lambda o: study(table(ds=pl.struct("ds"))),
          "'ds'")
add_clear("study", "held_constant level absent",
          lambda o: study(table(m=pl.lit("acc")), held_constant={"m": "f1"}), "'f1'", "'m'")
add_clear("study", "tol_missing_alternatives=1.5",
          lambda o: study(table(), tol_missing_alternatives=1.5), "tol_missing_alternatives")
add_clear("study", "tol_missing_conditions=nan",
          lambda o: study(table(), tol_missing_conditions=float("nan")),
          "tol_missing_conditions")
add_clear("study", "invalid_target='maybe'", lambda o: study(table(), invalid_target="maybe"),
          "invalid_target")
add_clear("study", "tie_rtol=-1", lambda o: study(table(), tie_rtol=-1.0), "tie rtol")
add_clear("study", "not a table (a list)", lambda o: gx.Study([1, 2], **KW), "data")
add_clear("study", "design column named __condition__",
          lambda o: study(table(__condition__=pl.lit("m")), design="__condition__"),
          "'__condition__'", "rename")
add_clear("study", "generalize column named __config_id__",
          lambda o: study(table().rename({"ds": "__config_id__"}), generalize="__config_id__"),
          "'__config_id__'")


def _ranks(st, cid=0):
    return st.sample(cid).rankings


correct("study", "near-tie 0.1+0.2 vs 0.3 ranks as a tie",
        lambda s: bool((_ranks(s)[:, 0] == _ranks(s)[:, 1]).all()))(
    lambda o: gx.Study(pl.DataFrame({"ds": ["x"] * 3 + ["y"] * 3, "alt": ["a", "b", "c"] * 2,
                                     "acc": [0.1 + 0.2, 0.3, 0.2, 0.1 + 0.2, 0.3, 0.2]}),
                       alternatives="alt", target="acc", generalize="ds",
                       higher_is_better=True))
correct("study", "replicates whose sum overflows (1e308) are averaged, not infinite",
        lambda s: _ranks(s).tolist() == [[0, 1]] * 2)(
    lambda o: gx.Study(pl.DataFrame({"ds": ["a"] * 4 + ["b"] * 4, "alt": ["x", "y"] * 4,
                                     "seed": [0, 0, 1, 1] * 2,
                                     "acc": [1e308, 1e308, 1e308, 1.0] * 2}),
                       alternatives="alt", target="acc", generalize="ds",
                       average_over="seed", higher_is_better=True))
correct("study", "unicode and 1000-character alternative names are kept",
        lambda s: sorted(s.alternatives) == sorted(["ünï 日本 🎉", "L" * 1000, "a"]))(
    lambda o: study(table(alt=pl.col("alt").replace({"b": "ünï 日本 🎉", "c": "L" * 1000}))))
correct("study", "an integer target", lambda s: len(s) == 1)(
    lambda o: study(table(acc=(pl.col("acc") * 100).cast(pl.Int64))))
correct("study", "a pyarrow table", lambda s: len(s) == 1)(
    lambda o: study(table().to_arrow()))
correct("study", "a LazyFrame", lambda s: len(s) == 1)(lambda o: study(table().lazy()))
correct("study", "a pandas frame with a categorical column", lambda s: len(s) == 1)(
    lambda o: study(table().to_pandas().astype({"alt": "category"})))
def _untouched(df):
    before = df.clone() if isinstance(df, pl.DataFrame) else df.copy()
    study(df)
    return df.equals(before)


correct("study", "the caller's polars frame is left as it is", bool)(
    lambda o: _untouched(table(alt=pl.col("alt").cast(pl.Categorical))))
correct("study", "the caller's pandas frame is left as it is", bool)(
    lambda o: _untouched(table().to_pandas()))


def _noisy_table():
    rng = np.random.default_rng(0)
    base = rng.choice([0.1, 0.2, 0.3, 0.7], size=(8, 4, 3))
    base[:, 1] = base[:, 0, ::-1]  # equal means in exact arithmetic, different float sums
    rows = [(f"d{i}", f"a{j}", s, float(base[i, j, s]))
            for i in range(8) for j in range(4) for s in range(3)]
    return pl.DataFrame(rows, schema=["ds", "alt", "seed", "acc"], orient="row")


def _same_rankings(pair):
    a, b = pair
    return all(np.array_equal(x.rankings, y.rankings)
               for x, y in zip(a.samples(), b.samples(), strict=True))


correct("study", "rankings invariant to score * 3 + 1", _same_rankings)(
    lambda o: (study(_noisy_table()),
               study(_noisy_table().with_columns(pl.col("acc") * 3 + 1))))
correct("study", "rankings invariant to row order", _same_rankings)(
    lambda o: (study(_noisy_table()),
               study(_noisy_table().sample(fraction=1.0, shuffle=True, seed=1))))


# ---- ranks, kernels, MMD -----------------------------------------------------------------


def _mmd(x, y, k=None):
    from genexpy_nb.generalizability.mmd import mmd

    return mmd(np.asarray(x), np.asarray(y), k or gx.Mallows().resolve(3))


add_clear("rank", "rank_scores with inf", lambda o: gx.rank_scores([[1.0, np.inf]], True), "inf")
add_clear("rank", "rank_scores of a 3-d array", lambda o: gx.rank_scores(np.zeros((2, 2, 2)), True),
          "matrix")
add_clear("rank", "rank_scores of strings", lambda o: gx.rank_scores([["a", "b"]], True),
          "numbers")
add_clear("rank", "rank_scores without a direction", lambda o: gx.rank_scores([[1.0, 2.0]]),
          "higher_is_better=")
correct("rank", "rank_scores near-tie", lambda r: r.tolist() == [[0, 0, 1]])(
    lambda o: gx.rank_scores([[0.1 + 0.2, 0.3, 0.2]], True))
add_clear("mmd", "mmd with an empty sample",
          lambda o: _mmd(np.zeros((0, 3), int), [[0, 1, 2]]), "empty")
add_clear("mmd", "mmd with a negative tier", lambda o: _mmd([[0, -1, 2]], [[0, 1, 2]]),
          "negative")
add_clear("mmd", "Jaccard on negative tiers",
          lambda o: gx.Jaccard(1).resolve(3)([0, 1, -2], [0, 1, 2]), "negative")
add_clear("mmd", "non-integer tiers", lambda o: _mmd([[0, 0.5, 2]], [[0, 1, 2]]), "integer")
add_clear("mmd", "rankings of the wrong width", lambda o: _mmd([[0, 1]], [[0, 1]]), "3")
add_clear("mmd", "mmd_distribution on an empty sample",
          lambda o: __import__("genexpy_nb.generalizability.mmd", fromlist=["x"]).mmd_distribution(
              np.zeros((0, 3), int), gx.Mallows().resolve(3), 1), "empty")
add_clear("mmd", "draw_pairs with n > N/2",
          lambda o: __import__("genexpy_nb.generalizability.mmd",
                               fromlist=["x"]).draw_pairs(10, 6, 5), "n")
add_clear("mmd", "draw_pairs with rep = 10**12",
          lambda o: __import__("genexpy_nb.generalizability.mmd",
                               fromlist=["x"]).draw_pairs(10, 2, 10**12),
          "rep")
add_clear("kernel", "Jaccard k=0", lambda o: gx.Jaccard(k=0), "k")
add_clear("kernel", "Jaccard k=1.5", lambda o: gx.Jaccard(k=1.5), "k")
add_clear("kernel", "Mallows nu=-1", lambda o: gx.Mallows(nu=-1.0).resolve(3), "nu")
add_clear("kernel", "Mallows nu=nan", lambda o: gx.Mallows(nu=float("nan")).resolve(3), "nu")
add_clear("kernel", "Borda of an unknown alternative",
          lambda o: gx.Borda("zz").resolve(3, ["a", "b", "c"]), "'zz'")
add_clear("kernel", "RBF gamma < 0", lambda o: gx.RBF(gamma=-1.0), "gamma")
add_clear("kernel", "parse_kernel('jaccard:k=x')", lambda o: gx.parse_kernel("jaccard:k=x"),
          "k")
add_clear("kernel", "parse_kernel('nope')", lambda o: gx.parse_kernel("nope"), "nope")


# ---- the analysis: parameters bounded before work starts ---------------------------------

_ST = None


def st():
    global _ST
    if _ST is None:
        _ST = study(table(n_ds=10))
    return _ST


def an(**kw):
    kw = {"rep": 20, "progress": False, **kw}
    return gx.analyze(st(), kw.pop("kernels", [gx.Jaccard(k=1)]), **kw)


add_clear("analyze", "rep=10**9 (terabytes)", lambda o: an(rep=10**9), "rep=1000000000",
          "or less")
add_clear("analyze", "rep=1", lambda o: an(rep=1), "rep")
add_clear("analyze", "rep=2.5", lambda o: an(rep=2.5), "rep")
add_clear("analyze", "rep=True", lambda o: an(rep=True), "rep")
add_clear("analyze", "seed=-1", lambda o: an(seed=-1), "seed")
add_clear("analyze", "alphas=[1.5]", lambda o: an(alphas=[1.5]), "alpha")
add_clear("analyze", "alphas=[]", lambda o: an(alphas=[]), "alphas")
add_clear("analyze", "alphas=[nan]", lambda o: an(alphas=[float("nan")]), "alphas")
add_clear("analyze", "deltas=[inf]", lambda o: an(deltas=[float("inf")]), "deltas")
add_clear("analyze", "deltas='x'", lambda o: an(deltas="x"), "deltas")
add_clear("analyze", "10**4 alphas x 10**4 deltas (10**8 rows)",
          lambda o: an(alphas=np.linspace(0.01, 0.99, 10**4), deltas=np.linspace(0.01, 1, 10**4)),
          "alphas x deltas=100000000", "or less")
add_clear("analyze", "estimators=['bogus']", lambda o: an(estimators=["bogus"]), "bogus")
add_clear("analyze", "no kernel", lambda o: an(kernels=[]), "kernel")
add_clear("analyze", "a kernel given as a string", lambda o: an(kernels=["jaccard"]),
          "parse_kernel")
add_clear("analyze", "the same kernel twice", lambda o: an(kernels=[gx.Mallows(), gx.Mallows()]),
          "twice")
add_clear("analyze", "Borda of an absent alternative", lambda o: an(kernels=[gx.Borda("zz")]),
          "'zz'")
add_clear("analyze", "level=1.5", lambda o: an(level=1.5), "level")
add_clear("analyze", "fit='x'", lambda o: an(fit="x"), "fit")
add_clear("analyze", "a frame instead of a Study", lambda o: gx.analyze(table(), [gx.Mallows()]),
          "Study")
correct("analyze", "deltas=[0.05, 0.05] gives each row once",
        lambda r: r.height == r.unique(subset=["kernel_label", "alpha", "delta",
                                               "method"]).height)(
    lambda o: an(deltas=[0.05, 0.05], alphas=[0.9, 0.9], estimators=["approx", "approx"]))
correct("analyze", "a study of 10 datasets: one row per question and estimate",
        lambda r: set(r["method"]) == {"resample"} and r.height == 2)(
    lambda o: an(kernels=[gx.Jaccard(k=1), gx.Mallows()], estimators=["resample"], alphas=[0.95],
                 deltas=[0.05]))
add_clear("plan", "plan(alpha=2)", lambda o: gx.plan(an(), alpha=2.0), "alpha")
add_clear("plan", "plan of a frame without n*", lambda o: gx.plan(table()), "nstar")
add_clear("plan", "simulate_preliminary_study N0=1",
          lambda o: gx.simulate_preliminary_study(st(), [gx.Mallows()], 0, N0=1, rep=20,
                                                  progress=False), "N0")
add_clear("plan", "simulate_preliminary_study rep=10**9",
          lambda o: gx.simulate_preliminary_study(st(), [gx.Mallows()], 0, N0=4, rep=10**9,
                                                  progress=False), "rep")


# ---- seed variability -----------------------------------------------------------------------


def var(name):
    from genexpy_nb import variability

    return getattr(variability, name)


_R = np.random.default_rng(0)
_P = _R.random((40, 2))
_Y = _R.integers(0, 2, 40)
_REF = _R.normal(size=(5, 60))
_CAND = _R.normal(size=(3, 60))
correct("variability", "ece given probabilities (T,): computed, with a warning that says so",
        lambda r: 0.0 <= r <= 1.0, warns=True)(lambda o: var("ece")(_P[:, 1], _Y))
add_clear("variability", "ece given a (T, 2) probability matrix",
          lambda o: var("ece")(_P, _Y), "gaps")
add_clear("variability", "accuracy given (T, 2) logits",
          lambda o: var("accuracy")(_R.normal(size=(40, 2)), _Y), "gaps")
add_clear("variability", "churn of mismatched lengths",
          lambda o: var("churn")(np.ones(5), np.ones(6)), "6")
add_clear("variability", "labels of the wrong length",
          lambda o: var("ece")(_R.normal(size=40), _Y[:-1]), "labels")
add_clear("variability", "labels not 0/1", lambda o: var("ece")(_R.normal(size=40), _Y * 2 - 1),
          "labels")
add_clear("variability", "gaps with NaN", lambda o: var("ece")(np.r_[np.nan, np.ones(39)], _Y),
          "NaN")
add_clear("variability", "empty gaps", lambda o: var("ece")(np.zeros(0), np.zeros(0)), "gaps")
add_clear("variability", "ece bins=10**10",
          lambda o: var("ece")(_R.normal(size=40), _Y, 10**10), "bins=10000000000", "or less")
add_clear("variability", "ece bins=0", lambda o: var("ece")(_R.normal(size=40), _Y, 0), "bins")
add_clear("variability", "alpha_hat with T = 4 test points (can never reject)",
          lambda o: var("alpha_hat")(_REF[:, :4], _REF[:1, :4] + 50, B=5, progress=False),
          "T = 4", "at least 16 test points")
add_clear("variability", "alpha_hat B=10**9",
          lambda o: var("alpha_hat")(_REF, _CAND, B=10**9, progress=False), "B=", "or less")
add_clear("variability", "alpha_hat B=0",
          lambda o: var("alpha_hat")(_REF, _CAND, B=0, progress=False), "B")
add_clear("variability", "alpha_hat eps=1.5",
          lambda o: var("alpha_hat")(_REF, _CAND, B=5, eps=1.5, progress=False), "eps")
add_clear("variability", "alpha_hat grid=[0.7]",
          lambda o: var("alpha_hat")(_REF, _CAND, B=5, grid=[0.7], progress=False), "grid")
add_clear("variability", "alpha_hat grid=[nan]",
          lambda o: var("alpha_hat")(_REF, _CAND, B=5, grid=[float("nan")], progress=False),
          "grid")
add_clear("variability", "alpha_hat reference of one model",
          lambda o: var("alpha_hat")(_REF[:1], _CAND, B=5, progress=False), "ref_gaps")
add_clear("variability", "alpha_hat candidates on other test points",
          lambda o: var("alpha_hat")(_REF, _CAND[:, :50], B=5, progress=False), "cand_gaps")
add_clear("variability", "alpha_hat clip=-1",
          lambda o: var("alpha_hat")(_REF, _CAND, B=5, clip=-1.0, progress=False), "clip")
add_clear("variability", "robust_ks_test on 7 reference values",
          lambda o: var("robust_ks_test")(np.zeros(7), np.ones(7)), "at least 8")
add_clear("variability", "candidate_report B=10**9",
          lambda o: var("candidate_report")(_REF, _CAND, np.ones(60), B=10**9, progress=False),
          "B=")
correct("variability", "alpha_hat on 16 test points rejects a +50 shift",
        lambda r: r["alpha_hat"][0] == 0.5)(
    lambda o: var("alpha_hat")(_REF[:, :16], _REF[:1, :16] + 50, B=5, progress=False))


# ---- significance -----------------------------------------------------------------------------


def sig(name):
    from genexpy_nb import significance

    return getattr(significance, name)


_X = np.random.default_rng(3).random(20)
correct("significance", "cohens_dz(x, x + 0.01): the documented degenerate value",
        lambda r: r.statistic == -np.inf, warns=True)(
    lambda o: sig("cohens_dz")(_X, _X + 0.01))
add_clear("significance", "cohens_dz of unequal lengths",
          lambda o: sig("cohens_dz")(_X, _X[:-1]), "same length")
add_clear("significance", "cohens_dz of one pair", lambda o: sig("cohens_dz")([1.0], [2.0]),
          "at least 2")
add_clear("significance", "cohens_dz with NaN", lambda o: sig("cohens_dz")(
    np.r_[_X[:-1], np.nan], _X), "nan_policy")
add_clear("significance", "rank_biserial alternative='sideways'",
          lambda o: sig("rank_biserial")(_X, _X + 1, alternative="sideways"), "alternative")
add_clear("significance", "cliffs_delta with an empty sample",
          lambda o: sig("cliffs_delta")(_X, []), "at least one")
add_clear("significance", "friedman without higher_is_better",
          lambda o: sig("friedman")(np.random.default_rng(0).random((5, 3))),
          "higher_is_better")
add_clear("significance", "friedman of strings",
          lambda o: sig("friedman")([["a", "b"], ["c", "d"]], higher_is_better=True), "data")
add_clear("significance", "posthoc_conover p_adjust='bogus'",
          lambda o: sig("posthoc_conover")(np.random.default_rng(0).random((6, 3)),
                                           p_adjust="bogus", higher_is_better=True), "bogus")
add_clear("significance", "critical_difference alpha=2",
          lambda o: sig("critical_difference")(np.random.default_rng(0).random((6, 3)),
                                               alpha=2.0, higher_is_better=True), "alpha")
add_clear("significance", "mcnemar of labels of unequal lengths",
          lambda o: sig("mcnemar")([0, 1, 1], [0, 1], [1, 1, 0]), "y_pred_a")


# ---- loaders: results tables ------------------------------------------------------------------


def rr(name):
    from genexpy_nb.io.public import read_results

    return read_results(F(name))


for _name, (_content, _msg) in crafted.BAD_TABLES.items():
    add_clear("read_results", _name, lambda o, n=_name: rr(f"bad/{n}"), _name, _msg)
add_clear("read_results", "a folder named x.csv", lambda o: rr("x.csv"), "is a folder")
add_clear("read_results", "a symlink loop", lambda o: rr("loop.csv"), "loops back")
add_clear("read_results", "a missing file", lambda o: rr("absent.csv"), "not found")
add_clear("read_results", "a number instead of a path",
          lambda o: __import__("genexpy_nb.io.public", fromlist=["x"]).read_results(3.5), "results")


def _int_then_float(o: Path):
    p = o / "r.csv"
    p.write_text("ds,alt,acc\n" + "".join(f"d{i},a,{i % 2}\n" for i in range(150))
                 + "d150,a,0.5\n")
    return __import__("genexpy_nb.io.public", fromlist=["x"]).read_results(p)


correct("read_results", "0/1 scores in 150 rows, then fractions",
        lambda df: df.schema["acc"] == pl.Float64 and df["acc"][-1] == 0.5)(_int_then_float)


def _na_row_200(o: Path):
    p = o / "r.csv"
    p.write_text("ds,alt,acc\n" + "".join(f"d{i},a,0.5\n" for i in range(199)) + "d199,a,n/a\n")
    return __import__("genexpy_nb.io.public", fromlist=["x"]).read_results(p)


correct("read_results", "'n/a' in row 200 is a missing number",
        lambda df: df.schema["acc"] == pl.Float64 and df["acc"].null_count() == 1)(_na_row_200)
add_clear("read_results", "'n/a' in row 200 into a Study",
          lambda o: study(_na_row_200(o).with_columns(seed=pl.lit(0))), "'acc'", "invalid_target")


# ---- loaders: pools, CIFAR, weights, resumed training --------------------------------------


def pool(name):
    from genexpy_nb.seedpools import load_pool

    return load_pool(F(name))


for _kind, (_make, _msg) in crafted.CRAFTED_NPZ.items():
    add_clear("load_pool", _kind, lambda o, k=_kind: pool(f"npz/{k.replace(' ', '_')}.npz"),
              "pool file", _msg)
add_clear("load_pool", "a folder named x.npz", lambda o: pool("dir.npz"), "is a folder")
add_clear("load_pool", "neither a file nor a shipped pool",
          lambda o: __import__("genexpy_nb.seedpools", fromlist=["x"]).load_pool(
              "no_such_pool.npz"), "no_such_pool.npz")


def cifar(name):
    from genexpy_nb.seedpools import load_cifar10_binary

    return load_cifar10_binary(F(f"cifar/{name}"), n_val=0)


for _kind in crafted.CRAFTED_CIFAR:
    add_clear("cifar", f"batch: {_kind}", lambda o, k=_kind: cifar(k.replace(" ", "_")),
              "data_batch_1")
add_clear("cifar", "a batch that runs code when unpickled", lambda o: cifar("code"),
          "refused without running it")
add_clear("cifar", "a truncated batch", lambda o: cifar("truncated"), "data_batch_1")
add_clear("cifar", "a batch that is a list", lambda o: cifar("notadict"), "dict")
add_clear("cifar", "a folder without batches",
          lambda o: __import__("genexpy_nb.seedpools", fromlist=["x"]).load_cifar10_binary(
              o / "nowhere"), "data_batch_1")
add_clear("cifar", "n_val larger than the training set",
          lambda o: __import__("genexpy_nb.seedpools", fromlist=["x"]).load_cifar10_binary(
              F("cifar/good"), n_val=10**6), "n_val")
correct("cifar", "a good folder reads", lambda t: t.X_test.shape[1:] == (3, 32, 32))(
    lambda o: cifar("good"))


def weights(name):
    from genexpy_nb.seedpools.vit import read_state

    return read_state(F(name))


add_clear("weights", "a truncated weights file", lambda o: weights("w_trunc.pt"),
          "could not read weights")
add_clear("weights", "a weights file holding a pickled object",
          lambda o: weights("w_evil.pt"), "could not read weights")


def _resume_config(o: Path, text: str):
    from genexpy_nb.seedpools.pools import PartialPool

    part = PartialPool(o / "pool.npz", {"seed": 0})
    part.dir.mkdir(parents=True)
    (part.dir / "config.json").write_text(text)
    return part.open()


for _text in ("{not json", "[1, 2]", ""):
    add_clear("resume", f"config.json holding {_text!r}",
              lambda o, t=_text: _resume_config(o, t), "config.json", "overwrite=True")


def _resume_damaged_model(o: Path):
    from genexpy_nb.seedpools.pools import PartialPool

    part = PartialPool(o / "pool.npz", {"seed": 0})
    part.open()
    for i in range(3):
        part.save(i, {"gaps": np.zeros(4, np.float32)})
    f = part.dir / "model_00001.npz"
    f.write_bytes(f.read_bytes()[:30])
    return part.done()


correct("resume", "a truncated model file is set aside and trained again",
        lambda done: done == {0, 2}, warns=True)(_resume_damaged_model)


# ---- the command line ----------------------------------------------------------------------

NSTAR = ["--alternatives", "alt", "--target", "acc", "--higher-is-better", "--generalize",
         "ds", "--average-over", "seed", "--quiet", "--rep", "20"]
COMPARE = ["--alternatives", "alt", "--target", "acc", "--blocks", "ds", "--average-over",
           "seed", "--higher-is-better", "--figures", ""]
SEEDS = ["--B", "5", "--quiet"]


def _nstar(o, src="r.csv", *extra, out="n.csv"):
    return cli("nstar", F(src) if src in INPUTS else src, *NSTAR, *extra, "--out",
               o / out if "/" not in str(out) else out)


def _compare(o, src="r.csv", *extra, out="cmp"):
    return cli("compare", F(src) if src in INPUTS else src, *COMPARE, *extra, "--out",
               o / out if "/" not in str(out) else out)


# nstar
add_clear("cli nstar", "--out onto its CSV input", lambda o: cli(
    "nstar", F("r.csv"), *NSTAR, "--out", F("r.csv")), "is the input file")
add_clear("cli nstar", "--out onto its parquet input", lambda o: cli(
    "nstar", F("r.parquet"), *NSTAR, "--out", F("r.parquet")), "is the input file")
add_clear("cli nstar", "--out onto a link to its input", lambda o: cli(
    "nstar", F("link.csv"), *NSTAR, "--out", F("r.csv")), "is the input file")
add_clear("cli nstar", "--rep 1000000000", lambda o: _nstar(o, "r.csv", "--rep", "1000000000"),
          "--rep 1000000000", "or less")
add_clear("cli nstar", "--rep 0", lambda o: _nstar(o, "r.csv", "--rep", "0"), "--rep")
add_clear("cli nstar", "--alpha 2", lambda o: _nstar(o, "r.csv", "--alpha", "2"), "--alpha")
add_clear("cli nstar", "--delta x", lambda o: _nstar(o, "r.csv", "--delta", "x"), "--delta")
add_clear("cli nstar", "--kernel bogus", lambda o: _nstar(o, "r.csv", "--kernel", "bogus"),
          "--kernel")
add_clear("cli nstar", "--estimators bogus", lambda o: _nstar(o, "r.csv", "--estimators", "bogus"),
          "bogus")
add_clear("cli nstar", "--target absent", lambda o: cli(
    "nstar", F("r.csv"), *NSTAR, "--target", "nope", "--out", o / "n.csv"), "'nope'")
add_clear("cli nstar", "--held-constant without '='",
          lambda o: _nstar(o, "r.csv", "--held-constant", "ds"), "--held-constant")
add_clear("cli nstar", "--held-constant on a factor with a role",
          lambda o: _nstar(o, "r.csv", "--held-constant", "ds=d1"), "'ds'", "several roles")
add_clear("cli nstar", "--held-constant level absent",
          lambda o: _nstar(o, "r_m.csv", "--held-constant", "m=zz"), "'zz'", "'m'")
add_clear("cli nstar", "--out with an unknown suffix",
          lambda o: _nstar(o, "r.csv", out="n.xlsx"), "--out")
add_clear("cli nstar", "--out under a file",
          lambda o: _nstar(o, "r.csv", out=str(F("r.csv") / "n.csv")), "is a file")
add_clear("cli nstar", "a string target", lambda o: _nstar(o, "strtarget.csv"), "'acc'")
add_clear("cli nstar", "one alternative", lambda o: _nstar(o, "one_alt.csv"), "'alt'")
add_clear("cli nstar", "every target empty, --invalid-target drop",
          lambda o: _nstar(o, "nan_target.csv", "--invalid-target", "drop"), "every score")
add_clear("cli nstar", "a column named __condition__",
          lambda o: cli("nstar", F("reserved.csv"), "--alternatives", "alt", "--target", "acc",
                        "--higher-is-better", "--generalize", "ds", "--average-over",
                        "__condition__", "--quiet", "--out", o / "n.csv"), "'__condition__'")
for _bad in ("empty.csv", "binary.csv", "latin1.csv", "ragged.csv", "trunc.parquet",
             "twice.csv"):
    add_clear("cli nstar", f"unreadable table {_bad}",
              lambda o, b=_bad: _nstar(o, f"bad/{b}"), _bad)
for _bad, _msg in (("x.csv", "is a folder"), ("loop.csv", "loops back"),
                   ("absent.csv", "not found")):
    add_clear("cli nstar", f"results path {_bad}", lambda o, b=_bad: _nstar(o, b), _msg)
correct("cli nstar", "a good table", lambda r: r.rc == 0 and pl.read_csv(
    r.folder).height > 0)(lambda o: (lambda r: (setattr(r, "folder", o / "n.csv"), r)[1])(
        _nstar(o, "r.csv", "--estimators", "approx")))
correct("cli nstar", "names that are payloads", lambda r: r.rc == 0)(
    lambda o: _nstar(o, "payload.csv", "--estimators", "approx"))

# compare
add_clear("cli compare", "--out is its input", lambda o: cli(
    "compare", F("r.csv"), *COMPARE, "--out", F("r.csv")), "is the input file")


def _compare_in_old_output(o: Path):
    first = _compare(o, "r.csv")
    assert first.rc == 0
    (o / "cmp" / "r.csv").write_bytes(F("r.csv").read_bytes())
    before = (o / "cmp" / "r.csv").read_bytes()
    run = cli("compare", o / "cmp" / "r.csv", *COMPARE, "--out", o / "cmp")
    assert (o / "cmp" / "r.csv").read_bytes() == before
    return run


add_clear("cli compare", "--out an earlier output folder that holds the input",
          _compare_in_old_output, "holds the input file")
add_clear("cli compare", "alternatives in a column named __block__",
          lambda o: cli("compare", F("reserved_alt.csv"), "--alternatives", "__block__",
                        *COMPARE[2:], "--out", o / "c"), "'__block__'")
add_clear("cli compare", "--figures bogus", lambda o: cli(
    "compare", F("r.csv"), *COMPARE[:-2], "--figures", "gif", "--out", o / "c"), "--figures")
add_clear("cli compare", "--alpha 2", lambda o: _compare(o, "r.csv", "--alpha", "2"), "--alpha")
add_clear("cli compare", "one alternative", lambda o: _compare(o, "one_alt.csv"), "'alt'")
correct("cli compare", "every score tied: the documented degenerate result",
        lambda r: r.rc == 0 and "p = 1.000 -> no significant difference" in r.out
        )(lambda o: _compare(o, "ties.csv"))
add_clear("cli compare", "a string target", lambda o: _compare(o, "strtarget.csv"), "'acc'")
add_clear("cli compare", "several rows per pair without --average-over", lambda o: cli(
    "compare", F("r.csv"), *COMPARE[:6], "--higher-is-better", "--figures", "", "--out",
    o / "c"), "--average-over")
add_clear("cli compare", "--out a folder of the user's files",
          lambda o: (o / "mine").mkdir() or (o / "mine" / "notes.txt").write_text("x") and
          _compare(o, "r.csv", out="mine"), "never overwritten")
add_clear("cli compare", "unreadable table (binary)", lambda o: _compare(o, "bad/binary.csv"),
          "binary data")
correct("cli compare", "names that are payloads, every figure",
        lambda r: r.rc == 0)(lambda o: cli(
            "compare", F("payload.csv"), *COMPARE[:-2], "--figures", "html,svg,png", "--out",
            o / "cmp"))

# seeds
add_clear("cli seeds", "--B 1000000000", lambda o: cli(
    "seeds", F("gaps.npz"), "--B", "1000000000", "--quiet", "--out", o / "s.csv"),
    "B=1000000000", "or less")
add_clear("cli seeds", "--B 0", lambda o: cli("seeds", F("gaps.npz"), "--B", "0",
                                               "--out", o / "s.csv"), "--B")
add_clear("cli seeds", "4 test points", lambda o: cli(
    "seeds", F("t4.npz"), *SEEDS, "--out", o / "s.csv"), "T = 4")
add_clear("cli seeds", "probabilities, not logit gaps", lambda o: cli(
    "seeds", F("probs.npz"), *SEEDS, "--out", o / "s.csv"), "probabilities")
add_clear("cli seeds", "1-d gaps", lambda o: cli(
    "seeds", F("oned.npz"), *SEEDS, "--out", o / "s.csv"), "2-d")
add_clear("cli seeds", "no labels", lambda o: cli(
    "seeds", F("nolabels.npz"), *SEEDS, "--out", o / "s.csv"), "'labels'")
add_clear("cli seeds", "NaN gaps", lambda o: cli(
    "seeds", F("nan_gaps.npz"), *SEEDS, "--out", o / "s.csv"), "NaN")
add_clear("cli seeds", "--n-reference 8 of 8 models", lambda o: cli(
    "seeds", F("gaps.npz"), *SEEDS, "--n-reference", "8", "--out", o / "s.csv"),
    "--n-reference")
add_clear("cli seeds", "--out onto the pool", lambda o: cli(
    "seeds", F("gaps.npz"), *SEEDS, "--out", F("gaps.npz")), "--out")
add_clear("cli seeds", "a folder named x.npz", lambda o: cli(
    "seeds", F("dir.npz"), *SEEDS, "--out", o / "s.csv"), "folder")
for _kind in ("a_member_inflating_4_GB_from_80_bytes", "a_.npy_renamed_.npz",
              "a_member_declaring_10**12_floats_in_8_bytes", "a_truncated_archive"):
    add_clear("cli seeds", f"pool file: {_kind.replace('_', ' ')}",
              lambda o, k=_kind: cli("seeds", F(f"npz/{k}.npz"), *SEEDS, "--out", o / "s.csv"),
              "pool file")
correct("cli seeds", "a plain archive of gaps and labels",
        lambda r: r.rc == 0 and "4 candidates" in r.err and "4 candidates" in r.out)(
    lambda o: cli("seeds", F("gaps.npz"), "--B", "5", "--out", o / "s.csv"))

# demo and precompile (their work is tested elsewhere; here, what they refuse)
add_clear("cli demo", "--out a file", lambda o: cli("demo", "--out", F("r.csv"), "--quiet"),
          "not a folder")
add_clear("cli demo", "--out a folder of the user's files",
          lambda o: cli("demo", "--out", F("x.csv").parent, "--quiet"), "never overwritten")
add_clear("cli demo", "--rep 0", lambda o: cli("demo", "--rep", "0"), "--rep")
add_clear("cli demo", "--rep 1000000000", lambda o: cli("demo", "--rep", "1000000000",
                                                         "--quiet", "--out", o / "d"),
          "--rep 1000000000")
add_clear("cli demo", "--seed x", lambda o: cli("demo", "--seed", "x"), "--seed")
add_clear("cli precompile", "an unknown option", lambda o: cli("precompile", "--fast"),
          "--fast")
add_clear("cli", "no command", lambda o: cli(), "COMMAND")
add_clear("cli", "an unknown command", lambda o: cli("analyse"), "analyse")
correct("cli", "--version", lambda r: r.rc == 0 and "genexpy-nb" in r.out + r.err)(
    lambda o: cli("--version"))


# ---- generated cases: escaping, degenerate estimates, bounded work, corners, outputs ------
#
# Drawn, not listed: names from the fragments of tests/test_hostile_names.py (each breaks
# some format when written raw), sizes and values from a seeded generator. Every CLI case of
# the sweep, these and the ones above, is also checked for what it printed (no escape
# sequence, no control character) and for every file it wrote, by format (see outcome()).

import test_hostile_names as hostile_names  # noqa: E402  (after sys.path is set)

_GEN = np.random.default_rng(39)


def _hostile_name(rng: np.random.Generator) -> str:
    """A name of 1 to 4 fragments that shows as something (not only control characters)."""
    while True:
        parts = rng.choice(len(hostile_names.FRAGMENTS), size=int(rng.integers(1, 5)))
        name = "".join(hostile_names.FRAGMENTS[i] for i in parts) + str(rng.integers(10))
        if hostile_names.shown(name):
            return name


def _hostile_names(rng: np.random.Generator, k: int) -> list[str]:
    out: list[str] = []
    while len(out) < k:
        n = _hostile_name(rng)
        if hostile_names.shown(n) not in {hostile_names.shown(o) for o in out}:
            out.append(n)
    return out


def _hostile_compare(o: Path, names: list[str], block: str, *extra: str) -> CliRun:
    src = o / "in" / "r.parquet"
    src.parent.mkdir(parents=True, exist_ok=True)
    hostile_names._table(names, block, "seed").write_parquet(src)
    run = cli("compare", src, "--alternatives", "alt", "--target", "acc", "--blocks", block,
              "--average-over", "seed", "--higher-is-better", "--tol-missing-conditions",
              "0.5", *extra, "--out", o / "cmp")
    run.folder = o / "cmp"
    return run


for _i in range(6):
    _names = _hostile_names(_GEN, int(_GEN.integers(3, 5)))
    _block = "fold " + _hostile_name(_GEN).replace(",", "") + " end"
    correct("escaping", f"compare of generated names #{_i}: every file and line escaped",
            lambda r: r.rc == 0 and (r.folder / "report.md").is_file(), warns=True)(
        lambda o, n=_names, b=_block: _hostile_compare(
            o, n, b, "--bayesian-rope", "0.01", "--figures", "html,svg"))
    _ctl = _hostile_name(_GEN) + "x"
    add_clear("escaping", f"an unknown generated --control #{_i}",
              lambda o, n=_names, b=_block, c=_ctl: _hostile_compare(
                  o, n, b, f"--control={c}", "--figures", ""), "--control")
add_clear("escaping", "names shown alike are refused, not drawn with one label",
          lambda o: _hostile_compare(o, ["a", "a\x00\u202e", "b"], "ds", "--figures", ""),
          "show them alike", "'alt'")


def _hostile_pool(o: Path, rng: np.random.Generator) -> str:
    from genexpy_nb.seedpools.pools import SeedPool, save_pool, write_manifest

    m, n = 2, 4
    z = np.zeros(m, np.float32)
    meta = {k: _hostile_name(rng) for k in ("kind", "description", "command", "created")}
    meta.update(config={"source": _hostile_name(rng), "epochs": 1, "seed": 0},
                task={"name": _hostile_name(rng)}, versions={"x": _hostile_name(rng)})
    pool = SeedPool(gaps=np.ones((m, n), np.float32), labels=np.zeros(n, np.int8),
                    test_index=np.arange(n), val_accuracy=z, test_accuracy=z,
                    val_accuracy_curve=np.zeros((m, 1), np.float32), train_loss=np.zeros((m, 1)),
                    wall_time_s=z, cpu_time_s=z, init_seed=np.arange(m, dtype=np.uint64),
                    order_seed=np.arange(m, dtype=np.uint64), meta=meta)
    name = re.sub(r"[/\x00]", "", _hostile_name(rng))[:80] or "p"
    save_pool(pool, o / f"{name}.npz")
    md = Path(write_manifest(o)[1]).read_text(encoding="utf-8")
    hostile_names.check_markdown(md)
    return md


for _i in range(4):
    _s = int(_GEN.integers(1 << 30))
    correct("escaping", f"POOLS.md of a pool with generated meta fields #{_i}",
            lambda md: "## Files" in md)(lambda o, s=_s: _hostile_pool(
                o, np.random.default_rng(s)))


# degenerate estimates: the symmetric or undefined answer with a warning, or a refusal
def _identical_bayes(x):
    from genexpy_nb.significance import bayesian_signed_rank

    return bayesian_signed_rank(x, x.copy(), rope=0, higher_is_better=True, nsamples=500)


for _i in range(3):
    _x = _GEN.random(int(_GEN.integers(2, 30)))
    correct("degenerate", f"Bayesian signed-rank of identical alternatives, rope 0 #{_i}",
            lambda r: r.probs == (0.5, 0.0, 0.5) and "symmetric" in r.note, warns=True)(
        lambda o, x=_x: _identical_bayes(x))
    _runs = {"one": _GEN.random((1, int(_GEN.integers(2, 9))))}
    correct("degenerate", f"intervals from one run per task are undefined #{_i}",
            lambda f: f["low"].is_nan().all() and f["estimate"].is_finite().all(),
            warns=True)(lambda o, r=_runs: gx.aggregates.interval_estimates(r, reps=50))
    _n = int(_GEN.integers(1, 4))
    _big = float(10.0 ** _GEN.integers(101, 309))
    add_clear("degenerate", f"scores of {_big:.0e} in compare #{_i}",
              lambda o, b=_big: gx.significance.compare(
                  table(acc=pl.col("acc") * b), alternatives="alt", target="acc",
                  blocks="ds", average_over="seed", higher_is_better=True), "'acc'", "Rescale")
    _int = int(2**53 + _GEN.integers(1, 2**62))
    add_clear("degenerate", f"integer scores above 2**53 in a Study #{_i}",
              lambda o, b=_int: study(table(acc=pl.int_range(pl.len()) + b)), "'acc'",
              "2**53")
    add_clear("degenerate", f"rank probabilities of one condition #{_i}",
              lambda o: gx.rank_probabilities(study(table(n_ds=1)), rep=10),
              "at least 2 conditions")


def _bool_in_pandas(row: int):
    pdf = table().to_pandas()
    pdf["acc"] = pdf["acc"].astype(object)
    pdf.loc[row, "acc"] = bool(row % 2)
    return study(pdf)


for _row in _GEN.choice(36, size=3, replace=False):
    add_clear("degenerate", f"a boolean in a pandas score column, row {_row}",
              lambda o, r=int(_row): _bool_in_pandas(r), "'acc'", "boolean")

# bounded work: refused before it starts, the size and the fix named
for _rep in (10**9, 2 * 10**6):
    add_clear("bounded", f"rank_probabilities(rep={_rep})",
              lambda o, r=_rep: gx.rank_probabilities(study(table()), rep=r), "rep=", "rep=2000")
for _k in (int(_GEN.integers(3163, 4000)), 6000):  # over 5,000,000 pairs
    add_clear("bounded", f"win_tie_loss of {_k} alternatives",
              lambda o, k=_k: gx.significance.win_tie_loss(
                  np.random.default_rng(k).random((5, k)), higher_is_better=True),
              f"{_k:,} alternatives", "order=[...]")
add_clear("bounded", "performance_profile: 2,000 replicates x 100,000 thresholds",
          lambda o: gx.aggregates.performance_profile({"a": np.random.default_rng(0).random(
              (3, 4))}, 100_000, reps=2000), "reps=2,000", "thresholds")
add_clear("bounded", "compare: 6,400 alternatives, all pairs",
          lambda o: gx.significance.compare(pl.DataFrame({
              "d": np.repeat(["d0", "d1", "d2"], 6400),
              "m": np.tile([f"m{j}" for j in range(6400)], 3),
              "acc": np.arange(3 * 6400, dtype=float)}), alternatives="m", target="acc",
              blocks="d", higher_is_better=True), "6,400 alternatives", "control")

# corners: clear errors, not tracebacks
for _seed in (-1, "abc", 2.5, -(2**40)):
    add_clear("corners", f"rank_probabilities(seed={_seed!r})",
              lambda o, s=_seed: gx.rank_probabilities(study(table()), rep=10, seed=s), "seed")


def _pool_with_meta(o: Path, meta: dict):
    from genexpy_nb.seedpools.pools import load_pool

    members = hostile_names._pool_members(meta=np.array(json.dumps(meta)))
    np.savez(o / "p.npz", **members)
    return load_pool(o / "p.npz")


for _field in ("kind", "description", "command", "created", "config", "task", "versions",
               "extra_seconds"):
    _wrong = {"config": [3, "s", ["x"], True], "task": [3, "s", ["x"]],
              "versions": [3, "s", ["x"]], "extra_seconds": ["s", ["x"], True, {"a": 1}]}
    _pick = _wrong.get(_field, [3, ["x"], {"a": 1}, True, 2.5])
    _bad = _pick[int(_GEN.integers(len(_pick)))]
    add_clear("corners", f"a pool whose meta {_field!r} is {_bad!r}",
              lambda o, f=_field, b=_bad: _pool_with_meta(o, {f: b}), f"'{_field}'")


def _zero_models(o: Path):
    from genexpy_nb.seedpools.pools import PER_MODEL_KEYS, load_pool

    m = {k: np.zeros((0, 3) if k in ("gaps", "val_accuracy_curve") else 0, np.float32)
         for k in PER_MODEL_KEYS}
    m.update(labels=np.zeros(3, np.int8), test_index=np.arange(3),
             meta=np.array(json.dumps({"config": {}})))
    np.savez(o / "z.npz", **m)
    return load_pool(o / "z.npz")


add_clear("corners", "a pool of zero models", _zero_models, "0 models")


def _data_dir(o: Path, kind: str):
    import os

    from genexpy_nb.io.public import DATA_DIR_ENV, fetch_public_file

    target = o / "encoders_results.parquet"
    if kind == "folder":
        target.mkdir()
        where = o
    else:
        target.write_text("x")
        where = target
    old = os.environ.get(DATA_DIR_ENV)
    os.environ[DATA_DIR_ENV] = str(where)
    try:
        return fetch_public_file("encoders_results.parquet")
    finally:
        if old is None:
            del os.environ[DATA_DIR_ENV]
        else:
            os.environ[DATA_DIR_ENV] = old


add_clear("corners", "GENEXPY_NB_DATA_DIR holds a folder of the data file's name",
          lambda o: _data_dir(o, "folder"), "is a folder")
add_clear("corners", "GENEXPY_NB_DATA_DIR is a file", lambda o: _data_dir(o, "file"),
          "is a file")


# outputs: a user's file in an earlier output folder is never deleted
def _user_file_in_old_output(o: Path):
    first = _compare(o, "r.csv")
    assert first.rc == 0
    (o / "cmp" / "mine.txt").write_text("keep me")
    run = _compare(o, "r.csv")
    assert (o / "cmp" / "mine.txt").read_text() == "keep me"
    return run


add_clear("outputs", "a user's file in an earlier output folder", _user_file_in_old_output,
          "mine.txt", "Move those files")


# ---- the test ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    build_inputs(tmp_path_factory.mktemp("hostile_inputs"))
    return INPUTS


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input(case: Case, inputs, tmp_path):
    kind, msg = outcome(case, tmp_path)
    assert kind == case.expect, f"{case.id}: {kind}: {msg}"


def counts() -> dict[str, int]:
    out: dict[str, int] = {}
    for c in CASES:
        out[c.expect] = out.get(c.expect, 0) + 1
    return out


def test_the_sweep_is_broad():
    groups = {c.group for c in CASES}
    assert len(CASES) >= 150, len(CASES)
    for g in ("cli nstar", "cli compare", "cli seeds", "cli demo", "cli precompile",
              "read_results", "load_pool", "cifar", "weights", "resume", "study", "analyze",
              "variability", "significance", "escaping", "degenerate", "bounded", "corners",
              "outputs"):
        assert g in groups
    print(f"\nhostile-input sweep: {len(CASES)} cases, {json.dumps(counts())}")
