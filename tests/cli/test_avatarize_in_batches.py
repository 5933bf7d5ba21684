"""``avatarize --batch-rows``, run as a user runs it; and against a Dask cluster started apart (marked slow)."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.cli.test_cli import run
from tests.support import free_port, mixed_table

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def table_csv(tmp_path):
    path = tmp_path / "table.csv"
    mixed_table(4_000, missing=0.1).to_csv(path, index=False)
    return path


def test_batches_write_one_part_each_and_score_each_against_its_holdout(table_csv, tmp_path):
    out, metrics = tmp_path / "avatars", tmp_path / "metrics.json"
    result = run("avatarize", table_csv, "--k", 5, "--seed", 4, "--batch-rows", 2_000, "--out", out,
                 "--json", metrics, "--known", "age", "--sensitive", "colour")
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in out.iterdir()) == ["part-00000.parquet", "part-00001.parquet"]
    avatars = pd.concat([pd.read_parquet(part) for part in sorted(out.iterdir())])
    assert len(avatars) == 2_000 and list(avatars.columns) == list(pd.read_csv(table_csv).columns)
    assert "4,000 rows, 6 columns typed" in result.stderr and "batch 2 of 2 written" in result.stderr
    assert f"2000 avatars of {table_csv} written to" in result.stderr and "in 2 parts" in result.stderr
    saved = json.loads(metrics.read_text())
    assert saved["batches"]["count"] == 2 and sum(saved["batches"]["rows"]) == 4_000
    assert set(saved["batches"]["mean"]["signal"]) == {"hellinger_mean", "correlation_difference_ratio",
                                                       "multivariate_hellinger_distance", "propensity_mse"}
    worst = saved["batches"]["worst"]["privacy"]["hidden_rate"]
    assert worst["value"] == min(batch["privacy"]["hidden_rate"] for batch in saved["per_batch"])
    assert "inference_risk" in saved["batches"]["mean"]["privacy"] and saved["parameters"]["batch_rows"] == 2_000
    assert "Scored batch by batch" in result.stdout and "Verdict:" in result.stdout
    # who stands out among every row, once: a batch's rows single out fewer people than the table's (SPEC 6.4)
    table = pd.read_csv(table_csv)
    sizes = table.groupby("age")["age"].transform("size")
    assert (saved["risk_profile"]["unique"], saved["risk_profile"]["rows"]) == (int((sizes == 1).sum()), 4_000)
    assert all("risk_profile" not in batch for batch in saved["per_batch"]) and "Who stands out" in result.stdout


@pytest.mark.parametrize("arguments, message", [
    (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler goes with --batch-rows N"),
    (["--part-format", "csv"], "--part-format goes with --batch-rows N"),
    (["--batch-rows", "1000", "--report", "r.html"], "--report needs every avatar in memory"),
    (["--batch-rows", "1000", "--analysis", "outcome=group"], "--analysis needs every avatar in memory"),
    (["--batch-rows", "1"], "batch_rows must be"),
])
def test_batch_options_alone_or_with_what_needs_memory_stop_at_once(table_csv, tmp_path, arguments, message):
    result = run("avatarize", table_csv, "--k", 5, "--out", tmp_path / "avatars", *arguments)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


def wait_for_port(port, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"nothing listens on port {port}")


@pytest.mark.slow
def test_a_scheduler_and_two_workers_started_apart_make_the_local_clusters_avatars(table_csv, tmp_path):
    port, dask = free_port(), Path(sys.executable).with_name("dask")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                 env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    workers = []
    try:
        wait_for_port(port)
        workers = [subprocess.Popen([dask, "worker", f"tcp://127.0.0.1:{port}", "--nthreads", "1", "--no-dashboard",
                                     "--host", "127.0.0.1"], env=environment, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, cwd=tmp_path) for _ in range(2)]
        options = ["--k", 5, "--seed", 9, "--batch-rows", 1_000, "--part-format", "csv"]
        remote = run("avatarize", table_csv, *options, "--scheduler", f"tcp://127.0.0.1:{port}", "--out",
                     tmp_path / "remote")
        assert remote.returncode == 0, remote.stderr
    finally:
        for process in (*workers, scheduler):
            process.terminate()
            process.wait(timeout=30)
    local = run("avatarize", table_csv, *options, "--out", tmp_path / "local")
    assert local.returncode == 0, local.stderr
    parts = sorted(path.name for path in (tmp_path / "remote").iterdir())
    assert len(parts) == 4 and parts == sorted(path.name for path in (tmp_path / "local").iterdir())
    assert all((tmp_path / "remote" / name).read_bytes() == (tmp_path / "local" / name).read_bytes() for name in parts)


def test_outputs_that_would_overwrite_an_input_or_land_in_the_parts_folder_are_refused(tmp_path):
    parts = tmp_path / "parts"
    parts.mkdir()
    for position in range(2):
        mixed_table(300, seed=position).to_csv(parts / f"p{position}.csv", index=False)
    for json_path, message in ((parts / "p1.csv", "is also an input"), (tmp_path / "out", "or inside it")):
        result = run("avatarize", parts / "*.csv", "--k", 5, "--batch-rows", 1_000, "--out", tmp_path / "out",
                     "--json", json_path)
        assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert (parts / "p1.csv").read_text().startswith("age,") and not (tmp_path / "out").exists()


def test_a_second_run_into_an_output_in_use_is_refused_and_a_killed_run_leaves_no_lock(tmp_path):
    """Issue 46: two batch runs into one folder at once mixed their parts (one ended on a FileNotFoundError, the other
    said "seed = 8" of parts of both). The lock is held as a run holds it; killed, it stops nothing."""
    table = tmp_path / "table.csv"
    mixed_table(3_000).to_csv(table, index=False)
    out = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from pathlib import Path; "
                               "from core.engine.locks import output_locks\n"
                               f"with output_locks([('--out', Path({str(out)!r}))]):\n"
                               "    print('locked', flush=True); time.sleep(120)"],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    for arguments in (["--batch-rows", 1_000, "--out", out], ["--out", out, "--json", tmp_path / "m.json"]):
        refused = run("avatarize", table, "--k", 5, *arguments)
        assert refused.returncode == 2 and "is being written by another run (process" in refused.stderr
        assert "Traceback" not in refused.stderr and not out.exists()
    holder.kill()  # as kill -9 would: the system releases its lock
    holder.wait(timeout=30)
    made = run("avatarize", table, "--k", 5, "--batch-rows", 1_000, "--out", out)
    assert made.returncode == 0, made.stderr
    assert not (tmp_path / ".out.lock").exists()


def test_an_interrupted_batch_run_says_where_its_copies_of_the_real_rows_are(tmp_path):
    """Issue 46: Ctrl+C or SIGTERM left OUT/.work's copies of the real rows (0600) unsaid."""
    table = tmp_path / "big.csv"
    mixed_table(120_000).to_csv(table, index=False)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "core", "avatarize", str(table), "--k", "5", "--seed", "7", "--batch-rows",
               "5000", "--out", str(out)]
    first = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(out.glob("part-*")) and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.05)
    first.send_signal(15)  # SIGTERM, as kill does
    _, stderr = first.communicate(timeout=120)
    assert first.returncode == 130, stderr
    assert f"{out / '.work'} holds copies of the real rows" in stderr and "run the same command again" in stderr
    assert "Traceback" not in stderr
    resumed = run("avatarize", table, "--k", 5, "--seed", 7, "--batch-rows", 5_000, "--out", out)
    assert resumed.returncode == 0, resumed.stderr
    assert not (out / ".work").exists()


HOSPITAL = ROOT / "assets" / "demo_hospital"


def test_linked_tables_in_batches_write_each_tables_parts_and_say_the_families_dealt(tmp_path):
    out = tmp_path / "out"
    result = run("avatarize", "--tables", HOSPITAL / "schema.json", "--k", 5, "--seed", 2, "--batch-rows", 3_000,
                 "--out", out, "--part-format", "csv")
    assert result.returncode == 0, result.stderr
    assert "9,811 rows of 3 tables read and dealt by family" in result.stderr and "4 batches" in result.stderr
    assert "19 of 1,994 rows (1.0 %) have no 'patients'" in result.stderr and "batch 4 of 4 avatarized" in result.stderr
    for name in ("patients", "stays", "prescriptions"):
        assert sorted(path.name for path in (out / name).iterdir()) == [f"part-0000{batch}.csv" for batch in range(4)]
        assert f"avatars of {name} written to {out / name} in 4 parts" in result.stdout
    assert "seed = 2, 4 batches of about 3000 rows" in result.stdout and not (out / ".work").exists()


def test_a_time_series_in_batches_is_said_as_in_one_process_with_what_its_batches_said(tmp_path):
    """Its measures, rebuilt from the persons' avatars, were "avatars of labs ... (N rows)"; a batch's warning was
    printed raw by its worker, with its code."""
    shutil.copytree(ROOT / "assets" / "demo_followup", tmp_path / "followup")
    labs = pd.read_csv(tmp_path / "followup" / "labs.csv")
    again = labs.iloc[:3].assign(ldl_mmol_l=labs["ldl_mmol_l"].iloc[:3] + 0.5)  # measured twice on the same days
    pd.concat([labs, again], ignore_index=True).to_csv(tmp_path / "followup" / "labs.csv", index=False)
    result = run("avatarize", "--tables", tmp_path / "followup" / "schema.json", "--k", 5, "--seed", 2,
                 "--batch-rows", 2_000, "--out", tmp_path / "out", "--part-format", "csv")
    assert result.returncode == 0, result.stderr
    assert f"measures of labs written to {tmp_path / 'out' / 'labs'} in 3 parts (time series, rebuilt from the " \
           f"avatars of patients; {len(labs) + 3} real measures)" in result.stdout
    assert "warning: Table 'labs': 3 measures fall on a time already measured" in result.stderr
    assert "UserWarning" not in result.stderr


@pytest.mark.parametrize("arguments, message", [
    (["--json", "m.json"], "--json is not available yet for linked tables in batches"),
    (["--report", "r.html"], "--report is not available yet for linked tables in batches"),
    (["--batch-rows", "1"], "batch_rows must be"),
])
def test_what_linked_batches_cannot_do_stops_at_once_in_one_line(tmp_path, arguments, message):
    options = ["--batch-rows", 3_000] if "--batch-rows" not in arguments else []
    result = run("avatarize", "--tables", HOSPITAL / "schema.json", "--k", 5, *options, *arguments, "--out",
                 tmp_path / "out")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


def test_a_table_of_several_parents_is_refused_in_batches(tmp_path):
    for name, frame in {"a": pd.DataFrame({"a_id": [1, 2, 3]}), "b": pd.DataFrame({"b_id": [1, 2, 3]}),
                        "c": pd.DataFrame({"a_id": [1, 2, 3, 1], "b_id": [3, 2, 1, 1], "x": [1.0, 2.0, 3.0, 4.0]})
                        }.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({
        "tables": {"a": {"path": "a.csv", "primary_key": "a_id"}, "b": {"path": "b.csv", "primary_key": "b_id"},
                   "c": {"path": "c.csv"}},
        "links": [{"parent": "a", "key": "a_id", "child": "c", "foreign_key": "a_id"},
                  {"parent": "b", "key": "b_id", "child": "c", "foreign_key": "b_id"}]}))
    result = run("avatarize", "--tables", schema, "--k", 2, "--batch-rows", 1_000, "--out", tmp_path / "out")
    assert result.returncode == 2 and "Table 'c' has several parents (a, b)" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_linked_tables_on_a_scheduler_started_apart_are_the_local_clusters(tmp_path):
    port, dask = free_port(), Path(sys.executable).with_name("dask")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                 env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    workers = []
    options = ["--tables", HOSPITAL / "schema.json", "--k", 5, "--seed", 9, "--batch-rows", 3_000, "--part-format",
               "csv"]
    try:
        wait_for_port(port)
        workers = [subprocess.Popen([dask, "worker", f"tcp://127.0.0.1:{port}", "--nthreads", "1", "--no-dashboard",
                                     "--host", "127.0.0.1"], env=environment, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, cwd=tmp_path) for _ in range(2)]
        remote = run("avatarize", *options, "--scheduler", f"tcp://127.0.0.1:{port}", "--out", tmp_path / "remote")
        assert remote.returncode == 0, remote.stderr
    finally:
        for process in (*workers, scheduler):
            process.terminate()
            process.wait(timeout=30)
    local = run("avatarize", *options, "--out", tmp_path / "local")
    assert local.returncode == 0, local.stderr
    written = sorted(path.relative_to(tmp_path / "local") for path in (tmp_path / "local").rglob("*.csv"))
    assert len(written) == 12
    assert all((tmp_path / "remote" / path).read_bytes() == (tmp_path / "local" / path).read_bytes()
               for path in written)


def test_an_interrupted_linked_batch_run_says_it_kept_nothing_and_leaves_nothing(tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, "-m", "core", "avatarize", "--tables", str(HOSPITAL / "schema.json"), "--k", "5",
               "--batch-rows", "500", "--out", str(out)]
    running = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (out / ".work" / "batches").exists() and time.monotonic() < deadline and running.poll() is None:
        time.sleep(0.05)
    running.send_signal(15)  # SIGTERM, as kill does
    _, stderr = running.communicate(timeout=120)
    assert running.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1].startswith("error: interrupted; linked tables in batches keep nothing")
    assert "Traceback" not in stderr and "Task exception" not in stderr and not out.exists()
