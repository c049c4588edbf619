"""gx.readable_errors(): in IPython a GenexpyInputError shows as its message, the cell fails,
other errors keep their tracebacks."""

import pytest

import genexpy_nb as gx


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    sh = InteractiveShell.instance()
    yield sh
    sh.set_custom_exc((), None)


def test_outside_ipython_nothing_changes():
    assert gx.readable_errors() is False


def test_one_message_not_a_traceback(shell, capsys, monkeypatch):
    monkeypatch.setattr("IPython.get_ipython", lambda: shell)
    assert gx.readable_errors() is True
    r = shell.run_cell("import genexpy_nb as gx\n"
                       "gx.Study(__import__('polars').DataFrame({'a': [1]}), alternatives='x', "
                       "target='a', generalize='a', higher_is_better=True)")
    out = capsys.readouterr()
    text = out.out + out.err
    assert not r.success and isinstance(r.error_in_exec, gx.GenexpyInputError)
    assert "GenexpyInputError: " in text and "Traceback" not in text
    assert "study.py" not in text and text.strip().count("\n") <= 1
    # other exceptions keep their traceback
    r = shell.run_cell("1 / 0")
    assert not r.success and "Traceback" in "".join(capsys.readouterr())
    assert gx.readable_errors(False) is True
    shell.run_cell("raise gx.GenexpyInputError('x')")
    assert "Traceback" in "".join(capsys.readouterr())
