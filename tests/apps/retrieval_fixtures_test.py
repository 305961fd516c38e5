"""apps/fixtures/retrieval_golden.json and apps/web/data/articles.json are what
apps/make_retrieval_fixtures.py makes from the Python reference today: the JS and Java ports are
tested against these files, so a stale file would hold them to an old answer."""

import json
import math
import os

import pytest

from apps import make_retrieval_fixtures

ROOT = make_retrieval_fixtures.ROOT
pytestmark = [
    pytest.mark.large,  # ~10 s: the whole article passed through the Python pipeline 42 times
    pytest.mark.skipif(not os.path.exists(make_retrieval_fixtures.SQUAD_DEV),
                       reason="needs ../shared/data/squad/dev-v1.1.json.gz"),
]


def _read(relative):
    with open(os.path.join(ROOT, relative), encoding="utf-8") as f:
        return json.load(f)


def _differences(want, got, path="$"):
    """Paths where two JSON values differ (floats beyond 1e-9 relative)."""
    if isinstance(want, float) or isinstance(got, float):
        ok = isinstance(want, (int, float)) and isinstance(got, (int, float)) and math.isclose(
            want, got, rel_tol=1e-9, abs_tol=1e-12)
        return [] if ok else [f"{path}: {want!r} != {got!r}"]
    if isinstance(want, dict) and isinstance(got, dict):
        if set(want) != set(got):
            return [f"{path}: keys {sorted(set(want) ^ set(got))}"]
        return [d for k in want for d in _differences(want[k], got[k], f"{path}.{k}")]
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return [f"{path}: {len(want)} items != {len(got)}"]
        return [d for i, (a, b) in enumerate(zip(want, got)) for d in _differences(a, b, f"{path}[{i}]")]
    return [] if want == got else [f"{path}: {want!r} != {got!r}"]


def test_the_bundled_article_and_the_retrieval_fixture_are_current():
    article = make_retrieval_fixtures.bundled_article(make_retrieval_fixtures._squad_articles())
    assert _read("apps/web/data/articles.json") == [article]
    made = json.loads(json.dumps(make_retrieval_fixtures.retrieval_fixture(article)))
    assert _differences(_read("apps/fixtures/retrieval_golden.json"), made)[:5] == []


def test_the_pipeline_cases_cover_abstention_and_answers():
    cases = _read("apps/fixtures/retrieval_golden.json")["pipeline"]["cases"]
    flags = {a["no_answer"] for c in cases for a in c["answers"]}
    assert flags == {True, False}  # both branches of every port's merge are exercised
    assert all(len(c["answers"]) == 4 for c in cases)
