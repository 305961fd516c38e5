"""The masking lab's verdicts and report, on synthetic results whose answers are known."""

import pytest

from keras_bert.analysis.masking_lab import report as lab_report
from keras_bert.analysis.masking_lab.experiments import EXPERIMENTS
from keras_bert.analysis.masking_lab.experiments import VARIANTS
from keras_bert.analysis.masking_lab.experiments import experiment_variants


def entry(sst2, cola, probe, objective="mlm", behaviour=None):
    analysis = {
        "token_probe_accuracy": probe,
        "cka_to_input": [1.0] + [0.9 - 0.1 * i for i in range(len(probe) - 1)],
        "cka_to_previous": [None] + [0.95] * (len(probe) - 1),
        **(behaviour or {}),
    }
    log = [{"step": s, "mlm_loss": 7.0 - s / 300, "mlm_accuracy": s / 3000} for s in (20, 300, 600)]
    return {"pretraining": log, "analysis": analysis, "sst-2": {"accuracy": sst2}, "cola": {"mcc": cola},
            "objective": objective}


def results(mlm_sst2=(0.80, 0.81), causal_sst2=(0.70, 0.71)):
    mlm_probe = [1.0, 0.7, 0.6, 0.65, 0.8]  # loses, then regains
    lm_probe = [1.0, 0.9, 0.8, 0.7, 0.6]  # drifts away monotonically
    out = {}
    for seed in (0, 1):
        def add(name, sst2, probe, behaviour, cola=0.1):
            out.setdefault(name, {})[seed] = entry(sst2, cola, probe, behaviour=behaviour)
        mlm_behaviour = {"masked_token_accuracy": 0.3, "observed_token_accuracy": 0.9}
        add("random_init", 0.75, [1.0] * 5, {"masked_token_accuracy": 0.0, "observed_token_accuracy": 0.0})
        add("mlm", mlm_sst2[seed], mlm_probe, mlm_behaviour, cola=0.2)
        add("causal_lm", causal_sst2[seed], lm_probe, {"next_token_accuracy": 0.25}, cola=0.1)
        add("mask_100", 0.79, [1.0, 0.6, 0.5, 0.45, 0.4], {"masked_token_accuracy": 0.3, "observed_token_accuracy": 0.2})
        add("mask80_same20", 0.80, mlm_probe, {"masked_token_accuracy": 0.3, "observed_token_accuracy": 0.99})
        add("mask80_random20", 0.80, mlm_probe, {"masked_token_accuracy": 0.3, "observed_token_accuracy": 0.5})
        add("mlm_shuffled", mlm_sst2[seed] - 0.003, mlm_probe, mlm_behaviour, cola=0.2)
        add("see_itself", 0.7, lm_probe, {"next_token_accuracy": 0.97})
        add("see_itself_1layer", 0.7, lm_probe[:2], {"next_token_accuracy": 0.24})
    return out


def test_every_claim_reproduced_when_the_numbers_say_so():
    data = results()
    for name, verdict in lab_report.VERDICTS.items():
        head, lines = verdict(data, ["sst-2", "cola"])
        assert head.startswith("**Reproduced"), (name, head, lines)
    _, lines = lab_report.verdict_objectives(data, ["sst-2"])
    probe_line = next(line for line in lines if line.startswith("Token-identity probe"))
    assert "MLM moves away from the input and back" in probe_line and "monotonically non-increasing" in probe_line


def test_contradiction_and_spread_are_reported_as_such():
    # Causal LM better beyond the spread: a contradiction, said so.
    head, _ = lab_report.verdict_objectives(results(mlm_sst2=(0.70, 0.71), causal_sst2=(0.80, 0.81)), ["sst-2"])
    assert head.startswith("**Contradicted at this scale**")
    # A 0.05 gap inside a 0.2 seed range: no difference.
    head, lines = lab_report.verdict_objectives(results(mlm_sst2=(0.70, 0.90), causal_sst2=(0.75, 0.80)), ["sst-2"])
    assert head.startswith("**Not reproduced at this scale**")
    assert "largest range across 2 seed(s) 0.200" in lines[0]
    # Missing measurements are not a verdict.
    head, _ = lab_report.verdict_see_itself({}, [])
    assert head == "**Not measured yet.**"


def test_one_seed_gives_no_verdict():
    sign, text = lab_report.compare([0.9], [0.5], "a", "b", "x")
    assert sign == 0 and "one seed only, so no verdict" in text


def test_compare_golden():
    assert lab_report.compare([0.8, 0.82], [0.7, 0.71], "a", "b", "x")[0] == 1
    assert lab_report.compare([0.7, 0.71], [0.8, 0.82], "a", "b", "x")[0] == -1
    assert lab_report.compare([0.8, 0.805], [0.8, 0.801], "a", "b", "x")[0] == 0  # under MARGIN
    assert lab_report.compare([], [0.8], "a", "b", "x")[0] is None


def test_write_report_has_tables_verdicts_and_plots(tmp_path):
    settings = {
        "config": {"num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4,
                   "intermediate_size": 1024, "vocab_size": 8000},
        "train_files": ["a.txt.gz"], "analysis_files": ["b.txt.gz"],
        "flags": {"num_train_steps": 600, "train_batch_size": 32, "max_seq_length": 64,
                  "learning_rate": 1e-3, "vocab_size": 8192, "tasks": ["sst-2", "cola"],
                  "seeds": ["0", "1"], "finetune_examples": 3000, "finetune_epochs": 2.0,
                  "finetune_learning_rate": 2e-4, "analysis_sentences": 600},
    }
    path = tmp_path / "lab.md"
    lab_report.write_report(str(path), results(), sorted(EXPERIMENTS), [0, 1], settings, "python -m lab")
    text = path.read_text()
    for name in EXPERIMENTS:
        assert f"## Experiment `{name}`" in text
        for image in (f"layers_{name}.png", f"pretraining_{name}.png"):
            png = tmp_path / "images" / "masking_lab" / image
            assert png.read_bytes()[:4] == b"\x89PNG"
            assert f"images/masking_lab/{image}" in text
    assert "| MLM 80/10/10 | 2 |" in text and "0.805 [0.800, 0.810]" in text
    assert text.count("What testing it at full scale needs:") == len(EXPERIMENTS)


def test_experiment_variants():
    names = [v.name for v in experiment_variants(["see_itself"])]
    assert names == ["random_init", "causal_lm", "see_itself", "see_itself_1layer"]
    assert len(experiment_variants(sorted(EXPERIMENTS))) == len(VARIANTS)
    with pytest.raises(ValueError, match=r"Unknown experiment\(s\) \['nope'\]"):
        experiment_variants(["nope"])


def test_see_itself_partly_when_the_leak_is_used_but_not_yet_trivial():
    data = results()
    for seed, value in ((0, 0.40), (1, 0.42)):
        data["see_itself"][seed]["analysis"]["next_token_accuracy"] = value
    head, _ = lab_report.verdict_see_itself(data, [])
    assert head.startswith("**Partly reproduced**: the 4-layer model reads the hidden target")
