import numpy as np
import pytest

from core.engine.fast_dp import FastDPSynthesizer, component_shares, repair_positive_definite
from core.errors import InputError

LAPLACE_STD = np.sqrt(2.0)  # standard deviation of Laplace(0, 1)


def latent_points(n_rows=5_000, seed=0):
    rng = np.random.default_rng(seed)
    mixing = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.3, 0.5]])
    return rng.standard_normal((n_rows, 3)) @ mixing.T


def fitted(points, seed, **parameters):
    parameters = {"epsilon": 1.0, **parameters}
    return FastDPSynthesizer(**parameters).fit(points, np.random.default_rng(seed))


def test_bounds_are_the_percentiles_and_clip_the_data():
    points = latent_points()
    model = fitted(points, 0, bounds_percentile=10.0)
    np.testing.assert_allclose(model.lower_, np.percentile(points, 10, axis=0))
    np.testing.assert_allclose(model.upper_, np.percentile(points, 90, axis=0))
    clipped = np.clip(points, model.lower_, model.upper_)
    np.testing.assert_allclose(model.exact_["mean"], clipped.mean(axis=0))


def test_gaussian_noise_scales_follow_the_budget_split_and_the_sensitivity():
    points = latent_points()
    model = fitted(points, 0, epsilon=2.0)
    ranges = model.upper_ - model.lower_
    n = len(points)
    np.testing.assert_allclose(model.noise_scales_["mean"], ranges.sum() / n / (0.3 * 2.0))
    np.testing.assert_allclose(model.noise_scales_["covariance"], np.outer(ranges, ranges) / n / (0.7 * 2.0 / 6))


def standardised_noise(models, statistic):
    return np.array([(m.noisy_[statistic] - m.exact_[statistic]) / m.noise_scales_[statistic] for m in models])


def test_gaussian_noise_has_the_laplace_spread_measured_over_many_seeds():
    points = latent_points()
    models = [fitted(points, seed) for seed in range(400)]
    mean_noise = standardised_noise(models, "mean")
    # 1200 Laplace(0, 1) draws: the relative standard error of their std is about 6 %.
    assert np.std(mean_noise) == pytest.approx(LAPLACE_STD, rel=0.2)
    covariance_noise = standardised_noise(models, "covariance")  # PD here, so the repair changes nothing
    assert np.std(covariance_noise[:, np.triu_indices(3)[0], np.triu_indices(3)[1]]) == pytest.approx(LAPLACE_STD, rel=0.15)
    np.testing.assert_allclose(covariance_noise, covariance_noise.transpose(0, 2, 1))


def test_histogram_noise_scale_is_two_d_over_epsilon():
    points = latent_points()
    models = [fitted(points, seed, mechanism="histogram", epsilon=3.0) for seed in range(300)]
    assert models[0].noise_scales_["counts"][0, 0] == pytest.approx(2 * 3 / 3.0)
    noise = standardised_noise(models, "counts")  # counts far from 0: never clipped
    assert np.std(noise) == pytest.approx(LAPLACE_STD, rel=0.1)


def test_gmm_noise_follows_each_components_sensitivity():
    points = latent_points(3_000)
    models = [fitted(points, seed, mechanism="gmm", gmm_n_components=2, epsilon=50.0) for seed in range(150)]
    for model in models[:3]:
        effective = model.exact_["weights"] * len(points)
        ranges = model.upper_ - model.lower_
        expected = ranges.sum() / effective / (0.4 * 50.0 / 2)
        np.testing.assert_allclose(model.noise_scales_["means"][:, 0], expected)
        np.testing.assert_allclose(model.noise_scales_["weights"], 1 / len(points) / (0.2 * 50.0 / 2))
    assert np.std(standardised_noise(models, "means")) == pytest.approx(LAPLACE_STD, rel=0.2)


@pytest.mark.parametrize("mechanism", ["gaussian", "gmm", "histogram"])
def test_statistics_converge_to_the_non_private_ones_as_epsilon_grows(mechanism):
    points = latent_points(2_000)
    errors = []
    for epsilon in (0.1, 10.0, 1_000.0):
        models = [fitted(points, seed, mechanism=mechanism, epsilon=epsilon, gmm_n_components=2) for seed in range(5)]
        errors.append(np.mean([_model_error(m) for m in models]))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.01


def _model_error(model):
    if model.mechanism == "histogram":
        exact = model.exact_["counts"] / model.exact_["counts"].sum(axis=1, keepdims=True)
        return np.abs(model.noisy_["probabilities"] - exact).max()
    if model.mechanism == "gmm":
        return np.abs(model.noisy_["means"] - model.exact_["means"]).max()
    return np.abs(model.noisy_["covariance"] - model.exact_["covariance"]).max()


@pytest.mark.parametrize("mechanism", ["gaussian", "gmm"])
def test_covariances_stay_positive_definite_at_tiny_epsilon(mechanism):
    for seed in range(20):
        model = fitted(latent_points(500), seed, mechanism=mechanism, epsilon=1e-4)
        covariances = model.noisy_["covariance"][None] if mechanism == "gaussian" else model.noisy_["covariances"]
        for covariance in covariances:
            np.testing.assert_allclose(covariance, covariance.T)
            assert np.linalg.eigvalsh(covariance).min() > 0
            np.linalg.cholesky(covariance)
        assert np.isfinite(model.sample(100, np.random.default_rng(seed))).all()


def test_repair_keeps_a_positive_definite_matrix_unchanged():
    matrix = np.array([[2.0, 0.5], [0.5, 1.0]])
    np.testing.assert_allclose(repair_positive_definite(matrix, np.ones(2)), matrix)
    repaired = repair_positive_definite(np.array([[1.0, 2.0], [2.0, 1.0]]), np.ones(2))
    assert np.linalg.eigvalsh(repaired).min() == pytest.approx(1e-6)


@pytest.mark.parametrize("mechanism", ["gaussian", "gmm", "histogram"])
def test_same_seed_same_draws_other_seed_other_draws(mechanism):
    points = latent_points(1_000)
    first = fitted(points, 1, mechanism=mechanism).sample(50, np.random.default_rng(9))
    again = fitted(points, 1, mechanism=mechanism).sample(50, np.random.default_rng(9))
    other = fitted(points, 2, mechanism=mechanism).sample(50, np.random.default_rng(10))
    np.testing.assert_array_equal(first, again)
    assert not np.allclose(first, other)


def test_a_gmm_sample_is_not_repeated_across_calls():
    model = fitted(latent_points(1_000), 0, mechanism="gmm")
    rng = np.random.default_rng(3)
    assert not np.allclose(model.sample(100, rng), model.sample(100, rng))


def test_histogram_samples_stay_in_the_bounds_and_follow_the_bins():
    points = latent_points(20_000)
    model = fitted(points, 0, mechanism="histogram", epsilon=100.0, histogram_n_bins=4)
    sample = model.sample(40_000, np.random.default_rng(0))
    assert np.all((sample >= model.lower_) & (sample <= model.upper_))
    counts = np.histogram(sample[:, 0], bins=model.noisy_["edges"][0])[0] / 40_000
    np.testing.assert_allclose(counts, model.noisy_["probabilities"][0], atol=0.01)


def test_histogram_all_zero_counts_become_uniform():
    model = fitted(latent_points(10), 0, mechanism="histogram", epsilon=1e-9)
    assert np.all(model.noisy_["probabilities"].sum(axis=1) == pytest.approx(1.0))


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"epsilon": 0}, "fast_dp_epsilon must be greater than 0, got 0"),
        ({"epsilon": -1}, "fast_dp_epsilon must be greater than 0, got -1"),
        ({"epsilon": "big"}, "fast_dp_epsilon must be a number, got 'big'"),
        ({"mechanism": "laplace"}, "mechanism must be one of 'gaussian', 'gmm', 'histogram', got 'laplace'"),
        ({"bounds_percentile": 0}, "bounds_percentile must be a number between 0 and 50"),
        ({"bounds_percentile": 50}, "bounds_percentile must be a number between 0 and 50"),
        ({"gmm_n_components": 0}, "gmm_n_components must be at least 1, got 0"),
        ({"histogram_n_bins": 1}, "histogram_n_bins must be at least 2, got 1"),
    ],
)
def test_parameters_are_validated_with_their_names(parameters, message):
    with pytest.raises(InputError, match=message):
        fitted(latent_points(100), 0, **parameters)


def test_component_shares_equal_scikit_learns_posteriors():
    from sklearn.mixture import GaussianMixture

    rng = np.random.default_rng(2)
    points = np.concatenate([rng.normal(0.0, 1.0, (400, 3)), rng.normal(2.5, 0.6, (300, 3))])
    mixture = GaussianMixture(3, random_state=0).fit(points)
    for dtype, tolerance in ((np.float64, 1e-10), (np.float32, 1e-5)):
        shares = component_shares(points.astype(dtype), mixture.weights_, mixture.means_, mixture.precisions_cholesky_)
        assert shares.dtype == dtype
        np.testing.assert_allclose(shares, mixture.predict_proba(points), atol=tolerance)


@pytest.mark.parametrize("mechanism", ["gaussian", "gmm", "histogram"])
def test_a_tiny_epsilon_gives_noisy_avatars_not_a_linear_algebra_error(mechanism):
    coordinates = np.random.default_rng(0).normal(size=(500, 3))
    for epsilon in (1e-12, 1e-300):
        synthesizer = FastDPSynthesizer(epsilon, mechanism).fit(coordinates, np.random.default_rng(1))
        points = synthesizer.sample(100, np.random.default_rng(2))
        assert points.shape == (100, 3) and np.isfinite(points).all()


@pytest.mark.parametrize("mechanism", ["gaussian", "gmm", "histogram"])
def test_the_epsilon_ledger_adds_up_and_is_the_budget_the_noise_was_drawn_with(mechanism):
    """Where epsilon goes (gaussian 30 % mean / 70 % covariance; gmm 20 / 40 / 40 over components; histogram equal
    over dimensions), read from the same budget as the noise: each part's epsilon is a sensitivity over its scale."""
    points = latent_points()
    model = fitted(points, 0, mechanism=mechanism, epsilon=2.0, gmm_n_components=4)
    ledger = model.ledger()
    assert ledger["epsilon"] == 2.0 and "projection" in ledger["not_covered"]
    assert sum(share["epsilon"] for share in ledger["shares"]) == pytest.approx(2.0)
    shares = {share["statistic"]: share for share in ledger["shares"]}
    ranges, n = model.upper_ - model.lower_, len(points)
    if mechanism == "gaussian":
        assert (shares["mean"]["share"], shares["covariance"]["share"]) == (0.3, 0.7) and shares["covariance"]["parts"] == 6
        assert model.noise_scales_["mean"][0] == pytest.approx(ranges.sum() / n / shares["mean"]["epsilon_per_part"])
        assert model.noise_scales_["covariance"][0, 1] == pytest.approx(
            ranges[0] * ranges[1] / n / shares["covariance"]["epsilon_per_part"])
    elif mechanism == "gmm":
        assert [shares[name]["share"] for name in ("weights", "means", "covariances")] == [0.2, 0.4, 0.4]
        assert model.noise_scales_["weights"][0] == pytest.approx(1 / n / shares["weights"]["epsilon_per_part"])
    else:
        assert shares["counts"]["parts"] == 3 and shares["counts"]["epsilon_per_part"] == pytest.approx(2.0 / 3)
        assert model.noise_scales_["counts"][0, 0] == pytest.approx(2 / shares["counts"]["epsilon_per_part"])


def test_the_relative_noise_is_the_median_scale_against_what_it_blurs():
    """What epsilon buys, in one figure (issue 45: epsilon 100 read "meets every target" with no word that its noise
    was then negligible). Histogram: each count's scale 2 d / epsilon against the mean count n / bins."""
    points = latent_points()
    histogram = fitted(points, 0, mechanism="histogram", epsilon=3.0, histogram_n_bins=10)
    assert histogram.ledger()["relative_noise"] == pytest.approx((2 * 3 / 3.0) / (5_000 / 10))
    gaussian = fitted(points, 0, epsilon=2.0)
    deviation = np.sqrt(np.diag(gaussian.exact_["covariance"]))
    ratios = np.concatenate([gaussian.noise_scales_["mean"] / deviation,
                             (gaussian.noise_scales_["covariance"] / np.outer(deviation, deviation)).ravel()])
    assert gaussian.ledger()["relative_noise"] == pytest.approx(np.median(ratios))
    # the scale is inversely proportional to epsilon
    assert fitted(points, 0, epsilon=200.0).ledger()["relative_noise"] == pytest.approx(
        gaussian.ledger()["relative_noise"] / 100)


def test_what_epsilon_buys_is_said_and_when_it_buys_nothing():
    from core.presentation.epsilon_ledger import noise_sentence

    assert noise_sentence({"epsilon": 100, "relative_noise": 0.0002}) == (
        "At epsilon 100 the noise is negligible: about 0.02 % of the size of the statistics it blurs. The avatars "
        "are drawn from the model as if it were fitted without noise, so epsilon buys no protection of its own here: "
        "what protects is drawing new points from a model. Below epsilon 2, the noise reaches 1 % of that size.")
    assert noise_sentence({"epsilon": 1, "relative_noise": 0.21}) == (
        "At epsilon 1 the noise is about 21 % of the size of the statistics it blurs (spreads, correlations, counts): "
        "that is what epsilon buys.")
