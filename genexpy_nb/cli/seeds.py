"""``genexpy-nb seeds``: alpha-hat, accuracy, churn and ECE of models trained with other seeds.

How representative is a model trained with one seed? The logit gaps of a pool (or of a plain
``.npz``) are read and checked before the bootstrap runs; every candidate is compared with a
reference pool (:func:`genexpy_nb.variability.candidate_report`), the report written to
``--out`` and summarised (:func:`genexpy_nb.seeds_summary`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from .. import config
from .._validation import GenexpyInputError
from ._checks import EXIT_OK, check_out_file, positive_int, say
from ._options import add_n_jobs, add_quiet, add_seed

__all__ = ["add_parser", "cmd_seeds"]


def _load_gaps(path: str, n_reference: int | None):
    """Read (reference gaps, candidate gaps, labels, description) from a pool or a plain .npz."""
    from .._io import read_npz
    from ..seedpools.pools import PER_MODEL_KEYS

    p = Path(path).expanduser()
    if not p.exists() and not p.is_symlink():
        from ..data import shipped_path

        try:
            p = shipped_path(path) if p.name == path else p
        except GenexpyInputError:
            pass
        if not p.is_file():
            raise GenexpyInputError(f"pool file {path!r} not found (neither a path nor a pool "
                                    "shipped with the package, e.g. cnn_digits_both.npz).")
    if p.suffix.lower() != ".npz":
        if p.is_dir():
            raise GenexpyInputError(f"{path!r} is a folder; give an .npz file.")
        raise GenexpyInputError(f"{path!r}: expected an .npz file (NumPy archive).")
    import zipfile

    read_npz(p, "pool file", keys=())  # a readable archive (a clear error otherwise)
    with zipfile.ZipFile(p) as zf:
        files = {n[:-4] if n.endswith(".npy") else n for n in zf.namelist()}
    if "meta" in files and set(PER_MODEL_KEYS) <= files:
        from ..seedpools.pools import load_pool

        pool = load_pool(p)
        ref, cand = pool.split(n_reference)
        return ref, cand, pool.labels, f"pool {p.name} ({pool.n_models} models)"
    # read within bounds (declared shapes, compression, memory); only what is used
    arrays = read_npz(p, "pool file", keys=("gaps", "reference", "candidates", "labels"))
    if "labels" not in arrays:
        raise GenexpyInputError(
            f"{path!r} has no 'labels' array (the 0/1 test labels, for accuracy and ECE). "
            f"Its arrays: {sorted(files)}. Save it as np.savez(f, gaps=..., labels=...) or "
            "np.savez(f, reference=..., candidates=..., labels=...).")
    if "reference" in arrays and "candidates" in arrays:
        if n_reference is not None:
            raise GenexpyInputError("--n-reference splits a 'gaps' array; this file already "
                                    "has 'reference' and 'candidates': leave it out.")
        return arrays["reference"], arrays["candidates"], arrays["labels"], p.name
    if "gaps" in arrays:
        g = arrays["gaps"]
        if g.ndim != 2:
            raise GenexpyInputError(f"{path!r}: 'gaps' must be a 2-d array (models x test "
                                    f"points), got shape {g.shape}.")
        m = g.shape[0]
        n_ref = m // 2 if n_reference is None else n_reference
        if not 2 <= n_ref < m:
            raise GenexpyInputError(
                f"--n-reference {n_ref}: the file has {m} models; the reference needs at least "
                "2 and at least one must remain as candidate.")
        return g[:n_ref], g[n_ref:], arrays["labels"], f"{p.name} ({m} models)"
    raise GenexpyInputError(
        f"{path!r} holds neither 'gaps' nor 'reference' + 'candidates' arrays (it has "
        f"{sorted(files)}).")


def cmd_seeds(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb seeds``: alpha-hat and the other numbers of each candidate model.

    The gaps of a pool (or a plain ``.npz``) are checked before the bootstrap runs; the
    report is written to ``--out`` and summarised (:func:`~genexpy_nb.seeds_summary`).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of the command.

    Returns
    -------
    int
        The exit code: 0 (errors are raised; :func:`genexpy_nb.cli.main` turns them into
        exit codes).
    """
    import polars as pl

    from .._io import write_frame

    out = check_out_file(args.out, inputs=[args.pool])
    ref, cand, labels, what = _load_gaps(args.pool, args.n_reference)
    from ..variability import candidate_report
    from ..variability._checks import as_candidates, as_gaps, as_labels

    # checked here, before the bootstrap runs
    ref_checked = as_gaps("reference gaps", ref, ndim=(2,))
    cand_checked = as_candidates("candidate gaps", cand, ref_checked.shape[1])
    as_labels(labels, ref_checked.shape[1])
    if (ref_checked.min() >= 0.0 and ref_checked.max() <= 1.0
            and cand_checked.min() >= 0.0 and cand_checked.max() <= 1.0):
        raise GenexpyInputError(
            "every value lies in [0, 1]: these look like probabilities, not logit gaps "
            "(logit of class 1 minus logit of class 0, negative = class 0). Convert them: "
            "gaps = log(p / (1 - p)).")
    from ..variability.robust_ks import check_alpha_hat_size

    check_alpha_hat_size(ref_checked.shape[1], cand_checked.shape[0], args.B)  # upfront
    n_ref = ref_checked.shape[0]
    if not args.quiet:
        say(f"{what}: {n_ref} reference models, {cand_checked.shape[0]} candidates, "
             f"{ref_checked.shape[1]} test points")
    t0 = time.perf_counter()
    rep = candidate_report(ref_checked, cand_checked, labels, B=args.B, seed=args.seed,
                           n_jobs=args.n_jobs, progress=not args.quiet,
                           clip=None if args.no_clip else args.clip, bins=args.bins,
                           ensemble=args.ensemble)
    rep = rep.with_columns((pl.col("candidate") + n_ref).alias("model")).select(
        "model", pl.all().exclude("model"))
    write_frame(rep, out)
    if not args.quiet:
        from ..summary import seeds_summary

        say(f"alpha-hat of {rep.height} candidate{'s' if rep.height != 1 else ''} in "
             f"{time.perf_counter() - t0:.1f} s")
        print(seeds_summary(rep, where=str(out)).to_text())
    return EXIT_OK

def add_parser(sub: Any, formatter: type) -> argparse.ArgumentParser:
    """Add the ``seeds`` subcommand to the command line's subparsers.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of ``genexpy-nb``.
    formatter : type
        The help formatter of every subcommand.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser.
    """
    s = sub.add_parser(
        "seeds", formatter_class=formatter,
        help="alpha-hat, accuracy, churn and ECE of models trained with different seeds",
        description="How representative is a model trained with one seed? For every "
                    "candidate model: alpha-hat (trimmed KS test against a reference pool "
                    "of models trained with other seeds), accuracy, churn and ECE.\n\n"
                    "POOL is an .npz file: a pool written by genexpy_nb.seedpools (or the "
                    "name of a shipped one, e.g. cnn_digits_both.npz), or your own arrays "
                    "saved with np.savez(path, gaps=G, labels=y) - G of shape (models, test "
                    "points) holding logit gaps (logit of class 1 minus logit of class 0), "
                    "the first half the reference - or np.savez(path, reference=R, "
                    "candidates=C, labels=y).")
    s.add_argument("pool", metavar="POOL", help="the .npz file of logit gaps and labels")
    s.add_argument("--n-reference", type=positive_int, default=None,
                   help="models in the reference (the first ones); default: half the pool")
    s.add_argument("--B", type=positive_int, default=config.ALPHA_HAT_B,
                   help="bootstrap draws of the reference for alpha-hat")
    s.add_argument("--clip", type=float, default=config.LOGIT_CLIP,
                   help="clip logit gaps to [-CLIP, CLIP] (saturated models)")
    s.add_argument("--no-clip", action="store_true", help="do not clip the gaps")
    s.add_argument("--bins", type=positive_int, default=config.ECE_BINS,
                   help="bins of the expected calibration error")
    s.add_argument("--ensemble", choices=["candidates", "reference"], default="candidates",
                   help="the deep ensemble that churn is measured against")
    add_seed(s, help="random seed of the bootstrap")
    add_n_jobs(s)
    s.add_argument("--out", default="seeds.csv",
                   help="output table, one row per candidate (.csv, .parquet, .tsv or .json)")
    add_quiet(s)
    s.set_defaults(func=cmd_seeds)
    return s
