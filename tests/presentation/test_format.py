"""The one value formatter, the holdout sentence and the bands in words (core/presentation/format.py)."""

from core.metrics.evaluation import Evaluation
from core.metrics.registry import DEFINITIONS
from core.metrics.result import MetricResult
from core.presentation.format import bands_text, holdout_sentence, metric_text


def result(value, **breakdown):
    return MetricResult(name="x", label="x", value=value, goal="maximize", interpretation="", breakdown=breakdown)


def test_values_are_written_one_way():
    assert metric_text(result(None)) == "n/a"
    assert metric_text(result(0.12345)) == "0.123" and metric_text(result(91.26, at_least=False), "%") == "91.3 %"
    assert metric_text(result(16.0, at_least=True), "avatars") == ">= 16.0"  # the unit "avatars" is in the label
    assert metric_text(result(94.0), "/ 100") == "94.0 / 100"


def test_the_holdout_sentence_names_the_case_and_the_rows():
    rows = {"working": 1_000, "holdout": 1_000, "avatars": 1_000}
    real = Evaluation(holdout="real", rows=rows, signal={}, privacy={})
    assert holdout_sentence(real) == (
        "Compared with a real holdout: 1,000 real rows set aside before the avatars were made and never used to "
        "make them (1,000 rows avatarized); 1,000 avatars.")
    assert "approximate holdout: every row was avatarized" in holdout_sentence(
        Evaluation(holdout="approximate", rows=rows, signal={}, privacy={}))


def test_bands_in_words_from_the_definitions():
    assert bands_text(DEFINITIONS["multivariate_hellinger_distance"]) == (
        "below 0.1: almost identical; 0.1 to 0.3: good fidelity; above 0.3: distorted")  # seed 001's bands
    assert bands_text(DEFINITIONS["hellinger_mean"]).startswith("95 and above: close to natural variability; 80 to 95")


def test_a_share_short_of_100_never_reads_100():
    """Issue 46: a row direct match protection of 99.986 % read "100.0 %" on its card."""
    from core.presentation.format import number_text

    assert number_text(99.986, "%") == "99.99" and number_text(99.9996, "%") == "99.9996"
    assert number_text(99.99999, "%") == "99.9999" and number_text(100.0, "%") == "100.0"
    assert number_text(99.94, "%") == "99.9" and number_text(84.25, "%") == "84.2"
    assert number_text(99.97, "/ 100") == "99.97" and number_text(88.94, "/ 100") == "88.9"  # a score alike


def test_a_value_out_of_100_has_one_decimal_even_below_1():
    """A lopsided family's children per parent read "0.000" where the other scores read one decimal."""
    from core.presentation.format import number_text

    assert number_text(0.0, "/ 100") == "0.0" and number_text(0.04, "%") == "0.0" and number_text(0.25, "/ 100") == "0.2"
    assert number_text(0.233) == "0.233" and number_text(1.234) == "1.2"  # a distance or a ratio: three below 1
