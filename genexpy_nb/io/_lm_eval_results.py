"""What an lm-evaluation-harness results document says besides its scores.

The model's name and the direction of each metric, shared by the readers of results
(:func:`genexpy_nb.read_lm_eval`) and of per-sample logs
(:func:`genexpy_nb.evals.read_lm_eval_samples`).
"""

from __future__ import annotations


def model_name(doc: dict, folder: str) -> str:
    """Return the model an lm-eval results document names, else its folder's name.

    ``model_name`` (0.4), else ``pretrained=`` or ``model=`` of ``config.model_args`` (a
    mapping, or the command line's ``key=value,...`` string), else ``folder``.
    """
    name = doc.get("model_name")
    if isinstance(name, str) and name.strip():
        return name
    cfg = doc.get("config")
    args = cfg.get("model_args") if isinstance(cfg, dict) else None
    if isinstance(args, dict):
        pre = args.get("pretrained") or args.get("model")
        if isinstance(pre, str) and pre:
            return pre
    elif isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            if key.strip() in ("pretrained", "model") and value.strip():
                return value.strip()
    return folder


def directions(doc: dict) -> dict:
    """``higher_is_better`` → task → metric → bool, as lm-eval 0.4 states it (0.3: none)."""
    hib = doc.get("higher_is_better")
    out = {}
    if isinstance(hib, dict):
        for task, metrics in hib.items():
            if isinstance(metrics, dict):
                out[str(task)] = {str(m): v for m, v in metrics.items() if isinstance(v, bool)}
    return out
