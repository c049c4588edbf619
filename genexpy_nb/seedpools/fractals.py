"""Formula-driven images: fractals rendered from random iterated function systems (no torch).

The upstream task that pre-trains the package's small Vision Transformer
(:mod:`.pretrain`), following the idea of FractalDB (Kataoka et al., "Pre-training without
natural images", ACCV 2020; Nakashima et al., "Can vision transformers learn without natural
images?", AAAI 2022): every *class* is one random iterated function system (IFS) — a few
contractive affine maps ``x -> A_j x + b_j`` chosen with probabilities proportional to
``|det A_j|`` — and its *images* are the attractor drawn by the chaos game, with
variations (every parameter of the class's maps multiplied by a factor near 1, random flips
and quarter turns, a random number of points). A class is kept only when its attractor
covers enough of the image (FractalDB's "filling rate" filter), so no class is a dot or a
line.

Everything is generated from one ``seed`` with NumPy's ``SeedSequence``: the same seed gives
the same bits on any machine (the chaos game is float64 arithmetic; rendering is integer
counting). Nothing is downloaded.

The binary task :func:`fractal_binary_task` (two super-groups of IFS classes, like the
paper's two super-groups of CIFAR-10 classes) is a harder image task than the 8x8 digits, of
any size: notebook 03 uses it to ask whether the CNN findings depend on the digits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import GenexpyInputError, check_positive_int
from .tasks import BinaryTask, SourceTask

__all__ = ["FractalSet", "fractal_binary_task", "fractal_images", "fractal_source_task",
           "random_ifs_classes"]

#: render on a grid ``RENDER_FACTOR`` times finer than the image, then average-pool
#: (anti-aliasing: thin structures become grey instead of disappearing)
RENDER_FACTOR = 2
#: stream identifiers of the seed derivation (never change: they define the shipped data)
_CLASS_STREAM = 11
_IMAGE_STREAM = 12
_GAME_STREAM = 14


def _ss(seed: int, *keys: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), *map(int, keys)]))


def _chaos_game(
    maps: np.ndarray, n_points: int, rng: np.random.Generator, n_images: int,
    burn_in: int = 20,
) -> np.ndarray:
    """Points of ``n_images`` chaos games on the same IFS, shape (n_images, n_points, 2).

    ``maps``: (n_images, K, 6) rows ``a, b, c, d, e, f`` of ``x' = a x + b y + e``,
    ``y' = c x + d y + f`` (per image, so that every image can have perturbed maps).
    """
    n_img, K, _ = maps.shape
    det = np.abs(maps[:, :, 0] * maps[:, :, 3] - maps[:, :, 1] * maps[:, :, 2])
    prob = det / det.sum(axis=1, keepdims=True)
    cum = np.cumulative_sum(prob, axis=1)
    cum[:, -1] = 1.0
    choice_u = rng.random((burn_in + n_points, n_img))
    pts = np.zeros((n_img, n_points, 2))
    x = np.zeros(n_img)
    y = np.zeros(n_img)
    rows = np.arange(n_img)
    for t in range(burn_in + n_points):
        j = (choice_u[t][:, None] > cum).sum(axis=1)
        j = np.minimum(j, K - 1)
        m = maps[rows, j]
        x, y = m[:, 0] * x + m[:, 1] * y + m[:, 4], m[:, 2] * x + m[:, 3] * y + m[:, 5]
        if t >= burn_in:
            pts[:, t - burn_in, 0] = x
            pts[:, t - burn_in, 1] = y
    return pts


def _render(pts: np.ndarray, size: int, n_valid: np.ndarray | None = None) -> np.ndarray:
    """Histogram of the points on a ``size`` grid (fitted to each image's bounding box).

    Returns float32 images in [0, 1], shape (n, size, size): the point counts of a grid
    ``RENDER_FACTOR`` times finer, average-pooled, scaled so that the brightest pixel is 1
    (a square-root tone curve keeps sparse parts visible).
    """
    n, P, _ = pts.shape
    g = size * RENDER_FACTOR
    lo = pts.min(axis=1, keepdims=True)
    hi = pts.max(axis=1, keepdims=True)
    span = np.maximum((hi - lo).max(axis=2, keepdims=True), 1e-12)  # keep the aspect ratio
    centre = (lo + hi) / 2
    u = (pts - centre) / span * 0.98 + 0.5                   # in [0.01, 0.99]
    ij = np.clip((u * g).astype(np.int64), 0, g - 1)
    flat = ij[:, :, 1] * g + ij[:, :, 0] + (np.arange(n) * g * g)[:, None]
    if n_valid is not None:
        keep = np.arange(P)[None, :] < n_valid[:, None]
        flat = flat[keep]
    counts = np.bincount(flat.ravel(), minlength=n * g * g).reshape(n, size, RENDER_FACTOR,
                                                                    size, RENDER_FACTOR)
    img = counts.sum(axis=(2, 4)).astype(np.float64)
    img = np.sqrt(img)
    img /= np.maximum(img.max(axis=(1, 2), keepdims=True), 1e-12)
    return np.flip(img, axis=1).astype(np.float32)          # y upwards


def _candidates_fill(maps: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Measure the filling rate of each candidate IFS.

    The maps are zero-padded: a zero map has probability 0.
    """
    with np.errstate(over="ignore", invalid="ignore"):   # non-contractive candidates diverge
        pts = _chaos_game(maps, 1000, rng, maps.shape[0])
    ok = np.all(np.isfinite(pts), axis=(1, 2))
    pts[~ok] = 0.0
    img = _render(pts, size * RENDER_FACTOR)   # on the finer grid: thin attractors score low
    fill = (img > 0).mean(axis=(1, 2))
    fill[~ok] = 0.0
    return fill


def random_ifs_classes(
    n_classes: int, *, seed: int = 0, n_maps: tuple[int, int] = (2, 4),
    min_fill: float = 0.2, size: int = 16, batch: int = 64, max_batches: int = 200,
) -> np.ndarray:
    """Parameters of ``n_classes`` random IFS, shape (n_classes, K_max, 6), zero-padded.

    Each class draws K maps (uniform in ``n_maps``) with parameters uniform in [-1, 1] and
    keeps them when every map is contractive (largest singular value below 1) and the
    attractor, rendered on a grid of ``2 * size``, covers at least ``min_fill`` of the pixels
    (FractalDB's filling-rate filter). Class ``i`` draws ``4 * batch`` candidates at a time
    from ``SeedSequence([seed, 11, i])``, renders the first ``batch`` contractive ones and
    keeps the first that passes. A padded map (all
    zeros) has probability 0 in the chaos game.
    """
    n_classes = check_positive_int("n_classes", n_classes)
    k_lo, k_hi = (int(v) for v in n_maps)
    if not 1 <= k_lo <= k_hi:
        raise GenexpyInputError(f"n_maps must be (low, high) with 1 <= low <= high, got {n_maps}.")
    out = np.zeros((n_classes, k_hi, 6))
    for c in range(n_classes):
        rng = _ss(seed, _CLASS_STREAM, c)
        for _ in range(max_batches):
            K = rng.integers(k_lo, k_hi + 1, size=4 * batch)
            maps = rng.uniform(-1.0, 1.0, size=(4 * batch, k_hi, 6))
            maps[np.arange(k_hi)[None, :] >= K[:, None]] = 0.0
            sv = np.linalg.svd(maps[:, :, :4].reshape(-1, k_hi, 2, 2), compute_uv=False)
            maps = maps[sv.max(axis=(1, 2)) < 1.0][:batch]     # contractive maps only
            if not maps.shape[0]:
                continue
            fill = _candidates_fill(maps, size, rng)
            good = np.flatnonzero(fill >= min_fill)
            if good.size:
                out[c] = maps[good[0]]
                break
        else:
            raise GenexpyInputError(
                f"could not find an IFS class with min_fill={min_fill} in "
                f"{batch * max_batches} tries; lower min_fill.")
    return out


def fractal_images(
    classes: np.ndarray, per_class: int, *, size: int = 16, seed: int = 0,
    n_points: tuple[int, int] = (400, 1200), jitter: float = 0.1, flips: bool = True,
    start: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Render ``per_class`` varied images of every IFS class.

    Image ``i`` of class ``c`` (``i >= start``) uses the generator
    ``SeedSequence([seed, 12, c, i])``: its maps are the class's maps with every parameter
    multiplied by a factor uniform in ``[1 - jitter, 1 + jitter]`` (kept contractive), it is
    drawn with a number of points uniform in ``n_points``, then flipped left-right and
    up-down and turned by a multiple of 90 degrees at random (``flips``).

    Returns
    -------
    (X, y)
        float32 images (N, 1, size, size) in [0, 1] and int64 labels (class index), ordered
        by class then image.
    """
    classes = np.asarray(classes, dtype=np.float64)
    if classes.ndim != 3 or classes.shape[2] != 6:
        raise GenexpyInputError(
            f"classes must have shape (n_classes, K, 6) (random_ifs_classes), got {classes.shape}.")
    per_class = check_positive_int("per_class", per_class)
    size = check_positive_int("size", size, minimum=4)
    p_lo, p_hi = (int(v) for v in n_points)
    if not 10 <= p_lo <= p_hi:
        raise GenexpyInputError(f"n_points must be (low, high) with 10 <= low <= high, got "
                                f"{n_points}.")
    X = np.empty((classes.shape[0] * per_class, 1, size, size), np.float32)
    y = np.repeat(np.arange(classes.shape[0], dtype=np.int64), per_class)
    for c in range(classes.shape[0]):
        valid = np.any(classes[c] != 0.0, axis=1)
        base = classes[c, valid]
        K = base.shape[0]
        maps = np.empty((per_class, K, 6))
        npts = np.empty(per_class, np.int64)
        turns = np.zeros((per_class, 3), np.int64)
        for i in range(per_class):
            rng = _ss(seed, _IMAGE_STREAM, c, start + i)
            for _ in range(100):
                m = base * rng.uniform(1 - jitter, 1 + jitter, size=base.shape)
                if np.linalg.svd(m[:, :4].reshape(K, 2, 2), compute_uv=False).max() < 1.0:
                    break
            else:  # pragma: no cover - jitter keeps almost every map contractive
                m = base
            maps[i] = m
            npts[i] = rng.integers(p_lo, p_hi + 1)
            turns[i] = (rng.integers(0, 2), rng.integers(0, 2), rng.integers(0, 4))
        game_rng = _ss(seed, _GAME_STREAM, c, start)
        pts = _chaos_game(maps, p_hi, game_rng, per_class)
        imgs = _render(pts, size, n_valid=npts)
        if flips:
            for i in range(per_class):
                im = imgs[i]
                if turns[i, 0]:
                    im = im[:, ::-1]
                if turns[i, 1]:
                    im = im[::-1, :]
                imgs[i] = np.rot90(im, int(turns[i, 2]))
        X[c * per_class:(c + 1) * per_class, 0] = imgs
    return X, y


@dataclass(frozen=True)
class FractalSet:
    """A recipe for a fractal data set (what is needed to regenerate it bit for bit)."""

    n_classes: int = 100
    per_class: int = 300
    size: int = 16
    seed: int = 0
    min_fill: float = 0.2
    jitter: float = 0.1
    n_points: tuple[int, int] = (400, 1200)
    extra: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        """JSON-able description."""
        return {"generator": "genexpy_nb.experiments.fractals (random IFS, chaos game)",
                "n_classes": self.n_classes, "per_class": self.per_class, "size": self.size,
                "seed": self.seed, "min_fill": self.min_fill, "jitter": self.jitter,
                "n_points": list(self.n_points), **self.extra}


def fractal_source_task(recipe: FractalSet = FractalSet(), *, n_val_per_class: int = 20
                        ) -> SourceTask:
    """Build the multi-class pre-training task of fractal images.

    ``recipe.per_class`` training images per class and ``n_val_per_class`` more (different
    image seeds) held out.
    """
    classes = random_ifs_classes(recipe.n_classes, seed=recipe.seed, min_fill=recipe.min_fill,
                                 size=recipe.size)
    kw = {"size": recipe.size, "seed": recipe.seed, "n_points": recipe.n_points,
          "jitter": recipe.jitter}
    Xtr, ytr = fractal_images(classes, recipe.per_class, **kw)
    Xva, yva = fractal_images(classes, n_val_per_class, start=recipe.per_class, **kw)
    return SourceTask(
        name=f"fractals-{recipe.n_classes}class-{recipe.size}px",
        X_train=Xtr, y_train=ytr, X_val=Xva, y_val=yva, n_classes=recipe.n_classes,
        info={**recipe.describe(), "n_train": int(ytr.size), "n_val": int(yva.size)},
    )


def fractal_binary_task(
    *, n_groups: int = 10, n_train: int = 1500, n_val: int = 500, n_test: int = 1000,
    size: int = 8, seed: int = 1, split_seed: int = 0, jitter: float = 0.25,
    n_points: tuple[int, int] = (100, 400),
) -> BinaryTask:
    """Build a binary task on fractal images: two groups of IFS classes.

    ``n_groups`` IFS classes (label 1) against ``n_groups`` others (label 0), like the
    paper's two super-groups of CIFAR-10 classes.

    The default (8x8 images, few points, strong variation) is much harder than the 8x8 digits
    for the small CNN of notebook 03 and has as many images as asked for. ``seed`` should
    differ from the pre-training set's seed (default 1: other classes than the shipped
    ViT's upstream task).
    """
    n_groups = check_positive_int("n_groups", n_groups)
    n_train = check_positive_int("n_train", n_train)
    n_val = check_positive_int("n_val", n_val, minimum=0)
    n_test = check_positive_int("n_test", n_test)
    total = n_train + n_val + n_test
    per_class = -(-total // (2 * n_groups))
    classes = random_ifs_classes(2 * n_groups, seed=seed, size=size)
    X, c = fractal_images(classes, per_class, size=size, seed=seed, jitter=jitter,
                          n_points=n_points)
    ybin = (c < n_groups).astype(np.int64)
    rng = np.random.default_rng(np.random.SeedSequence([int(split_seed), 13]))
    perm = rng.permutation(ybin.size)[:total]
    tr, va, te = (np.sort(perm[:n_train]), np.sort(perm[n_train:n_train + n_val]),
                  np.sort(perm[n_train + n_val:]))
    pos = tuple(f"ifs{i}" for i in range(n_groups))
    neg = tuple(f"ifs{i}" for i in range(n_groups, 2 * n_groups))
    return BinaryTask(
        name=f"fractals-{n_groups}vs{n_groups}-{size}px",
        X_train=X[tr], y_train=ybin[tr], X_val=X[va], y_val=ybin[va],
        X_test=X[te], y_test=ybin[te],
        index_train=tr.astype(np.int32), index_val=va.astype(np.int32),
        index_test=te.astype(np.int32), positive=pos, negative=neg,
        info={"dataset": "fractal images from random iterated function systems "
              "(genexpy_nb.experiments.fractals)", "seed": int(seed),
              "split_seed": int(split_seed), "size": int(size), "jitter": float(jitter),
              "n_points": list(n_points), "per_class": int(per_class)},
    )
