"""scikit-learn's PCA, LinearDiscriminantAnalysis and Ridge with ``array_api_dispatch=True``
on rocarray arrays give NumPy's results (skipped without scikit-learn).

Each device runs in a subprocess: array API dispatch needs ``SCIPY_ARRAY_API=1`` set before
SciPy is first imported, which other tests of the session may already have done."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("sklearn", reason="needs scikit-learn")

SCRIPT = r"""
import json, sys
import numpy as np
import rocarray as ra
from sklearn import config_context
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Ridge

device = ra.Device(sys.argv[1])
rng = np.random.default_rng(7)
X = rng.standard_normal((80, 6)) * np.array([5.0, 3.0, 2.0, 1.0, 0.5, 0.1])
labels = rng.integers(0, 3, 80)
X[labels == 1] += 2.0
target = X @ rng.standard_normal(6) + 0.1 * rng.standard_normal(80)
cases = {
    "pca": (lambda: PCA(n_components=3, svd_solver="full"), lambda e, x, y: e.fit_transform(x), None),
    "lda": (LinearDiscriminantAnalysis, lambda e, x, y: e.fit(x, y).predict_proba(x), labels),
    "ridge": (lambda: Ridge(alpha=0.5, solver="svd"), lambda e, x, y: e.fit(x, y).predict(x), target),
}
out = {}
for name, (make, run, y) in cases.items():
    want = run(make(), X, y)
    with config_context(array_api_dispatch=True):
        got = run(make(), ra.asarray(X, device=device), None if y is None else ra.asarray(y, device=device))
    out[name] = {"type": type(got).__module__, "got": ra.asnumpy(got).tolist(), "want": np.asarray(want).tolist()}
print(json.dumps(out))
"""


def test_estimators_match_numpy(device):
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(device)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for name, r in results.items():
        assert r["type"].startswith("rocarray"), name
        got, want = np.array(r["got"]), np.array(r["want"])
        if name == "pca":  # components are defined up to sign: sklearn fixes it, compare anyway
            np.testing.assert_allclose(np.abs(got), np.abs(want), rtol=1e-6, atol=1e-8, err_msg=name)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8, err_msg=name)
