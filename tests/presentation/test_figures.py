import numpy as np
import pandas as pd
import pytest

from core.metrics.result import MetricResult
from core.presentation.figures import (
    CELL_FONT_SIZE,
    FAIR,
    GOOD,
    LABEL_FONT_PX,
    MAX_ANNOTATED_VARIABLES,
    MAX_AXES_SHOWN,
    MAX_CATEGORIES,
    POOR,
    axes_figure_caption,
    cloaking_histogram_figure,
    comparison_figure,
    correlation_figure,
    distance_histogram_figure,
    distribution_figure,
    hellinger_scores_figure,
    label_box,
    label_positions,
    latent_figure,
    multivariate_axes_figure,
    pixel_centres,
    privacy_figures,
    tradeoff_figure,
)
from core.workflows.latent import LatentView
from core.workflows.sweep import SweepPoint, SweepSetting
from tests.support import with_verdicts


def bars(figure):
    bar = figure.data[0]
    return list(bar.customdata), np.asarray(bar.y)


def test_cloaking_histogram_one_bar_per_count_and_the_tail_in_the_last():
    counts = np.array([0] * 50 + [1] * 20 + [3] * 10 + [7] * 16 + [900] * 4)  # 95th percentile 7: limit 20
    figure = cloaking_histogram_figure(counts, 5.0, None)
    labels, shares = bars(figure)
    assert labels[:4] == ["0", "1", "2", "3"] and labels[-1] == "20 or more" and len(labels) == 21
    assert shares[0] == pytest.approx(50.0) and shares[3] == pytest.approx(10.0) and shares[7] == pytest.approx(16.0)
    assert shares[-1] == pytest.approx(4.0) and shares.sum() == pytest.approx(100.0)
    assert figure.layout.shapes[0].x0 == 5.5  # between the bars 5 and 6: the target is "more than 5"


def test_cloaking_histogram_groups_counts_after_a_first_bar_of_those_missing_the_target():
    counts = np.arange(1000)  # 95th percentile 949: groups of 24 counts after "0 to 5"
    labels, shares = bars(cloaking_histogram_figure(counts, 5.0, None))
    assert labels[:3] == ["0 to 5", "6 to 29", "30 to 53"] and labels[-1] == "942 or more"
    assert shares[0] == pytest.approx(0.6) and shares[1] == pytest.approx(2.4) and shares[-1] == pytest.approx(5.8)
    assert shares.sum() == pytest.approx(100.0)


def test_cloaking_histogram_stops_where_the_counts_stop_being_exact():
    censored = np.minimum(np.arange(1000), 256)  # growing queries stopped at 256: 256 means "256 or more"
    labels, shares = bars(cloaking_histogram_figure(censored, 5.0, 256))
    last = int(labels[-1].split()[0])
    assert labels[-1].endswith("or more") and last <= 256
    assert shares[-1] == pytest.approx(100 * np.mean(censored >= last))


def result_with(name, breakdown, target=None):
    return MetricResult(name=name, label=name, value=1.0, goal="maximize", interpretation="", breakdown=breakdown,
                        target=target)


def test_hellinger_scores_worst_at_the_top_coloured_by_score():
    rows = [{"variable": name, "score": score, "reference_distance": 0.01, "avatar_distance": 0.1 * i,
             "bins": 20, "binning": "equal-width"} for i, (name, score) in enumerate([("a", 99.0), ("b", 60.0),
                                                                                      ("c", 95.0), ("d", 94.9)])]
    figure = hellinger_scores_figure(result_with("hellinger_mean", {"per_variable": rows}))
    bar = figure.data[0]
    # plotly draws the first category at the bottom: best first, so the worst ends at the top
    assert list(bar.y) == ["a", "c", "d", "b"] and list(bar.x) == [99.0, 95.0, 94.9, 60.0]
    assert list(bar.marker.color) == [GOOD, GOOD, FAIR, POOR]
    assert [row[1] for row in bar.customdata] == [0.0, 0.2, 0.30000000000000004, 0.1]


def test_categorical_distribution_shares_with_missing_and_the_rare_modalities_gathered():
    modalities = [f"m{i:02d}" for i in range(30)]
    original = pd.Series(modalities * 2 + [None] * 4 + ["m00"] * 6, dtype="category")  # 70 rows
    avatars = pd.Series(["m00"] * 35 + ["m01"] * 35, dtype="category")
    figure = distribution_figure(original, avatars, "code", categorical=True)
    first, second = figure.data
    labels = list(first.x)
    assert labels[0] == "m00" and labels[-1] == "(all others)" and len(labels) == MAX_CATEGORIES + 1
    assert "(missing)" in labels  # 4 missing of 70: the second most common "value"
    assert np.sum(first.y) == pytest.approx(100.0) and np.sum(second.y) == pytest.approx(100.0)
    assert first.y[0] == pytest.approx(100 * 8 / 70) and second.y[0] == pytest.approx(50.0)
    assert first.y[labels.index("(missing)")] == pytest.approx(100 * 4 / 70)


def test_numeric_distribution_shares_one_grid_and_says_how_much_is_missing():
    original = pd.Series([1.0, 2.0, np.nan, 4.0])
    avatars = pd.Series([0.0, 10.0, 5.0, 5.0])
    first, second = distribution_figure(original, avatars, "dose", categorical=False).data
    assert first.name == "originals (25 % missing)" and second.name == "avatars (0 % missing)"
    # one grid from 0 to 10 for both: 41 bins of 0.25 (the largest value, 10, in the last), shares counted here
    assert list(first.x[:2]) == [0.125, 0.375] and len(first.x) == 41 and first.width == second.width == 0.25
    assert {i: round(y, 2) for i, y in enumerate(first.y) if y} == {4: 33.33, 8: 33.33, 16: 33.33}
    assert {i: y for i, y in enumerate(second.y) if y} == {0: 25.0, 20: 50.0, 40: 25.0}
    assert first.customdata[4] == "1.00 to 1.25" and first.customdata[40] == "10.00 to 10.25"
    dates = pd.Series(pd.to_datetime(["2024-01-01", "2024-02-01", None]))
    figure = distribution_figure(dates, dates, "visit", categorical=False)
    assert figure.layout.xaxis.type == "date" and figure.data[0].name == "originals (33 % missing)"


def test_correlation_heatmaps_originals_avatars_and_their_difference():
    original = np.array([[1.0, 0.5], [0.5, 1.0]])
    avatars = np.array([[1.0, 0.2], [0.2, 1.0]])
    figure = correlation_figure(result_with("correlation_difference_ratio", {
        "variables": ["x", "y"], "original_correlations": original, "avatars_correlations": avatars,
    }))
    assert len(figure.data) == 3
    assert np.asarray(figure.data[2].z)[0, 1] == pytest.approx(-0.3)
    assert [trace.coloraxis for trace in figure.data] == ["coloraxis", "coloraxis", "coloraxis2"]
    assert (figure.layout.coloraxis.cmin, figure.layout.coloraxis.cmax) == (-1, 1)
    assert (figure.layout.coloraxis2.cmin, figure.layout.coloraxis2.cmax) == (-0.3, 0.3)  # fitted to the difference
    assert figure.data[0].texttemplate == "%{z:.2f}"  # few variables: values written in the cells
    assert {trace.textfont.size for trace in figure.data} == {CELL_FONT_SIZE}  # alike in the three panels
    many = [f"v{i}" for i in range(MAX_ANNOTATED_VARIABLES + 1)]
    identity = np.eye(len(many))
    crowded = correlation_figure(result_with("correlation_difference_ratio", {
        "variables": many, "original_correlations": identity, "avatars_correlations": identity,
    }))
    assert crowded.data[0].texttemplate is None


def test_latent_space_in_two_and_three_dimensions_with_the_explained_variance():
    rng = np.random.default_rng(0)
    latent = LatentView(rng.normal(size=(50, 3)), rng.normal(size=(40, 3)), np.array([0.5, 0.25, 0.125]))
    flat = latent_figure(latent, (0, 2))
    assert [trace.type for trace in flat.data] == ["scattergl", "scattergl"]
    assert np.array_equal(flat.data[1].y, latent.avatars[:, 2])
    assert flat.layout.xaxis.title.text == "axis 1 (50.0 % of variance)"
    assert flat.layout.yaxis.title.text == "axis 3 (12.5 % of variance)"
    deep = latent_figure(latent, (0, 1, 2))
    assert [trace.type for trace in deep.data] == ["scatter3d", "scatter3d"] and len(deep.data[0].x) == 50
    assert deep.layout.scene.zaxis.title.text == "axis 3 (12.5 % of variance)"


def test_multivariate_axes_shows_distances_and_weights_of_the_first_axes():
    per_axis = [{"axis": j + 1, "weight": 0.5 ** (j + 1), "distance": 0.01 * j} for j in range(MAX_AXES_SHOWN + 5)]
    figure = multivariate_axes_figure(result_with("multivariate_hellinger_distance", {"per_axis": per_axis}))
    distances, weights = figure.data
    assert len(distances.x) == MAX_AXES_SHOWN and distances.x[0] == "axis 1"
    assert distances.y[3] == pytest.approx(0.03) and weights.y[0] == pytest.approx(50.0)
    assert tuple(figure.layout.yaxis2.range) == (0, 50.0) and figure.layout.yaxis2.dtick == 10.0
    small = [{"axis": 1, "weight": 0.132, "distance": 0.1}, {"axis": 2, "weight": 0.085, "distance": 0.1}]
    rounded = multivariate_axes_figure(result_with("multivariate_hellinger_distance", {"per_axis": small}))
    assert tuple(rounded.layout.yaxis2.range) == (0, 15.0) and rounded.layout.yaxis2.dtick == 3.0


def test_a_bins_range_tells_its_edges_apart_whatever_their_size():
    """Hover texts read '2e+04 to 2e+04' on every bar of values from 20 000 to 20 099."""
    figure = distribution_figure(pd.Series([20_000.0, 20_099.0]), pd.Series([20_050.0]), "income", categorical=False)
    assert figure.data[0].customdata[:2] == ("20,000.0 to 20,002.5", "20,002.5 to 20,005.0")
    huge = distance_histogram_figure(np.array([0.0, 1e300]), 1.0, "Distance to closest", "distance").data[0].customdata
    assert huge[0] == "0 to 2e+298"


def test_distance_histogram_draws_the_target():
    figure = distance_histogram_figure(np.array([0.0, 0.5, 0.5, 1.0]), 0.2, "Distance to closest", "distance")
    bars = figure.data[0]  # 50 bins of 0.02 from the smallest to the largest, each its share of the avatars
    assert len(bars.y) == 50 and list(bars.width[:2]) == pytest.approx([0.02, 0.02]) and bars.x[0] == pytest.approx(0.01)
    assert {i: y for i, y in enumerate(bars.y) if y} == {0: 25.0, 25: 50.0, 49: 25.0}
    assert bars.customdata[25] == "0.500 to 0.520" and figure.layout.shapes[0].x0 == 0.2


def sweep_point(method, value, values, seeds=(0, 1)):
    point = SweepPoint(SweepSetting(method, value))
    point.seeds = list(seeds)
    point.values = {name: list(v) for name, v in values.items()}
    point.variable_scores = {"age": [90.0, 92.0], "sex": [99.0, 97.0]}
    return with_verdicts(point)


SAFE = {"local_cloaking": [10.0, 12.0], "distance_to_closest": [0.5, 0.6], "closest_distances_ratio": [0.6, 0.7],
        "row_direct_match_protection": [100.0, 100.0], "column_direct_match_protection": [90.0, 90.0]}


def test_tradeoff_one_marker_per_setting_with_spread_front_target_and_filled_when_safe():
    points = [
        sweep_point("avatar", 2, {**SAFE, "hellinger_mean": [97.0, 95.0], "hidden_rate": [89.0, 93.0]}),
        sweep_point("avatar", 10, {**SAFE, "hellinger_mean": [93.0, 93.0], "hidden_rate": [94.0, 96.0]}),
        sweep_point("avatar", 20, {**SAFE, "hellinger_mean": [90.0, 92.0], "hidden_rate": [93.0, 95.0]}),
        sweep_point("fast_dp", 1.0, {"hellinger_mean": [80.0, 82.0], "hidden_rate": [None, None],
                                     "distance_to_closest": [1.0, 1.2]}),
    ]
    labels = {"hellinger_mean": "Hellinger Mean", "hidden_rate": "hidden rate (%)"}
    figure = tradeoff_figure(points, "hellinger_mean", "hidden_rate", 90.0, labels)
    safe, risky, front = figure.data  # FastDP has no hidden rate: no marker of its own
    # k = 2 misses the hidden rate with one seed: a hollow marker of its own trace; k = 20 is dominated by k = 10
    assert (safe.name, risky.name) == ("Avatar (k)", "Avatar (k): a target missed")
    assert (safe.marker.symbol, risky.marker.symbol) == ("circle", "circle-open")
    assert list(safe.customdata) == [1, 2] and list(risky.customdata) == [0]
    assert list(safe.x) == [95.0, 94.0] and list(safe.y) == [93.0, 91.0] and list(risky.x) == [91.0]
    # bars from the mean to the lowest and the highest seed: k = 2's hidden rate bar reaches its seed at 89
    assert list(safe.error_x.array) == [1.0, 1.0] and list(safe.error_x.arrayminus) == [1.0, 1.0]
    assert (risky.error_x.arrayminus[0], risky.error_y.array[0]) == (2.0, 1.0)
    assert risky.hovertext[0] == ("seeds: hidden rate (%) 91.00 (89.00 to 93.00), Hellinger Mean 96.00 (95.00 to "
                                  "97.00)<br>privacy targets: missed: hidden rate (1 of 2 seeds)")
    assert list(front.x) == [91.0, 95.0] and list(front.y) == [96.0, 93.0]
    assert figure.layout.shapes[0].x0 == 90.0
    points[1].lower_bounds.add("local_cloaking")
    censored = tradeoff_figure(points, "hellinger_mean", "local_cloaking", 5.0, labels | {"local_cloaking": "lc"})
    assert censored.data[0].hovertext[0].endswith("<br>lc: at least this (some counts stopped at their cap)")
    assert "at least" not in censored.data[0].hovertext[1]
    by_distance = tradeoff_figure(points, "hellinger_mean", "distance_to_closest", 0.2, labels | {
        "distance_to_closest": "distance to closest"})
    assert [trace.name for trace in by_distance.data][:3] == [
        "Avatar (k)", "Avatar (k): a target missed", "AvatarFastDP (epsilon)"]
    assert list(by_distance.data[2].customdata) == [3] and by_distance.data[2].marker.symbol == "diamond"
    ringed = tradeoff_figure(points, "hellinger_mean", "distance_to_closest", 0.2, labels | {
        "distance_to_closest": "distance to closest"}, advised=3)  # the setting the advice names, drawn and ringed
    ring = next(trace for trace in ringed.data if trace.name == "advised: epsilon = 1 (gaussian)")
    assert (list(ring.x), list(ring.y)) == ([1.1], [81.0]) and ring.marker.symbol == "circle-open"
    not_drawn = tradeoff_figure(points, "hellinger_mean", "hidden_rate", 90.0, labels, advised=3)  # no hidden rate
    assert not any(trace.name.startswith("advised") for trace in not_drawn.data)


def boxes(xs, ys, texts, positions, x_ranges=None, y_ranges=None):
    """The label boxes :func:`label_positions` reasons with."""
    centres = pixel_centres(xs, ys, x_ranges or [(x, x) for x in xs], y_ranges or [(y, y) for y in ys])
    return [label_box(centre, (len(text) * LABEL_FONT_PX[0], LABEL_FONT_PX[1]), position)
            for centre, text, position in zip(centres, texts, positions, strict=True)]


def overlaps(placed):
    return [
        (i, j) for i in range(len(placed)) for j in range(i)
        if min(placed[i][2], placed[j][2]) > max(placed[i][0], placed[j][0])
        and min(placed[i][3], placed[j][3]) > max(placed[i][1], placed[j][1])
    ]


@pytest.mark.parametrize("xs, ys", [
    ([89.7, 88.2, 90.6, 93.8, 96.7], [95.7, 92.4, 91.6, 91.1, 90.4]),  # the AIDS table's sweep, k = 2 to 50
    ([90.0, 90.2, 90.4, 90.1], [95.0, 95.1, 94.9, 94.8]),  # four settings almost on one spot
    ([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),  # one line
])
def test_labels_do_not_overlap_each_other(xs, ys):
    texts = [f"k = {value}" for value in (2, 5, 10, 20, 50, 100)[:len(xs)]]
    positions = label_positions(xs, ys, texts, [(x, x) for x in xs], [(y, y) for y in ys])
    assert overlaps(boxes(xs, ys, texts, positions)) == []


def test_labels_of_crowded_points_move_apart():
    # k = 2 and k = 5 sit close together (the demo's sweep): the second label goes elsewhere than the first
    xs, ys, texts = [90.0, 90.3, 96.0], [95.7, 95.6, 90.4], ["k = 2", "k = 5", "k = 50"]
    positions = label_positions(xs, ys, texts, [(x, x) for x in xs], [(y, y) for y in ys])
    assert positions[0] != positions[1] and overlaps(boxes(xs, ys, texts, positions)) == []
    assert positions[2] == "top left"  # nothing near, at the right edge: the first candidate that stays inside


def test_comparison_bars_hold_each_settings_mean_score_per_variable():
    first = sweep_point("avatar", 2, {})
    second = sweep_point("avatar", 10, {})
    second.variable_scores = {"age": [80.0, 70.0], "sex": [100.0, 100.0], "bmi": [60.0, 62.0]}
    figure = comparison_figure(first, second)
    assert [trace.name for trace in figure.data] == ["k = 2", "k = 10"]
    # best first by the first setting's score (plotly draws it at the bottom: the worst ends at the top); a variable
    # the first setting lacks counts as 100
    assert list(figure.data[0].y) == ["bmi", "sex", "age"]
    assert np.isnan(figure.data[0].x[0]) and list(figure.data[0].x[1:]) == [98.0, 91.0]
    assert list(figure.data[1].x) == [61.0, 100.0, 75.0]


def test_privacy_figures_are_those_of_the_metrics_that_apply():
    privacy = {
        "distance_to_closest": result_with("distance_to_closest", {"distances": np.array([0.1, 0.5])}, 0.2),
        "closest_distances_ratio": result_with("closest_distances_ratio", {"ratios": np.array([0.2, 0.9])}, 0.3),
        "local_cloaking": result_with("local_cloaking", {"counts": np.array([0, 3, 9]), "censored_at": None}, 5.0),
    }
    assert list(privacy_figures(privacy)) == ["distance_to_closest", "closest_distances_ratio", "local_cloaking"]
    unpaired = {**privacy, "local_cloaking": MetricResult(
        name="local_cloaking", label="", value=None, goal="maximize", interpretation="", not_applicable="FastDP")}
    assert list(privacy_figures(unpaired)) == ["distance_to_closest", "closest_distances_ratio"]
    shares = privacy_figures(unpaired)["closest_distances_ratio"].data[0].y  # the ratios 0.2 and 0.9
    assert shares[0] == shares[-1] == 50.0 and sum(shares) == 100.0


def test_axes_caption_counts_the_axes_and_says_when_some_are_not_drawn():
    few = result_with("multivariate_hellinger_distance", {"per_axis": [{"axis": 1}, {"axis": 2}]})
    assert "mean of the 2 per-axis distances weighted" in axes_figure_caption(few)
    assert "first" not in axes_figure_caption(few)
    many = result_with("multivariate_hellinger_distance", {"per_axis": [{"axis": j} for j in range(40)]})
    assert axes_figure_caption(many).endswith(f"The chart shows the first {MAX_AXES_SHOWN} of them.")


def test_labels_keep_off_the_target_line_and_the_seed_bars():
    xs, ys, texts = [89.7, 93.8, 96.7], [95.7, 91.1, 90.4], ["k = 2", "k = 20", "k = 50"]
    x_ranges, y_ranges = [(89.5, 89.9), (93.0, 94.6), (96.3, 97.1)], [(95.5, 95.9), (90.5, 91.7), (89.9, 90.7)]
    positions = label_positions(xs, ys, texts, x_ranges, y_ranges, target=90.0)
    line = pixel_centres([90.0], [95.7], x_ranges, y_ranges)[0][0]
    first = boxes(xs, ys, texts, positions, x_ranges, y_ranges)[0]
    assert not first[0] < line < first[2]  # k = 2's label does not cross the target line just right of it


def test_tradeoff_on_a_risk_runs_from_high_to_low_and_its_front_prefers_less_risk():
    points = [
        sweep_point("avatar", 5, {**SAFE, "hellinger_mean": [95.0, 95.0], "linkability_risk": [8.0, 8.0]}),
        sweep_point("avatar", 10, {**SAFE, "hellinger_mean": [93.0, 93.0], "linkability_risk": [2.0, 2.0]}),
        sweep_point("avatar", 20, {**SAFE, "hellinger_mean": [90.0, 90.0], "linkability_risk": [3.0, 3.0]}),
    ]
    figure = tradeoff_figure(points, "hellinger_mean", "linkability_risk", 10.0, {
        "hellinger_mean": "Hellinger Mean", "linkability_risk": "linkability risk (%)"})
    front = figure.data[-1]
    assert figure.layout.xaxis.autorange == "reversed"  # more private to the right
    assert list(front.x) == [8.0, 2.0] and list(front.y) == [95.0, 93.0]  # k = 20: more risk and less signal


def test_a_number_with_a_long_right_tail_is_drawn_on_a_logarithmic_scale():
    """Issue 46: CPS1988's weekly wages (50 to 18 777) drew one bar and a flat line on an even scale."""
    import numpy as np
    import pandas as pd

    from core.presentation.figures import distribution_figure

    rng = np.random.default_rng(0)
    wages = pd.Series(np.round(rng.lognormal(6.2, 0.6, 5_000), 2))
    figure = distribution_figure(wages, wages.sample(frac=1.0, random_state=1), "wage", categorical=False)
    assert "logarithmic scale" in figure.layout.xaxis.title.text
    bars = figure.data[0]  # equal bins of the logarithm: the share below each bin, counted apart, is the bars' sum
    starts = np.asarray(bars.x) - bars.width / 2
    below = [(np.log10(wages) < start).mean() * 100 for start in starts[1:]]
    assert np.allclose(np.cumsum(bars.y)[:-1], below)
    assert float(bars.customdata[0].split(" to ")[0].replace(",", "")) == pytest.approx(wages.min(), abs=0.05)
    assert "100" in figure.layout.xaxis.ticktext and "1,000" in figure.layout.xaxis.ticktext
    even = distribution_figure(pd.Series(rng.normal(50, 5, 500)), pd.Series(rng.normal(50, 5, 500)), "x", False)
    assert "logarithmic" not in (even.layout.xaxis.title.text or "")
