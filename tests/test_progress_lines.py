"""Progress bars in a log file are whole lines (pfc.progress): a redraw at most every interval, the last always,
and nothing changes on a terminal."""
import io

import pytest
from tqdm import tqdm

from pfc import progress


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_a_terminal_gets_the_bar_as_tqdm_draws_it(monkeypatch):
    tty = Tty()
    monkeypatch.delenv("PFC_PROGRESS", raising=False)
    monkeypatch.setattr("sys.stderr", tty)
    assert progress.stream() is tty


def test_a_notebook_cell_opened_by_hand_keeps_its_redrawing_bar(monkeypatch):
    OutStream = type("OutStream", (io.StringIO,), {"__module__": "ipykernel.iostream"})  # ipykernel's stream type
    cell = OutStream()
    monkeypatch.delenv("PFC_PROGRESS", raising=False)
    monkeypatch.setattr("sys.stderr", cell)
    assert progress.stream() is cell


def test_a_file_gets_a_line_stream(monkeypatch):
    log = io.StringIO()
    monkeypatch.delenv("PFC_PROGRESS", raising=False)
    monkeypatch.setenv("PFC_PROGRESS_INTERVAL", "5")
    monkeypatch.setattr("sys.stderr", log)
    s = progress.stream()
    assert isinstance(s, progress.LineStream) and s.fp is log and s.interval == 5


def test_a_bar_in_a_file_writes_its_first_state_then_one_line_per_interval_and_its_last():
    log, clock = io.StringIO(), Clock()
    bar = tqdm(total=12, desc="run", file=progress.LineStream(log, interval=30, clock=clock), mininterval=0)
    for _ in range(12):
        clock.t += 7  # an update every 7 s: lines at 0 s, 35 s and 70 s (30 s apart at least); 77 s, 84 s: none
        bar.update(1)
    bar.close()
    lines = log.getvalue().split("\n")
    assert lines[-1] == "" and "\r" not in log.getvalue()  # whole lines only
    done = [line.split("|")[-1].split()[0] for line in lines[:-1]]
    assert done == ["0/12", "5/12", "10/12", "12/12"]  # the last: the bar's final state, written when it closes


def test_the_final_state_is_written_even_within_the_interval():
    log, clock = io.StringIO(), Clock()
    bar = tqdm(total=2, desc="run", file=progress.LineStream(log, interval=30, clock=clock), mininterval=0)
    bar.update(2)
    bar.close()
    assert [line.split("|")[-1].split()[0] for line in log.getvalue().splitlines()] == ["0/2", "2/2"]


def test_a_bar_whose_last_line_showed_its_final_count_does_not_repeat_it_on_closing():
    log, clock = io.StringIO(), Clock()
    bar = tqdm(total=2, desc="run", file=progress.LineStream(log, interval=30, clock=clock), mininterval=0)
    clock.t = 40
    bar.update(2)  # 40 s after the first line: written, with tqdm's smoothed rate
    clock.t = 41
    bar.close()  # redraws 2/2 with the average rate: the same count, no second line
    assert [line.split("|")[-1].split()[0] for line in log.getvalue().splitlines()] == ["0/2", "2/2"]


@pytest.mark.parametrize("value", ["soon", "-3"])
def test_an_unusable_interval_falls_back_to_a_sane_one(monkeypatch, value):
    monkeypatch.setenv("PFC_PROGRESS_INTERVAL", value)
    assert progress._interval() == (0.0 if value == "-3" else progress.INTERVAL)
