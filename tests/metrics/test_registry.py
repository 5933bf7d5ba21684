"""The registry: a metric added there reaches every place that lists metrics."""

from types import SimpleNamespace

from core.metrics import registry
from core.metrics.definition import LINKABILITY, SIGNAL, MetricDefinition
from core.metrics.evaluation import evaluate
from core.metrics.registry import DEFINITIONS, LINK_METRICS, PRIVACY_METRICS, SERIES_METRICS, SIGNAL_METRICS, TARGETS
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
    for name, module in [*LINK_METRICS.items(), *((module.DEFINITION.name, module) for module in SERIES_METRICS)]:
        assert isinstance(module.DEFINITION, MetricDefinition) and callable(module.compute)
        assert module.__name__.rsplit(".", 1)[1] == name  # a link's or a series' metric: its module's name


def test_a_link_metric_added_to_the_registry_reaches_the_linked_evaluation(monkeypatch):
    """Issue 48: a link's metrics were called by hand beside the registry; they are computed through it, each
    from the link's context (its real halves, its avatars, its joins)."""
    from core.dataset import Dataset
    from core.engine.dataset_avatarizer import DatasetAvatarizer
    from core.metrics.linked_evaluation import evaluate_linked
    from tests.engine.test_linked_tables import clinical, schema

    seen = []

    def parents_made(context):
        seen.append(context.link.describe())
        return FAR.result(float(len(context.avatars[0])))

    monkeypatch.setattr(registry, "LINK_METRICS", {**registry.LINK_METRICS, "parents_made": SimpleNamespace(
        DEFINITION=FAR, compute=parents_made)})
    fitted = DatasetAvatarizer(schema(), seed=0, holdout_min_rows=10).fit(clinical(200))
    evaluation = evaluate_linked(Dataset.from_dict(schema()), fitted.working_data_, fitted.holdout_data_,
                                 fitted.avatars_, paired_orders=dict.fromkeys(fitted.avatars_), seed=0)
    for link, metrics in evaluation.links.items():
        parent = link.split(" ")[0].split(".")[0]
        assert list(metrics)[-2:] == ["broken_sequences", "parents_made"]  # the registry's order, the one added last
        assert metrics["parents_made"].value == len(fitted.avatars_[parent])
    assert seen == list(evaluation.links)


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
