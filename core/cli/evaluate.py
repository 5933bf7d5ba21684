"""``python -m core evaluate``: every metric of avatars made by any tool."""

from __future__ import annotations

import argparse

from core.cli.options import knowledge, output_path
from core.cli.parser import say
from core.engine.io import read_table, write_json
from core.metrics.analysis.request import AnalysisRequest
from core.metrics.evaluation import evaluate
from core.presentation.summary import analysis_lines, summary_lines
from core.presentation.metrics_json import evaluation_document
from core.presentation.verdict_text import verdict_line
from core.workflows.verdict import verdict_of


def evaluate_command(arguments: argparse.Namespace) -> int:
    metrics_path = output_path("--json", arguments.json, [arguments.original, arguments.avatars]) if arguments.json else None
    request = AnalysisRequest.from_options(arguments.analysis) if arguments.analysis else None
    originals = read_table(arguments.original)
    avatars = read_table(arguments.avatars)
    holdout = read_table(arguments.holdout) if arguments.holdout else None
    evaluation = evaluate(
        originals, avatars, holdout=holdout, paired=False if arguments.not_paired else None,
        column_kinds=dict(arguments.column_kind), ncp=arguments.ncp, seed=arguments.seed,
        knowledge=knowledge(arguments),
        analysis=request,
    )
    verdict = verdict_of(evaluation)  # made elsewhere: no fix can be checked by a re-run here
    for name in evaluation.left_out_columns:
        say("warning", f"column '{name}' is not in both tables: it is left out of the metrics.")
    for message in evaluation.warnings:
        say("warning", message)
    if metrics_path:
        write_json(evaluation_document(evaluation, verdict), metrics_path)
    print("\n".join([*summary_lines(evaluation), *analysis_lines(evaluation), verdict_line(verdict)]))
    return 0
