"""tools/export_embedder.py: the check's texts come from across the dev set, and its summary is
of row-wise cosines."""

import numpy as np

from tests.data_paths import shared_data_dir
from tools.export_embedder import check_texts, cosine_summary


def test_check_texts_sample_every_article():
    questions, paragraphs = check_texts(shared_data_dir() / "squad" / "dev-v1.1.json.gz")
    assert (len(questions), len(paragraphs)) == (50, 50)
    assert questions[0] == "Which NFL team represented the AFC at Super Bowl 50?"
    assert len(set(paragraphs)) == 50 and all(len(p) > 100 for p in paragraphs)


def test_cosine_summary_is_row_wise():
    a = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    b = np.array([[1.0, 0.0], [1.0, 0.0], [0.6, 0.8]])
    summary = cosine_summary(a, b, num_questions=1)
    assert summary["questions"]["min"] == 1.0
    # Paragraph cosines 0 and 1: the 5th percentile interpolates to 0.05.
    assert summary["paragraphs"] == {"min": 0.0, "p5": 0.05, "median": 0.5, "mean": 0.5}
    assert summary["all"]["min"] == 0.0
