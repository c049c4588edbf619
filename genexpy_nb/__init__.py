"""genexpy_nb: will the results of your ML study hold up?

Generalizability of experimental studies (Matteucci et al.) and the variability of trained
models over random seeds (robust Kolmogorov-Smirnov test), for Jupyter.
"""

from ._validation import GenexpyInputError
from .data import load_bigbench, load_encoders

__version__ = "0.1.0"

__all__ = ["GenexpyInputError", "load_bigbench", "load_encoders", "__version__"]
