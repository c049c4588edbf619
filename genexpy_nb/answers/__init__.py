"""Every sentence, table and page a user reads.

The fourth room of the pipeline (io → study → analyses → **answers** → surfaces): the
analyses return tidy frames and result objects at full precision; the answers put them
into words, tables and pages, on one document model (``document``).

* ``document`` — the document model (paragraphs, tables, sections) and its renderings
  (terminal text, Markdown, HTML, LaTeX);
* ``summary`` — :func:`~genexpy_nb.nstar_summary`, :func:`~genexpy_nb.seeds_summary`:
  short answers from the long frames of n* and alpha-hat;
* ``conclusions`` — :func:`~genexpy_nb.conclusions_summary`: the conclusions of a study in
  sentences;
* ``report_page`` — :func:`~genexpy_nb.report`: one page per study;
* ``compare`` and ``comparison`` — :func:`~genexpy_nb.significance.compare`, the comparison
  of alternatives over blocks (it runs the tests of :mod:`genexpy_nb.significance`) and its
  written :class:`~genexpy_nb.significance.Comparison`;
* ``beyond_sections``, ``paper_table`` — sections added to a comparison: the Bayesian
  signed-rank test and the robust aggregates, the table a paper can use;
* ``notebook`` — :func:`~genexpy_nb.readable_errors`: a validation error shown as its message.
"""
