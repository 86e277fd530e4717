"""scikit-learn as a client, with ``array_api_dispatch=True``: its preprocessing, metrics and
pairwise kernels take rocarray arrays and give rocarray arrays (or Python floats) equal to
their NumPy results.  The estimators built on ``linalg`` (PCA, Ridge,
LinearDiscriminantAnalysis) are tests/test_linalg_sklearn.py's."""

import os

import numpy as np
import pytest

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # scikit-learn's array API support needs it at import

import rocarray as ra  # noqa: E402

sklearn = pytest.importorskip("sklearn", reason="needs scikit-learn")
from sklearn import config_context, metrics, preprocessing  # noqa: E402

RNG = np.random.default_rng(2)
X = RNG.uniform(-3, 3, (30, 4))
Y = (X[:, 0] + RNG.normal(0, 1, 30) > 0).astype(np.int64)
P = RNG.uniform(0.01, 0.99, 30)
V = np.abs(X) + 0.1

TRANSFORMS = {
    "StandardScaler": lambda X: preprocessing.StandardScaler().fit_transform(X),
    "MinMaxScaler": lambda X: preprocessing.MinMaxScaler().fit_transform(X),
    "MaxAbsScaler": lambda X: preprocessing.MaxAbsScaler().fit_transform(X),
    "Normalizer": lambda X: preprocessing.Normalizer().fit_transform(X),
    "Binarizer": lambda X: preprocessing.Binarizer(threshold=0.5).fit_transform(X),
    "PolynomialFeatures": lambda X: preprocessing.PolynomialFeatures(2).fit_transform(X),
    "euclidean_distances": lambda X: metrics.pairwise.euclidean_distances(X, X[:5]),
    "cosine_similarity": lambda X: metrics.pairwise.cosine_similarity(X, X[:5]),
    "rbf_kernel": lambda X: metrics.pairwise.rbf_kernel(X, X[:5]),
    "polynomial_kernel": lambda X: metrics.pairwise.polynomial_kernel(X, X[:5]),
}

SCORES = {
    "accuracy_score": lambda y, p, x, v: metrics.accuracy_score(y, y[::-1]),
    "zero_one_loss": lambda y, p, x, v: metrics.zero_one_loss(y, y[::-1]),
    "f1_score": lambda y, p, x, v: metrics.f1_score(y, y[::-1]),
    "log_loss": lambda y, p, x, v: metrics.log_loss(y, p),
    "roc_auc_score": lambda y, p, x, v: metrics.roc_auc_score(y, p),
    "r2_score": lambda y, p, x, v: metrics.r2_score(x[:, 0], x[:, 1]),
    "mean_squared_error": lambda y, p, x, v: metrics.mean_squared_error(x[:, 0], x[:, 1]),
    "mean_absolute_error": lambda y, p, x, v: metrics.mean_absolute_error(x[:, 0], x[:, 1]),
    "explained_variance_score": lambda y, p, x, v: metrics.explained_variance_score(x[:, 0], x[:, 1]),
    "mean_tweedie_deviance": lambda y, p, x, v: metrics.mean_tweedie_deviance(v[:, 0], v[:, 1], power=1.5),
    "confusion_matrix": lambda y, p, x, v: metrics.confusion_matrix(y, y[::-1]),
}


def _value(r):
    return r.get() if isinstance(r, ra.Array) else np.asarray(r)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transforms_and_kernels(device, name):
    want = TRANSFORMS[name](X)
    with config_context(array_api_dispatch=True):
        got = TRANSFORMS[name](ra.asarray(X, device=device))
    assert isinstance(got, ra.Array) and got.device == ra.Device(device)
    # (a distance of a point to itself is the square root of a rounding error: ~1e-8)
    np.testing.assert_allclose(got.get(), want, rtol=1e-10, atol=1e-6)


@pytest.mark.parametrize("name", sorted(SCORES))
def test_metrics(device, name):
    want = SCORES[name](Y, P, X, V)
    args = [ra.asarray(v, device=device) for v in (Y, P, X, V)]
    with config_context(array_api_dispatch=True):
        got = SCORES[name](*args)
    assert isinstance(got, (float, ra.Array)), type(got)
    np.testing.assert_allclose(_value(got), want, rtol=1e-10, atol=1e-12)


def test_label_encoders(device):
    labels = ra.asarray(np.array([3, 1, 3, 7, 1]), device=device)
    with config_context(array_api_dispatch=True):
        enc = preprocessing.LabelEncoder().fit_transform(labels)
        onehot = preprocessing.LabelBinarizer().fit_transform(labels)
    assert isinstance(enc, ra.Array)
    np.testing.assert_array_equal(enc.get(), [1, 0, 1, 2, 0])
    np.testing.assert_array_equal(_value(onehot), preprocessing.LabelBinarizer().fit_transform([3, 1, 3, 7, 1]))
