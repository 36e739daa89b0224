"""The runner tells its starter it is ready by writing ``runner.json`` and ``demo.json`` (``stack.process``): a
starter polling for ``demo.json`` must read it whole, with ``runner.json`` already there. A fresh clone's
``make test`` once read an empty ``demo.json`` (``JSONDecodeError`` in ``RunnerProcess.start``): the runner had
written it with ``write_text``, which creates the file before it fills it, and ``runner.json`` after it."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from stack.process import RunnerProcess, write_ready_files

ABOUT = {"awsEndpoint": "http://127.0.0.1:1", "region": "us-east-1", "pid": 1}
# As large as a demo with a few workspaces: a write of this size takes long enough to be caught half way.
DEMO = {"portalUrl": "http://127.0.0.1:2", "workspaces": [{"id": f"ws_{n}", "key": "k" * 64} for n in range(400)]}


def test_both_files_are_written_and_no_partial_file_is_left(tmp_path: Path) -> None:
    write_ready_files(tmp_path, ABOUT, DEMO)
    assert json.loads((tmp_path / "runner.json").read_text()) == ABOUT
    assert json.loads((tmp_path / "demo.json").read_text()) == DEMO
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.json", "runner.json"]


def test_a_starter_polling_for_demo_json_always_reads_it_whole_after_runner_json(tmp_path: Path) -> None:
    demo_file, runner_file = tmp_path / "demo.json", tmp_path / "runner.json"
    seen: list[str] = []

    def starter() -> None:  # RunnerProcess.start's wait, polling as tightly as it can
        while not demo_file.exists():
            pass
        try:
            seen.append("whole" if json.loads(demo_file.read_text()) == DEMO else "other")
        except ValueError:
            seen.append("torn")
        if not runner_file.exists():
            seen.append("before runner.json")

    for _ in range(300):  # each a start: the previous files gone, a starter waiting, then the runner's writes
        demo_file.unlink(missing_ok=True)
        runner_file.unlink(missing_ok=True)
        waiting = threading.Thread(target=starter)
        waiting.start()
        write_ready_files(tmp_path, ABOUT, DEMO)
        waiting.join(timeout=10)
    assert set(seen) == {"whole"} and len(seen) == 300, {kind: seen.count(kind) for kind in set(seen)}


def test_a_start_still_at_work_past_the_bound_is_waited_for_and_a_silent_one_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound is on silence (the package check's first start publishes the demo for minutes on a loaded machine,
    past a bound on the whole start, while its logs still grow); a runner that says nothing is stopped by it. The
    runner here is a silent process whose log this test writes: a line every 20 ms for four times the bound."""
    from stack import process

    bound = 1.0
    monkeypatch.setattr(process, "STARTUP_TIMEOUT", bound)

    def runner(name: str) -> RunnerProcess:
        made = RunnerProcess(tmp_path / name / "state", log=tmp_path / name / "runner.log", demo=False,
                             env={"LOCAL_DEMO_TEMPLATE": "0"})  # fmt: skip
        made.command = ["sleep", "600"]  # says nothing; stopped by the start's failure or by the test
        return made

    busy = runner("busy")

    def work() -> None:
        end = time.monotonic() + 4 * bound
        while time.monotonic() < end:
            with busy.log.open("a") as log:
                log.write("publishing\n")
            time.sleep(0.02)
        (busy.state_dir / "demo.json").write_text('{"workspaces": []}')

    (tmp_path / "busy").mkdir()
    worker = threading.Thread(target=work)
    worker.start()
    try:
        assert busy.start() == {"workspaces": []}
    finally:
        worker.join()
        busy.stop()
    with pytest.raises(RuntimeError, match="did not start"):
        runner("silent").start()
