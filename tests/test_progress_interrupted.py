"""A job cut short by Ctrl-C or an error ends its plain progress with 'stopped', never 'done'."""

from __future__ import annotations

import io

import pytest

from hermes_core.cli.progress import Progress


@pytest.mark.parametrize("cause", [KeyboardInterrupt, OSError])
def test_an_interrupted_job_says_stopped_with_how_far_it_got(cause):
    stream = io.StringIO()
    with pytest.raises(cause), Progress("importing", unit="messages", stream=stream, plain=True) as progress:
        progress.start(1000)
        progress.advance(300)
        raise cause()
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("importing: 300/1,000 messages, stopped after ") and "done" not in last


def test_a_finished_job_still_says_done():
    stream = io.StringIO()
    with Progress("importing", unit="messages", stream=stream, plain=True) as progress:
        progress.start(10)
        progress.advance(10)
    assert ", done in " in stream.getvalue().splitlines()[-1]


def test_a_job_too_small_to_show_writes_nothing_when_interrupted():
    stream = io.StringIO()
    with pytest.raises(KeyboardInterrupt), Progress("importing", minimum=100, stream=stream, plain=True) as progress:
        progress.start(5)
        raise KeyboardInterrupt
    assert stream.getvalue() == ""
