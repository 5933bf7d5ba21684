"""The registry: a metric added there reaches every place that lists metrics."""

from types import SimpleNamespace

from core.metrics import registry
from core.metrics.definition import LINKABILITY, SIGNAL, MetricDefinition
from core.metrics.evaluation import evaluate
from core.metrics.registry import DEFINITIONS, PRIVACY_METRICS, SIGNAL_METRICS, TARGETS
from core.presentation.summary import summary_lines
from tests.support import mixed_table


def test_every_metric_is_a_module_with_a_definition_and_a_computation():
    for module in (*SIGNAL_METRICS, *PRIVACY_METRICS):
        assert isinstance(module.DEFINITION, MetricDefinition) and callable(module.compute)
        assert module.__name__.rsplit(".", 1)[1] in module.DEFINITION.name  # a reader finds it by its name
    assert set(TARGETS) == {module.DEFINITION.name for module in PRIVACY_METRICS}
    assert all(DEFINITIONS[name].target == target for name, target in TARGETS.items())
    hidden_rate = DEFINITIONS["hidden_rate"]
    assert hidden_rate.target_text == "> 90 %" and hidden_rate.axis_label == "hidden rate (%)"
    assert all(module.DEFINITION.criterion == SIGNAL for module in SIGNAL_METRICS)


def far_avatar_share(context):
    """A made-up metric for the test: the share of avatars farther than 0.1 from every original."""
    nearest, _ = context.nearest_two
    return FAR.result(float(100 * (nearest > 0.1).mean()))


FAR = MetricDefinition(
    name="far_avatar_share", label="Far avatar share", unit="%", goal="maximize", bounds=(0.0, 100.0),
    interpretation="Avatars farther than 0.1 from every real person.", criterion=LINKABILITY, target=50.0,
)


def test_a_metric_added_to_the_registry_reaches_the_json_and_the_command_line(monkeypatch):
    added = SimpleNamespace(DEFINITION=FAR, compute=far_avatar_share)
    monkeypatch.setattr(registry, "PRIVACY_METRICS", (*registry.PRIVACY_METRICS, added))
    frame = mixed_table(300)
    copies = evaluate(frame, frame.copy(), seed=0)  # every avatar on its original: none is far
    assert copies.privacy["far_avatar_share"].value == 0.0 and copies.privacy["far_avatar_share"].passed is False
    json = copies.to_json()
    assert json["privacy"]["far_avatar_share"] == 0.0 and json["privacy_targets"]["far_avatar_share"]["target"] == 50
    assert any(line.strip().startswith("Far avatar share") and "> 50 %" in line and line.endswith("FAIL")
               for line in summary_lines(copies))
