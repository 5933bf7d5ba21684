"""The HTML report (core/presentation/report.py): the same run makes the same file, and text from the data is
text."""

import dataclasses
import datetime as dt
import re
import warnings

import numpy as np
import pandas as pd

from core.engine.parameters import Parameters
from tests.support import html_of as build_html_report
from core.workflows.plan import ColumnPlan
from core.workflows.run import generate_judged
from tests.support import mixed_table

HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "{{7*7}}"]


def judged(frame: pd.DataFrame, name: str = "t.csv"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return generate_judged(frame, ColumnPlan(), Parameters(k=5, seed=1), table_name=name, fingerprint="f")


def test_the_same_run_makes_the_same_report_its_date_the_runs():
    # plotly drew a random id per figure: two reports of one run differed in every figure; the date was the
    # report's own (a zip written across a minute's turn differed from the first)
    run = judged(mixed_table(600, seed=2))
    first, second = (build_html_report(run) for _ in range(2))
    assert first == second
    made_on = dataclasses.replace(run, made_on=dt.datetime(2026, 1, 2, 3, 4))
    assert re.search(r"<td>made on</td>\s*<td>Jan 2, 2026, 03:04</td>", build_html_report(made_on))
    ids = re.findall(r'<div id="([^"]+)" class="plotly-graph-div"', first)
    assert ids == [f"figure-{number}" for number in range(1, len(ids) + 1)] and len(ids) >= 4


def test_column_names_and_values_from_the_data_come_out_as_text():
    frame = mixed_table(600, seed=3)
    frame = frame.rename(columns={"colour": HOSTILE[0], "group": HOSTILE[1], "score": HOSTILE[2]})
    frame[HOSTILE[0]] = np.where(np.arange(600) % 2, HOSTILE[1], HOSTILE[2])
    report = build_html_report(judged(frame, name="<b>bold</b>.csv"))
    assert "<script>alert(1)</script>" not in report and "<img src=x" not in report and "<b>bold</b>" not in report
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report or "\\u003cscript\\u003e" in report
    assert "{{7*7}}" in report  # as written: no template ran on it


def test_markup_in_a_column_name_is_text_in_the_figures_too():
    # plotly renders <a> and <b> in its texts: a live link in every figure of beeaff8's report (issue 28, item 8)
    frame = mixed_table(600, seed=3).rename(columns={"colour": '<a href="http://example.com/x">Click</a>',
                                                     "score": "<b>bold</b>"})
    report = build_html_report(judged(frame))
    figures = "".join(re.findall(r"Plotly\.newPlot\((.*?)\)\s*};", report, re.S))
    assert figures and "\\u003ca href" not in figures and "\\u003cb\\u003ebold" not in figures
    assert "&lt;a href" in figures and "&lt;b&gt;bold" in figures  # shown as written


def test_the_report_of_linked_tables_has_every_part_once_and_hostile_names_as_text():
    from core.dataset import Dataset
    from core.engine.parameters import Parameters
    from tests.support import html_of as build_html_report
    from core.workflows.linked_run import generate_linked
    from tests.engine.test_linked_tables import clinical, schema

    frames = clinical(300)
    frames["stays"] = frames["stays"].rename(columns={"ward": HOSTILE[0]})
    described = schema()
    described["tables"]["stays"]["k"] = 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = generate_linked(Dataset.from_dict(described), frames, Parameters(seed=1), fingerprint="0123abcd",
                              search=False)
        report = build_html_report(run)
    assert report.count("<h1>") == 1 and "Relations between the tables" in report
    # issue 48: the report of linked tables had no fingerprint, no parameters, no summary of the run
    assert "<code>0123abcd</code>" in report and "Seed 1; software: avatar-workbench" in report
    assert report.count("<h2>4. Method and parameters</h2>") == 1
    assert re.search(r"<td>stays</td>\s*<td>method</td>\s*<td>Avatar, k = 3</td>", report)
    assert re.search(r"<td>patients</td>\s*<td>method</td>\s*<td>Avatar, k = 5</td>", report)
    assert "patients.patient_id -&gt; stays.patient_id" in report and run.summary()[:40] in report
    assert "patients, with everything about each person" in report
    assert all(f"<h3>Table {name}</h3>" in report for name in frames)
    assert report.count("plotly.js v") == 1  # plotly's JavaScript once, with the first figure
    ids = re.findall(r'<div id="([^"]+)" class="plotly-graph-div"', report)
    assert ids == [f"figure-{number}" for number in range(1, len(ids) + 1)]
    assert "<script>alert(1)</script>" not in report and "&lt;script&gt;alert(1)&lt;/script&gt;" in report
    # in one table's report's words (a helper's pass: "(--known, --sensitive)" in the dashboard's zip)
    assert "--known" not in report and "on the Privacy page, under What an attacker could know" in report
    if "Not ready to share" in report:
        assert "No fix was checked here" in report and "checks a fix by re-running" not in report


def test_the_report_of_linked_tables_says_where_each_fast_dp_table_s_epsilon_goes():
    from core.dataset import Dataset
    from core.engine.parameters import Parameters
    from tests.support import html_of as build_html_report
    from core.workflows.linked_run import generate_linked
    from tests.engine.test_linked_tables import clinical, schema

    described = schema()
    described["tables"]["patients"] = {**described["tables"]["patients"], "fast_dp_epsilon": 0.5}
    described["tables"]["patients"].pop("k", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = generate_linked(Dataset.from_dict(described), clinical(300), Parameters(seed=1), search=False)
        report = build_html_report(run)
    assert report.count("where epsilon = 0.5 goes") == 1 and "<h3>patients: where epsilon = 0.5 goes</h3>" in report
    assert "not end-to-end" in report and re.search(r"<td>input \(SHA-256 of its file, or of its files one after the other\)</td>\s*<td>not given</td>", report)
    assert "Not covered by the budget" in report.split("<h2>8. Limitations")[1]  # among the limitations too


def test_the_report_of_a_time_series_names_its_link_s_method():
    # a time series' link is set by its time column, not chosen: the parameters' table said it with a KeyError
    from core.dataset import Dataset
    from core.engine.parameters import Parameters
    from tests.support import html_of as build_html_report
    from core.workflows.linked_run import generate_linked
    from tests.engine.test_series_tables import longitudinal
    from tests.engine.test_series_tables import schema as series_schema

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = generate_linked(Dataset.from_dict(series_schema()), longitudinal(40), Parameters(seed=1), search=False)
        report = build_html_report(run)
    assert re.search(r"<td>patients.patient_id -&gt; labs.patient_id</td>\s*<td>method</td>\s*"
                     r"<td>time series, rebuilt from its persons&#39; avatars</td>", report)
