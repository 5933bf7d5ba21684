import numpy as np
import pytest

from core.figures import cloaking_histogram_figure


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
