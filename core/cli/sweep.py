"""``python -m core sweep``: several k and epsilon values, several seeds each, every run scored, a recommendation."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from core.cli.options import column_plan, common_parameters, output_path, table_of_options
from core.cli.parser import say
from core.engine.io import read_table, write_json
from core.engine.parameters import MECHANISMS
from core.engine.schema import column_warning_lines, drop_columns, profile_columns, resolve_kinds
from core.errors import InputError
from core.presentation.metrics_json import sweep_json
from core.presentation.sweep_table import sweep_table
from core.workflows.sweep import SweepPoint, recommendation, run_sweep, sweep_settings


def sweep(arguments: argparse.Namespace) -> int:
    metrics_path = output_path("--json", arguments.json, [arguments.input]) if arguments.json else None
    for mechanism in arguments.mechanism:
        if mechanism not in MECHANISMS:
            raise InputError(f"--mechanism must list names among {', '.join(MECHANISMS)}, got {mechanism!r}.")
    settings = sweep_settings(arguments.k, arguments.fast_dp_epsilon, arguments.mechanism)
    plan = column_plan(arguments, table_of_options(arguments, Path(arguments.input)))
    base = common_parameters(arguments)
    frame = read_table(arguments.input)
    kept = drop_columns(frame, plan.dropped, "--drop")
    kinds = resolve_kinds(kept, plan.table.column_kinds)
    plan.knowledge.checked(kinds)  # a misspelt --known stops here, before the runs
    profiles = profile_columns(kept, kinds)
    for message in column_warning_lines(profiles, plan.table.column_kinds, excluded=plan.excluded,
                                        reduced=base.use_categorical_reduction):
        say("warning", message)
    start = time.perf_counter()
    done = []

    def report(point: SweepPoint, seed: int) -> None:
        done.append(point)
        print(f"  {len(done)}/{len(settings) * arguments.seeds}: {point.setting.label}, seed {seed}", file=sys.stderr)

    points = run_sweep(frame, plan, base, settings, arguments.seeds, on_result=report)
    elapsed = time.perf_counter() - start
    print("\n".join(sweep_table(points)))
    sentence = recommendation(points)
    print(sentence)
    if metrics_path:
        write_json(sweep_json(points, sentence, base, plan, seeds=arguments.seeds, elapsed_s=elapsed), metrics_path)
    return 0
