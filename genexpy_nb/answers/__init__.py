"""Every sentence, table and page a user reads.

The fourth room of the pipeline (io → study → analyses → **answers** → surfaces): the
analyses return tidy frames and result objects at full precision; the answers put them
into words, tables and pages, on one document model (``document``).

* ``document`` — the one document model (paragraphs, tables, sections) and its renderings
  (terminal text, Markdown, HTML, LaTeX);
* ``numbers`` — the one number formatter: every number a user reads (n* and its interval
  rounded up, p-values, statistics, ranks, effects, scores, shares, settings, durations);
* ``summary`` — :func:`~genexpy_nb.nstar_summary`, :func:`~genexpy_nb.seeds_summary`:
  short answers from the long frames of n* and alpha-hat;
* ``conclusions`` — :func:`~genexpy_nb.conclusions_summary`: the conclusions of a study in
  sentences;
* ``report_page`` — :func:`~genexpy_nb.report`: one page per study; ``scales`` — its one
  scale per study, its outliers and its runs-against-conditions spread; ``noise_budget`` —
  the noise budget, tie groups and next runs of a per-item board in words;
* ``compare`` and ``comparison`` — :func:`~genexpy_nb.significance.compare`, the comparison
  of alternatives over blocks (it runs the tests of :mod:`genexpy_nb.significance`) and its
  written :class:`~genexpy_nb.significance.Comparison`;
* ``beyond_sections``, ``paper_table`` — sections added to a comparison: the Bayesian
  signed-rank test and the robust aggregates, the table a paper can use;
* ``notebook`` — :func:`~genexpy_nb.readable_errors`: a validation error shown as its message.
"""
