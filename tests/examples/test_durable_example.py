"""The durable example: a killed worker's run is finished by the next, each charge once."""

from .running import run_example


def test_a_killed_workers_run_is_finished_by_the_next_with_each_charge_once() -> None:
    out = run_example("durable/crash_and_resume.py").stdout
    assert "worker 1 died (SIGKILL)" in out
    resumed = out.split("worker 2 resumes it:")[1]
    assert "line 1" not in resumed  # completed before the kill: not run again
    assert "line 2, paper: already charged (the ledger kept one charge)" in resumed
    assert "invoice-1: 3 lines, 2500 cents" in resumed
    assert out.strip().endswith("ledger: 3 charges: ink 1200, paper 800, stamps 500")
