"""``genexpy-nb seeds``: alpha-hat, accuracy, churn and ECE of models trained with other seeds.

How representative is a model trained with one seed? The logit gaps of a pool (or of a plain
``.npz``) are read and checked before the bootstrap runs; every candidate is compared with a
reference pool (:func:`genexpy_nb.variability.candidate_report`), the report written to
``--out`` and summarised (:func:`genexpy_nb.seeds_summary`).
"""

from __future__ import annotations

import argparse
import time

from .. import config
from .._validation import GenexpyInputError
from ._checks import EXIT_OK, answer, check_out_file, positive_int, say
from ._options import add_n_jobs, add_seed, subcommand

__all__ = ["add_parser", "cmd_seeds"]


def cmd_seeds(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb seeds``: alpha-hat and the other numbers of each candidate model.

    The gaps of a pool (or a plain ``.npz``) are checked before the bootstrap runs; the
    report is written to ``--out`` and summarised (:func:`~genexpy_nb.seeds_summary`).
    """
    import polars as pl

    from .._io import write_frame

    out = check_out_file(args.out, inputs=[args.pool])
    from ..seedpools.gaps import read_gaps

    ref, cand, labels, what = read_gaps(args.pool, args.n_reference)
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
    from ..variability.alpha_hat import check_alpha_hat_size

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
        from ..answers.numbers import seconds
        from ..answers.summary import seeds_summary

        say(f"alpha-hat of {rep.height} candidate{'s' if rep.height != 1 else ''} in "
             f"{seconds(time.perf_counter() - t0)}")
        answer(seeds_summary(rep, where=str(out)).to_text())
    return EXIT_OK


@subcommand("seeds",
            help="alpha-hat, accuracy, churn and ECE of models trained with different seeds",
            description="How representative is a model trained with one seed? For every "
                        "candidate model: alpha-hat (trimmed KS test against a reference pool "
                        "of models trained with other seeds), accuracy, churn and ECE.\n\n"
                        "POOL is an .npz file: a pool written by genexpy_nb.seedpools (or the "
                        "name of a shipped one, e.g. cnn_digits_both.npz), or your own arrays "
                        "saved with np.savez(path, gaps=G, labels=y) - G of shape (models, "
                        "test points) holding logit gaps (logit of class 1 minus logit of "
                        "class 0), the first half the reference - or np.savez(path, "
                        "reference=R, candidates=C, labels=y).")
def add_parser(s: argparse.ArgumentParser) -> None:
    """Add the options of ``genexpy-nb seeds``."""
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
