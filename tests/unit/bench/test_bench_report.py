"""bench/report.py: each bench in its own interpreter, its result a section; missing or failing ones say so."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import report
from bench.aws_calls import documented_minimum
from bench.benchkit import command, table

GOOD = """
import sys
sys.path[:0] = [{root!r}]
from bench.benchkit import finish, parser
cli = parser(None)
cli.add_argument("--quick", action="store_true", required=True)
finish(cli.parse_args(sys.argv[1:]), "Good bench", "bench/good.py --quick", "| a |\\n|---|\\n| 1 |")
"""


def test_a_bench_result_becomes_a_section_and_the_page_names_the_machine(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(GOOD.format(root=str(report.ROOT)))
    result = report.run(report.Bench("good.py", ("--quick",), 60), tmp_path)
    assert result["title"] == "Good bench" and "| 1 |" in result["markdown"]
    page = report.render({"CPU": "Test CPU", "Python": "3.13.0"}, [result])
    assert "| CPU | Test CPU |" in page
    assert "## Good bench\n\n| a |" in page
    assert "Reproduce: `bench/good.py --quick`" in page


def test_a_missing_failing_or_silent_bench_is_not_measured_and_says_why(tmp_path: Path) -> None:
    missing = report.run(report.Bench("absent.py", (), 60), tmp_path)
    assert missing["markdown"] == "Not measured: bench/absent.py is not in this tree."
    (tmp_path / "broken.py").write_text("raise SystemExit('no moto here')\n")
    broken = report.run(report.Bench("broken.py", (), 60), tmp_path)
    assert broken["markdown"].startswith("Not measured: it exited with status 1")
    assert "no moto here" in broken["markdown"]
    (tmp_path / "silent.py").write_text("print('a table, but no --json')\n")
    silent = report.run(report.Bench("silent.py", (), 60), tmp_path)
    assert "wrote no --json result" in silent["markdown"]


def test_a_bench_past_its_timeout_is_stopped_with_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    (tmp_path / "slow.py").write_text(
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(marker)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    slow = report.run(report.Bench("slow.py", (), 2), tmp_path)
    assert slow["markdown"] == "Not measured: it did not finish within 2 s."
    pid = int(marker.read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_every_bench_the_report_runs_is_in_the_tree() -> None:
    present = {path.name for path in report.BENCH_DIR.glob("*.py")}
    assert {"aws_calls.py", "chat_turn.py", "stream_memory.py", "warm_profile.py"} <= present
    assert {b.script for b in report.BENCHES} <= present  # every bench the report runs is in the tree


def test_tables_and_commands() -> None:
    assert table(["name", "ms"], [["a|b", 1.25], ["c", 1234.5]]) == (
        "| name | ms |\n|---|---:|\n| a\\|b | 1.2 |\n| c | 1234 |"
    )
    assert command("x.py", ["--runs", "3", "--json", "/tmp/out.json"]) == (
        "PYTHONPATH=layers/common:. .venv/bin/python bench/x.py --runs 3"
    )


def test_the_documented_minimum_is_read_from_the_data_model_table(tmp_path: Path) -> None:
    doc = tmp_path / "data-model.md"
    doc.write_text(
        "# Data model\n\n## Calls per request\n\n| Endpoint | Minimum | Why |\n|---|---:|---|\n"
        "| GET feed | 4 | key, limit, agent, query |\n| whoami | 2 | key, limit |\n"
        "| `POST …/chat` | 7 (+2) | counter |\n"
        "\n## Next\n\n| x | 9 |\n"
    )
    assert documented_minimum(doc) == {"feed": 4, "whoami": 2, "chat": 9}
    assert documented_minimum(tmp_path / "absent.md") == {}


def test_a_clean_tree_is_not_called_dirty(monkeypatch: pytest.MonkeyPatch) -> None:
    """git status prints nothing for a clean tree: the page named every run "with uncommitted changes" before."""
    answers = {"rev-parse": "abc1234\n", "status": ""}
    monkeypatch.setattr("bench.report.subprocess.run", lambda argv, **_: _Done(answers[argv[1]]))
    assert report.machine()["commit"] == "abc1234"
    answers["status"] = " M bench/report.py\n"
    assert report.machine()["commit"] == "abc1234 (with uncommitted changes)"


class _Done:
    def __init__(self, stdout: str) -> None:
        self.stdout = stdout
