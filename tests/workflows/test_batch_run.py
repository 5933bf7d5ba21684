"""Batch runs on a Dask LocalCluster of two worker processes, as ``avatarize --batch-rows`` makes them."""

import time
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from dask.distributed import LocalCluster

from core.engine.encoding import TableCodec
from core.engine.io import csv_bytes, read_table
from core.engine.pipeline import Avatarizer
from core.engine.projection import Projection
from core.engine.schema import apply_kinds, resolve_kinds
from core.errors import InputError
from core.workflows import batch_run
from core.workflows.batch_run import BatchSettings, avatarize_in_batches, local_cluster_options
from tests.support import mixed_table

PARAMS = {"k": 5, "seed": 21}


def local_cluster(workers, processes=True):
    return LocalCluster(**local_cluster_options(workers, processes))


@pytest.fixture(scope="module")
def two_workers():
    with local_cluster(2) as cluster:
        yield cluster.scheduler_address


def without_timings(batches):
    return [{key: value for key, value in batch.items() if key != "timings_s"} for batch in batches]


def parts_bytes(run):
    return [part.read_bytes() for part in run.parts]


def test_one_batch_is_the_fit_in_memory_byte_for_byte(tmp_path, two_workers):
    path = tmp_path / "t.csv"
    mixed_table(3_000, seed=5, missing=0.1).to_csv(path, index=False)
    run = avatarize_in_batches(str(path), tmp_path / "out", PARAMS, BatchSettings(
        batch_rows=5_000, scheduler=two_workers, part_format="csv", scored=True))
    memory = Avatarizer(**PARAMS).fit(read_table(path))
    assert len(run.parts) == 1 and run.parts[0].read_bytes() == csv_bytes(memory.avatars_)
    assert run.n_avatars == 1_500 and run.summary["count"] == 1 and not (tmp_path / "out" / ".work").exists()


def test_the_avatars_do_not_depend_on_the_workers_nor_on_the_files(tmp_path, two_workers):
    frame = mixed_table(6_000, seed=8, missing=0.05)
    frame.to_csv(tmp_path / "whole.csv", index=False)
    for part, rows in enumerate((slice(0, 1_000), slice(1_000, 4_500), slice(4_500, 6_000))):
        frame.iloc[rows].to_csv(tmp_path / f"piece-{part}.csv", index=False)
    settings = BatchSettings(batch_rows=2_000, scheduler=two_workers, scored=True)
    whole = avatarize_in_batches(str(tmp_path / "whole.csv"), tmp_path / "a", PARAMS, settings)
    pieces = avatarize_in_batches(str(tmp_path / "piece-*.csv"), tmp_path / "b", PARAMS, settings)
    with local_cluster(1) as one:
        alone = avatarize_in_batches(str(tmp_path / "whole.csv"), tmp_path / "c", PARAMS,
                                     BatchSettings(batch_rows=2_000, scheduler=one.scheduler_address, scored=True))
    assert len(whole.parts) == 3
    assert parts_bytes(whole) == parts_bytes(pieces) == parts_bytes(alone)
    assert without_timings(whole.batches) == without_timings(pieces.batches)  # the metrics too


def test_a_failed_batch_is_named_and_a_rerun_keeps_the_parts_finished(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    mixed_table(3_000, seed=2).to_csv(path, index=False)
    write_part = batch_run.write_table

    def fail_on_the_second(avatars, part):
        if part.name == "part-00001.parquet":
            raise OSError(28, "No space left on device")
        write_part(avatars, part)

    with local_cluster(1, processes=False) as cluster:  # in this process: the failure injected reaches the worker
        settings = BatchSettings(batch_rows=1_000, scheduler=cluster.scheduler_address)
        monkeypatch.setattr(batch_run, "write_table", fail_on_the_second)
        with pytest.raises(InputError, match=r"batch 2 failed \(OSError: .*No space left on device\); the parts "
                                             r"finished are kept in .*run the same command again"):
            avatarize_in_batches(str(path), tmp_path / "out", PARAMS, settings)
        written = {part.name: part.stat().st_mtime_ns for part in (tmp_path / "out").glob("part-*")}
        assert "part-00001.parquet" not in written and not list((tmp_path / "out").glob("*.partial"))
        monkeypatch.setattr(batch_run, "write_table", write_part)
        said = []
        rerun = avatarize_in_batches(str(path), tmp_path / "out", PARAMS, settings, say=said.append)
    assert any("already written by an earlier run with the same settings: kept" in line for line in said)
    assert all((tmp_path / "out" / name).stat().st_mtime_ns == time for name, time in written.items())
    with local_cluster(1, processes=False) as cluster:
        fresh = avatarize_in_batches(str(path), tmp_path / "fresh", PARAMS,
                                     BatchSettings(batch_rows=1_000, scheduler=cluster.scheduler_address))
    assert len(rerun.parts) == 3 and parts_bytes(rerun) == parts_bytes(fresh)


def test_runs_that_cannot_start_say_why(tmp_path):
    path = tmp_path / "t.csv"
    mixed_table(500).to_csv(path, index=False)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="already holds files"):
        avatarize_in_batches(str(path), tmp_path / "busy", PARAMS, BatchSettings(batch_rows=1_000))
    with pytest.raises(InputError, match="--batch-rows is too small: the smallest batch avatarizes 0 rows, too few "
                                         "for k = 5 neighbours"):
        avatarize_in_batches(str(path), tmp_path / "small", PARAMS, BatchSettings(batch_rows=4))
    with pytest.raises(InputError, match="--scheduler tcp://127.0.0.1:9: no Dask scheduler answers there"):
        avatarize_in_batches(str(path), tmp_path / "none", PARAMS,
                             BatchSettings(batch_rows=1_000, scheduler="tcp://127.0.0.1:9"))


def test_the_projection_is_fitted_on_every_row_and_a_late_modality_reaches_the_avatars(tmp_path, two_workers):
    frame = mixed_table(5_000, seed=12)  # no missing value, no spike: the model table is the encoded table
    late = frame.iloc[4_000:].copy()
    late["colour"] = np.where(np.arange(len(late)) % 4 == 0, "violet", late["colour"])  # in the last file only
    frame.iloc[:4_000].to_csv(tmp_path / "part-1.csv", index=False)
    late.to_csv(tmp_path / "part-2.csv", index=False)
    run = avatarize_in_batches(str(tmp_path / "part-*.csv"), tmp_path / "out", {**PARAMS, "holdout": False},
                               BatchSettings(batch_rows=1_200, scheduler=two_workers))
    assert len(run.parts) == 5
    every_row = pd.concat([read_table(tmp_path / "part-1.csv"), read_table(tmp_path / "part-2.csv")],
                          ignore_index=True)
    kinds = resolve_kinds(every_row)
    typed = apply_kinds(every_row, kinds)
    reference = Projection().fit(TableCodec(kinds).fit(typed).encode(typed))
    np.testing.assert_allclose(run.projection.means_, reference.means_, rtol=1e-9)
    np.testing.assert_allclose(run.projection.stds_, reference.stds_, rtol=1e-9)
    np.testing.assert_allclose(run.projection.eigenvalues_, reference.eigenvalues_, rtol=1e-9, atol=1e-12)
    axes = reference.n_components_
    np.testing.assert_allclose(run.projection.components_[:axes], reference.components_[:axes], atol=1e-9)
    avatars = pd.concat([pd.read_parquet(part) for part in run.parts])
    assert (avatars["colour"] == "violet").mean() == pytest.approx(250 / 5_000, abs=0.02)


def test_a_run_stopped_before_any_batch_leaves_nothing_and_a_corrected_run_starts(tmp_path, two_workers):
    path = tmp_path / "t.csv"
    frame = mixed_table(600)
    frame["visit"] = frame["visit"].astype(str)
    frame.loc[7, "visit"] = "31/02/2024"  # no such day: the column cannot be read as dates
    frame.to_csv(path, index=False)
    settings = BatchSettings(batch_rows=1_000, scheduler=two_workers)
    with pytest.raises(InputError, match="Column 'visit' cannot be read as dates"):
        avatarize_in_batches(str(path), tmp_path / "out", {**PARAMS, "column_kinds": {"visit": "datetime"}}, settings)
    assert not (tmp_path / "out").exists()
    run = avatarize_in_batches(str(path), tmp_path / "out", PARAMS, settings)  # visit read as text this time
    assert len(run.parts) == 1


def test_a_sparse_column_a_batch_never_observes_and_tiny_batches(tmp_path, two_workers):
    frame = mixed_table(3_000, seed=6)
    frame["rare"] = np.nan
    frame.loc[[5, 1_700, 2_900], "rare"] = [1.5, 2.5, 3.5]  # most batches have none of them
    frame.to_csv(tmp_path / "t.csv", index=False)
    run = avatarize_in_batches(str(tmp_path / "t.csv"), tmp_path / "out", PARAMS,
                               BatchSettings(batch_rows=600, scheduler=two_workers))
    avatars = pd.concat([pd.read_parquet(part) for part in run.parts])
    assert len(run.parts) == 5 and avatars["rare"].isna().mean() > 0.99
    assert set(avatars["rare"].dropna()) <= {1.5, 2.5, 3.5}  # never an invented value
    with pytest.raises(InputError, match="--batch-rows is too small: the smallest batch avatarizes 0 rows"):
        avatarize_in_batches(str(tmp_path / "t.csv"), tmp_path / "tiny", {"fast_dp_epsilon": 1.0, "seed": 1},
                             BatchSettings(batch_rows=2, scheduler=two_workers))
    assert not (tmp_path / "tiny").exists()


def test_a_work_folder_left_without_parts_is_replaced_and_one_with_parts_is_kept(tmp_path, two_workers):
    path = tmp_path / "t.csv"
    mixed_table(600).to_csv(path, index=False)
    (tmp_path / "out" / ".work" / "batches").mkdir(parents=True)  # a run stopped before its first part
    settings = BatchSettings(batch_rows=1_000, scheduler=two_workers)
    assert len(avatarize_in_batches(str(path), tmp_path / "out", PARAMS, settings).parts) == 1
    (tmp_path / "other" / ".work").mkdir(parents=True)
    (tmp_path / "other" / "part-00000.parquet").write_bytes(b"another run's")
    with pytest.raises(InputError, match="already holds files"):
        avatarize_in_batches(str(path), tmp_path / "other", PARAMS, settings)


def test_an_impossible_batch_size_is_refused_before_a_row_is_staged(tmp_path, monkeypatch):
    # --batch-rows 2 on 20 000 rows wrote 2.5 GB before refusing, on 200 000 filled the disk (issue 28, item 4)
    path = tmp_path / "t.csv"
    mixed_table(20_000).to_csv(path, index=False)
    staged = []
    monkeypatch.setattr(batch_run, "stage_group", lambda *args, **options: staged.append(args))
    with local_cluster(1, processes=False) as cluster:  # in this process: the recording reaches the worker
        with pytest.raises(InputError, match="--batch-rows is too small: the smallest batch avatarizes 0 rows"):
            avatarize_in_batches(str(path), tmp_path / "out", PARAMS,
                                 BatchSettings(batch_rows=2, scheduler=cluster.scheduler_address))
    assert staged == [] and not (tmp_path / "out").exists()


def test_a_disk_that_fills_while_staging_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    mixed_table(3_000).to_csv(path, index=False)
    write_arrow = batch_run.stage_group.__globals__["write_arrow"]

    def full_disk(table, target, group_rows):
        if "batches" in target.parts:
            raise OSError(28, "No space left on device", str(target))
        return write_arrow(table, target, group_rows)

    monkeypatch.setitem(batch_run.stage_group.__globals__, "write_arrow", full_disk)
    with local_cluster(1, processes=False) as cluster:
        with pytest.raises(InputError, match=r"^--out .*out: cannot write .*group-000000.arrow \(No space left on "
                                             r"device\)\. Free some space there or choose another --out\.$"):
            avatarize_in_batches(str(path), tmp_path / "out", PARAMS,
                                 BatchSettings(batch_rows=1_000, scheduler=cluster.scheduler_address))
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_too_little_room_to_stage_is_said_before_staging(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    mixed_table(3_000).to_csv(path, index=False)
    monkeypatch.setattr(batch_run.shutil, "disk_usage", lambda folder: type("Usage", (), {"free": 10})())
    with local_cluster(1, processes=False) as cluster:
        with pytest.raises(InputError, match=r"staging the batches needs about 0 MB and 0 MB are free there"):
            avatarize_in_batches(str(path), tmp_path / "out", PARAMS,
                                 BatchSettings(batch_rows=1_000, scheduler=cluster.scheduler_address))
    assert not (tmp_path / "out").exists()


def test_staged_rows_carry_codes_and_the_categories_once(tmp_path, monkeypatch):
    # each staged file held the whole dictionary of every categorical: 400 000 ids in every 9 872-row file
    path = tmp_path / "t.parquet"
    frame = mixed_table(6_000)
    frame["code"] = [f"C{i:06d}" for i in np.random.default_rng(1).permutation(6_000) % 3_000]
    frame.to_parquet(path, index=False)
    sizes = {}
    rmtree = batch_run.shutil.rmtree

    def measure_then_remove(folder, **options):  # the work folder, just before it goes
        if Path(folder).name == ".work":
            sizes.update({part.relative_to(folder).parts[0]: 0 for part in Path(folder).rglob("*.arrow")})
            for part in Path(folder).rglob("*.arrow"):
                sizes[part.relative_to(folder).parts[0]] += part.stat().st_size
        rmtree(folder, **options)

    monkeypatch.setattr(batch_run.shutil, "rmtree", measure_then_remove)
    with local_cluster(1, processes=False) as cluster:
        run = avatarize_in_batches(str(path), tmp_path / "out", {**PARAMS, "column_kinds": {"code": "categorical"}},
                                   BatchSettings(batch_rows=1_000, scheduler=cluster.scheduler_address))
    assert len(run.parts) == 6 and sizes["batches"] < 1.2 * sizes["columns"]  # 0.87x; before, 1.9x


def test_a_run_without_a_seed_resumes_with_the_seed_it_drew_and_its_work_folder_is_yours_only(tmp_path, monkeypatch):
    # the same command drew a new seed, then said "already holds files" (issue 28, item 7); OUT/.work was 0644
    path = tmp_path / "t.csv"
    mixed_table(3_000, seed=2).to_csv(path, index=False)
    write_part = batch_run.write_table
    modes = {}

    def fail_on_the_second(avatars, part):
        if part.name == "part-00001.parquet":
            work = part.parent / ".work"
            modes.update({str(file.relative_to(work)): file.stat().st_mode & 0o777 for file in work.rglob("*.arrow")})
            modes["."] = work.stat().st_mode & 0o777
            raise OSError(28, "No space left on device")
        write_part(avatars, part)

    unseeded = {"k": 5}
    with local_cluster(1, processes=False) as cluster:
        settings = BatchSettings(batch_rows=1_000, scheduler=cluster.scheduler_address)
        monkeypatch.setattr(batch_run, "write_table", fail_on_the_second)
        with pytest.raises(InputError, match="batch 2 failed"):
            avatarize_in_batches(str(path), tmp_path / "out", unseeded, settings)
        monkeypatch.setattr(batch_run, "write_table", write_part)
        said = []
        resumed = avatarize_in_batches(str(path), tmp_path / "out", unseeded, settings, say=said.append)
        fresh = avatarize_in_batches(str(path), tmp_path / "fresh", {"k": 5, "seed": resumed.seed}, settings)
    assert any("already written by an earlier run with the same settings: kept" in line for line in said)
    assert parts_bytes(resumed) == parts_bytes(fresh)
    assert modes.pop(".") == 0o700 and modes and set(modes.values()) == {0o600}


def test_a_scheduler_without_workers_and_a_folder_named_like_a_parquet_file_say_so(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    mixed_table(500).to_csv(path, index=False)
    monkeypatch.setattr(batch_run, "WORKER_WAIT_S", 1)
    with local_cluster(0, processes=False) as cluster:
        with pytest.raises(InputError, match=r"^--scheduler .*: no worker joined it within 1 s\. Start one"):
            avatarize_in_batches(str(path), tmp_path / "out", PARAMS,
                                 BatchSettings(batch_rows=1_000, scheduler=cluster.scheduler_address))
    assert not (tmp_path / "out").exists()
    (tmp_path / "parts").mkdir()
    mixed_table(500).to_parquet(tmp_path / "parts" / "a.parquet")
    (tmp_path / "parts" / "b.parquet").mkdir()  # Spark writes a dataset as a folder of that name
    with pytest.raises(InputError, match=r"parts: b.parquet is a folder, not a Parquet file"):
        avatarize_in_batches(str(tmp_path / "parts"), tmp_path / "out", PARAMS, BatchSettings(batch_rows=1_000))


@pytest.mark.parametrize("text", [True, False])
def test_ids_repeated_across_the_files_of_a_batch_run_never_reach_the_avatars(tmp_path, two_workers, text):
    # the same ids in two files: each an ordinary categorical, copied into the avatars (issue 28, item 1)
    rng = np.random.default_rng(3)
    ids = rng.permutation(700) + 1_000
    (tmp_path / "parts").mkdir()
    for name, order in (("a", ids), ("b", rng.permutation(ids))):  # every id once in each file, more in some
        picked = np.concatenate([order, order[: rng.integers(50, 200)]])
        frame = mixed_table(len(picked), seed=int(rng.integers(100)))
        frame.insert(0, "patient_id", [f"P{i:05d}" for i in picked] if text else picked)
        frame.to_parquet(tmp_path / "parts" / f"{name}.parquet", index=False)
    run = avatarize_in_batches(str(tmp_path / "parts"), tmp_path / "out", PARAMS,
                               BatchSettings(batch_rows=800, scheduler=two_workers))
    avatars = pd.concat([pd.read_parquet(part) for part in run.parts])
    real = {str(value) for value in pd.concat([pd.read_parquet(tmp_path / "parts" / f"{name}.parquet")["patient_id"]
                                                for name in "ab"])}
    assert len(run.parts) >= 2 and not avatars["patient_id"].astype(str).isin(real).any()


def related_table(n_rows: int, seed: int) -> pd.DataFrame:
    """A threshold, an order of dates and a total hold on every row; ``near`` is ``score < 5`` but on one row."""
    frame = mixed_table(n_rows, seed=seed)
    frame["score"] = frame["score"].round().astype(int)
    frame["high_score"] = np.where(frame["score"] >= 6, "yes", "no")
    frame["discharge"] = frame["visit"] + pd.to_timedelta(np.random.default_rng(seed).integers(0, 30, n_rows),
                                                          unit="D")
    frame["total"] = frame["age"] + frame["score"]
    frame["near"] = (frame["score"] < 5).astype(int)
    frame.loc[n_rows - 7, "near"] = 1 - frame.loc[n_rows - 7, "near"]
    return frame


def test_relations_are_found_on_the_whole_table_and_kept_in_every_batch(tmp_path, two_workers):
    path = tmp_path / "t.csv"
    related_table(3_000, seed=6).to_csv(path, index=False)
    memory = Avatarizer(**PARAMS).fit(read_table(path))
    one = avatarize_in_batches(str(path), tmp_path / "one", PARAMS, BatchSettings(
        batch_rows=5_000, scheduler=two_workers, part_format="csv"))
    assert one.parts[0].read_bytes() == csv_bytes(memory.avatars_)  # one batch: the fit in memory, relations too
    said = []
    several = avatarize_in_batches(str(path), tmp_path / "several", PARAMS, BatchSettings(
        batch_rows=1_000, scheduler=two_workers, scored=True), say=said.append)
    kept = [relation.sentence() for relation in memory.relations_]
    assert [line.removeprefix("relation: ").split(": kept")[0] for line in said if line.startswith("relation: ")] \
        == kept and len(kept) == 3 and not any("'near'" in sentence for sentence in kept)
    avatars = pd.concat([pd.read_parquet(part) for part in several.parts], ignore_index=True)
    assert all(not relation.breaking(avatars).any() for relation in memory.relations_)
    assert [batch["signal"]["broken_relations"] for batch in several.batches] == [0.0, 0.0, 0.0]


def _refused_or_slow_write(folder: Path, item: int) -> None:
    if item == 0:
        raise InputError("refused at once")
    time.sleep(1.5)
    (folder / f"written-{item}").write_text("late")


def test_a_failing_task_returns_once_the_others_running_on_a_cluster_apart_have_ended(tmp_path, two_workers):
    from dask.distributed import Client

    with Client(two_workers) as client:
        with pytest.raises(InputError, match="refused at once"):
            batch_run.run_tasks(client, tmp_path, partial(_refused_or_slow_write, tmp_path), [0, 1])
        assert (tmp_path / "written-1").exists()  # nothing of the run is left running to write after it stops


def _warning_task(item: int) -> int:
    import warnings

    warnings.warn("t.csv: column 'when' holds times at 2 UTC offsets", UserWarning, stacklevel=1)
    return item * 10


def test_what_the_tasks_say_is_said_once_by_the_run_as_one_process_says_it(tmp_path, two_workers):
    from dask.distributed import Client

    with Client(two_workers) as client, pytest.warns(UserWarning, match="holds times at 2 UTC offsets") as said:
        assert batch_run.run_tasks(client, tmp_path, _warning_task, [0, 1, 2]) == [0, 10, 20]
    assert [str(warning.message) for warning in said].count("t.csv: column 'when' holds times at 2 UTC offsets") == 1
