"""`experiments.downstream_proof`: the summary's statistics, the runs it makes, and one real study of
two arms on a tiny pretraining run."""

import collections
import gzip
import json
import statistics
import subprocess
import sys

import numpy as np
import pytest
from absl import flags

from experiments import downstream_proof
from tests.data_paths import shared_data_dir


def test_summary_statistics_match_numpy():
    scores = {"squad": {"pretrained": [41.0, 43.5, 42.25], "random": [30.0, 36.0, 33.0]},
              "sst2": {"pretrained": [80.0, 81.0, 79.0], "random": [79.5, 80.5, 78.0]}}
    rows = downstream_proof.summarize(scores)
    for row in rows:
        for arm in downstream_proof.ARMS:
            values = scores[row["task"]][arm]
            assert row[arm]["mean"] == pytest.approx(np.mean(values))
            assert row[arm]["std"] == pytest.approx(np.std(values, ddof=1))
            assert row[arm]["n"] == 3
    squad, sst2 = rows
    assert squad["gain"] == pytest.approx(np.mean([41.0, 43.5, 42.25]) - 33.0)
    # random's std is 3.0: a 9.25 gain clears 2 x 3.0; SST-2's 0.33 does not clear 2 x 1.0.
    assert squad["beyond_2_std"] and not sst2["beyond_2_std"]
    table = downstream_proof.markdown(rows).splitlines()
    assert table[2] == ("| SQuAD v1.1 dev F1 | 42.25 ± 1.25 (n=3) | 33.00 ± 3.00 (n=3) | +9.25 "
                        "| yes |")


def test_one_seed_never_counts_as_beyond_the_spread():
    rows = downstream_proof.summarize({"mrpc": {"pretrained": [90.0], "random": [60.0]}})
    assert rows[0]["gain"] == 30.0 and not rows[0]["beyond_2_std"]
    # One arm alone: no gain to report.
    only = downstream_proof.summarize({"mrpc": {"random": [60.0, 61.0]}})
    assert "gain" not in only[0]
    assert downstream_proof.markdown(only).splitlines()[2].endswith("| - | - |")


@pytest.mark.parametrize("entries, message", [
    (["squad=1e-3"], "'squad=1e-3' is not task:value"),
    (["glue:1e-3"], "'glue:1e-3' is not task:value"),
    (["squad:fast"], "'fast' is not a number"),
])
def test_task_values_are_checked(entries, message):
    with pytest.raises(ValueError, match=message):
        downstream_proof.task_values(entries, "learning_rates")


@pytest.mark.parametrize("entries, message", [
    (["sst2:1e-4"], "'sst2:1e-4' is not task:rate:rate"),
    (["conll:1e-4:2e-4"], "'conll:1e-4:2e-4' is not task:rate:rate"),
    (["sst2:1e-4:fast"], "holds a rate that is not a number"),
])
def test_learning_rate_grids_are_checked(entries, message):
    with pytest.raises(ValueError, match=message):
        downstream_proof.task_grids(entries)
    assert downstream_proof.task_grids(["mrpc:1e-4:5e-4"]) == {"mrpc": [1e-4, 5e-4]}


def test_selection_split_holds_out_part_of_the_runs_own_sst2_labels(tmp_path):
    options = flags.FlagValues()
    downstream_proof.define_flags(options)
    options(["downstream_proof", "--init_checkpoint=/runs/pre", "--vocab_file=/v.txt",
             f"--output_dir={tmp_path}", f"--data_dir={shared_data_dir()}",
             "--sst2_train_examples=1000", "--selection_seed=2"])
    folder = downstream_proof.selection_split(options, "sst2")
    # The oracle: SST-2's train rows read with gzip alone, and the seed-2 run's 1,000 rows by
    # the definition of --max_train_examples (a numpy permutation's first 1,000, in file order).
    with gzip.open(shared_data_dir() / "glue" / "SST-2" / "train.tsv.gz", "rt", encoding="utf-8") as f:
        header, *rows = [line.rstrip("\n") for line in f if line.strip()]
    used = [rows[i] for i in sorted(np.random.default_rng(2).permutation(len(rows))[:1000])]
    train = (tmp_path / "selection" / "sst2" / "data" / "train.tsv").read_text().splitlines()
    dev = (tmp_path / "selection" / "sst2" / "data" / "dev.tsv").read_text().splitlines()
    assert folder == str(tmp_path / "selection" / "sst2" / "data")
    assert train[0] == dev[0] == header
    assert (len(train) - 1, len(dev) - 1) == (800, 200)
    assert collections.Counter(train[1:] + dev[1:]) == collections.Counter(used)
    for part in (train[1:], dev[1:]):  # each part in file order: a subsequence of `used`
        remaining = iter(used)
        assert all(row in remaining for row in part)
    # Made once: a second call reads the folder.
    (tmp_path / "selection" / "sst2" / "data" / "dev.tsv").write_text(header + "\n")
    assert downstream_proof.selection_split(options, "sst2") == folder
    assert (tmp_path / "selection" / "sst2" / "data" / "dev.tsv").read_text() == header + "\n"


@pytest.fixture
def parsed_flags():
    options = flags.FlagValues()
    downstream_proof.define_flags(options)
    options(["downstream_proof", "--init_checkpoint=/runs/pre", "--vocab_file=/v.txt"])
    return options


def test_the_arms_differ_only_in_where_the_weights_come_from(parsed_flags):
    for task in downstream_proof.TASKS:
        pretrained = downstream_proof.run_args(parsed_flags, task, "pretrained", 1, "/o", 1e-4, 2.0)
        random = downstream_proof.run_args(parsed_flags, task, "random", 1, "/o", 1e-4, 2.0)
        assert "--init_checkpoint=/runs/pre" in pretrained
        assert "--bert_config_file=/runs/pre/bert_config.json" in random
        assert not any(a.startswith("--init_checkpoint") for a in random)
        assert sorted(set(pretrained) ^ set(random)) == [
            "--bert_config_file=/runs/pre/bert_config.json", "--init_checkpoint=/runs/pre"]
        assert "--random_seed=1" in pretrained and "--vocab_file=/v.txt" in pretrained


def _cli(module, *args, cwd=None):
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                          cwd=cwd, timeout=900)


DEV = 64  # SST-2 dev sentences the large study scores on


@pytest.mark.large
def test_a_study_of_two_arms_on_a_tiny_pretraining_run(tmp_path):
    from tests.keras_bert.cli.pretraining_cli_test import TEXT
    from tests.keras_bert.cli.pretraining_cli_test import VOCAB
    from tests.keras_bert.training import train_worker

    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    (tmp_path / "corpus.txt").write_text(TEXT)
    (tmp_path / "bert_config.json").write_text(json.dumps(dict(train_worker.CONFIG,
                                                               vocab_size=len(VOCAB))))
    made = _cli("keras_bert.cli.create_pretraining_data", f"--input_file={tmp_path / 'corpus.txt'}",
                f"--output_file={tmp_path / 'packed.tfrecord'}",
                f"--vocab_file={tmp_path / 'vocab.txt'}", "--max_seq_length=8",
                "--max_predictions_per_seq=3", "--dupe_factor=2", "--pack_sequences")
    assert made.returncode == 0, made.stderr[-2000:]
    trained = _cli("keras_bert.cli.run_pretraining", f"--input_file={tmp_path / 'packed.tfrecord'}",
                   f"--bert_config_file={tmp_path / 'bert_config.json'}",
                   f"--vocab_file={tmp_path / 'vocab.txt'}", f"--output_dir={tmp_path / 'pre'}",
                   "--max_seq_length=8", "--max_predictions_per_seq=3", "--train_batch_size=2",
                   "--recipe=budget", "--budget_tokens=48")
    assert trained.returncode == 0, trained.stderr[-2000:]
    # The shared data folder's SST-2 with its train file and the first DEV of its 872 dev
    # sentences: every final run is scored on that whole dev set, on less data.
    sst2 = tmp_path / "data" / "glue" / "SST-2"
    sst2.mkdir(parents=True)
    (sst2 / "train.tsv.gz").symlink_to(shared_data_dir() / "glue" / "SST-2" / "train.tsv.gz")
    dev = (shared_data_dir() / "glue" / "SST-2" / "dev.tsv").read_text().splitlines(keepends=True)
    (sst2 / "dev.tsv").write_text("".join(dev[:1 + DEV]))
    # One seed: the seeds' summary statistics are test_summary_statistics_match_numpy's.
    study = [f"--init_checkpoint={tmp_path / 'pre'}", f"--vocab_file={tmp_path / 'vocab.txt'}",
             f"--output_dir={tmp_path / 'study'}", f"--data_dir={tmp_path / 'data'}",
             "--tasks=sst2", "--seeds=0", "--sst2_train_examples=8", "--epochs=sst2:1",
             "--train_batch_size=4",
             "--max_seq_length=16", f"--json={tmp_path / 'study.json'}",
             f"--markdown={tmp_path / 'study.md'}", f"--plot={tmp_path / 'study.png'}"]
    done = _cli("experiments.downstream_proof", *study)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "study.json").read_text())
    assert [(r["arm"], r["seed"]) for r in summary["runs"]] == [
        ("pretrained", 0), ("random", 0)]
    for run in summary["runs"]:
        # Each score is the run's own dev accuracy (all DEV dev sentences), in percent.
        results = json.loads((tmp_path / "study" / "sst2" / f"{run['arm']}_seed{run['seed']}" /
                              "eval_results.json").read_text())
        assert run["score"] == pytest.approx(100 * results["accuracy"])
        assert results["num_examples"] == DEV
        log = (tmp_path / "study" / "sst2" / f"{run['arm']}_seed{run['seed']}" / "log.txt").read_text()
        assert ("random initialization" in log) == (run["arm"] == "random")
    row = summary["summary"][0]
    assert row["pretrained"]["mean"] == pytest.approx(statistics.fmean(
        [r["score"] for r in summary["runs"] if r["arm"] == "pretrained"]))
    assert (tmp_path / "study.md").read_text().startswith("| task | pretrained | random init |")
    assert (tmp_path / "study.png").stat().st_size > 1000
    # Finished runs are read, not repeated.
    again = _cli("experiments.downstream_proof", *study)
    assert again.returncode == 0 and "$ " not in again.stdout, again.stdout[-2000:]

    # Each arm at its own rate: the grid's best on a held-out quarter of its 8 examples.
    grid = [a for a in study if not a.startswith(("--json", "--seeds"))] + [
        "--seeds=0", "--learning_rate_grid=sst2:2e-2:1e-5", "--selection_fraction=0.25",
        f"--json={tmp_path / 'grid.json'}"]
    done = _cli("experiments.downstream_proof", *grid)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "grid.json").read_text())
    held = (tmp_path / "study" / "selection" / "sst2" / "data" / "dev.tsv").read_text().splitlines()
    assert len(held) == 1 + 2
    commands = {}  # --output_dir -> the run's arguments, from the "$ ..." lines printed
    for line in done.stdout.splitlines():
        if line.startswith("$ "):
            args = dict(a.split("=", 1) for a in line.split()[3:] if "=" in a)
            commands[args["--output_dir"]] = args
    for arm in downstream_proof.ARMS:
        held_out = {}
        for rate in ("0.02", "1e-05"):
            folder = tmp_path / "study" / "selection" / "sst2" / f"{arm}_lr{rate}"
            results = json.loads((folder / "eval_results.json").read_text())
            assert results["num_examples"] == 2  # scored on the held-out rows, not the dev set
            assert float(commands[str(folder)]["--learning_rate"]) == float(rate)
            assert "(6 examples" in (folder / "log.txt").read_text()
            held_out[float(rate)] = 100 * results["accuracy"]
        best = max(held_out, key=lambda r: (held_out[r], -r))
        assert summary["selection"]["sst2"]["chosen"][arm] == best
        run, = [r for r in summary["runs"] if r["arm"] == arm]
        assert run["learning_rate"] == best
        final = tmp_path / "study" / f"sst2_lr{best:g}" / f"{arm}_seed0"
        assert json.loads((final / "eval_results.json").read_text())["num_examples"] == DEV
        assert float(commands[str(final)]["--learning_rate"]) == best
        assert "(8 examples" in (final / "log.txt").read_text()


def test_a_held_out_share_outside_0_to_1_is_a_one_line_error(tmp_path):
    (tmp_path / "bert_config.json").write_text("{}")
    done = _cli("experiments.downstream_proof", f"--init_checkpoint={tmp_path}", "--vocab_file=v.txt",
                "--tasks=sst2", "--learning_rate_grid=sst2:1e-4:2e-4", "--selection_fraction=1.5",
                f"--output_dir={tmp_path / 'study'}")
    assert done.returncode != 0
    assert "--selection_fraction=1.5: give the held-out share as a number between 0 and 1" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "study").exists()


def test_a_pretraining_run_without_config_is_a_one_line_error(tmp_path):
    done = _cli("experiments.downstream_proof", f"--init_checkpoint={tmp_path}", "--vocab_file=v.txt")
    assert done.returncode != 0
    assert f"--init_checkpoint={tmp_path} has no bert_config.json" in done.stderr
    assert "Traceback" not in done.stderr


def _gpu_run(folder, arm, seed, f1, **changes):
    """A `tools/gpu_squad.py` results file as tools/gpu_proof_call.sh brings it back."""
    results = dict(steps=2733, steps_done=2733, random_init=arm == "random", random_seed=seed,
                   learning_rate=5e-4, num_train_epochs=2.0, backend="jax",
                   eval={"exact_match": f1 - 10.0, "f1": f1})
    results.update(changes)
    (folder / f"{arm}_seed{seed}").mkdir(parents=True, exist_ok=True)
    (folder / f"{arm}_seed{seed}" / "gpu_squad_results.json").write_text(json.dumps(results))


def test_squad_runs_made_on_a_gpu_are_read_not_run(tmp_path):
    (tmp_path / "bert_config.json").write_text("{}")
    gpu = tmp_path / "gpu"
    scores = {"pretrained": [40.0, 42.0, 41.0], "random": [30.0, 31.5, 29.0]}
    for arm, values in scores.items():
        for seed, f1 in enumerate(values):
            _gpu_run(gpu, arm, seed, f1)
    args = ["experiments.downstream_proof", f"--init_checkpoint={tmp_path}", "--vocab_file=v.txt",
            "--tasks=squad", f"--output_dir={tmp_path / 'study'}", f"--imported_runs=squad:{gpu}",
            f"--json={tmp_path / 'proof.json'}"]
    done = _cli(*args)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not (tmp_path / "study").exists()  # nothing ran here
    proof = json.loads((tmp_path / "proof.json").read_text())
    row = proof["summary"][0]
    for arm, values in scores.items():
        assert row[arm]["mean"] == pytest.approx(np.mean(values))
        assert row[arm]["std"] == pytest.approx(np.std(values, ddof=1))
    assert "squad's runs were made by tools/gpu_proof_call.sh" in done.stdout
    assert "Keras on jax" in done.stdout

    # A run of another seed, or one its time limit stopped short, is refused in one line.
    _gpu_run(gpu, "random", 1, 31.5, random_seed=7)
    done = _cli(*args)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "random_seed=7 (the study needs 1)" in done.stderr
    _gpu_run(gpu, "random", 1, 31.5, steps_done=2000)
    assert "steps_done=2000 (the study needs 2733)" in _cli(*args).stderr
    _gpu_run(gpu, "random", 1, 31.5, random_init=False)
    assert "random_init=False (the study needs True)" in _cli(*args).stderr
    (gpu / "random_seed1" / "gpu_squad_results.json").unlink()
    done = _cli(*args)
    assert "random_seed1/gpu_squad_results.json is missing: run tools/gpu_proof_call.sh" in done.stderr
    done = _cli(*args[:-2], f"--imported_runs=conll:{gpu}")
    assert "'conll:" in done.stderr and "is not squad:<folder>" in done.stderr


def test_an_equal_studys_random_arm_is_reused_and_an_unequal_one_refused(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    for model in (first, second):
        model.mkdir()
        (model / "bert_config.json").write_text(json.dumps({"hidden_size": 256}))
    earlier, later = tmp_path / "earlier_gpu", tmp_path / "later_gpu"
    for seed, f1 in enumerate([30.0, 31.5, 29.0]):
        _gpu_run(earlier, "random", seed, f1)
    for seed, f1 in enumerate([40.0, 42.0, 41.0]):
        _gpu_run(earlier, "pretrained", seed, f1)
        _gpu_run(later, "pretrained", seed, f1 + 5.0)
    common = ["experiments.downstream_proof", "--vocab_file=v.txt", "--tasks=squad",
              f"--output_dir={tmp_path / 'study'}"]
    done = _cli(*common, f"--init_checkpoint={first}", f"--imported_runs=squad:{earlier}",
                f"--json={tmp_path / 'earlier.json'}")
    assert done.returncode == 0, done.stderr[-2000:]

    reuse = [f"--init_checkpoint={second}", f"--imported_runs=squad:{later}", "--arms=pretrained",
             f"--random_arm_from={tmp_path / 'earlier.json'}", f"--json={tmp_path / 'later.json'}"]
    done = _cli(*common, *reuse)
    assert done.returncode == 0, done.stderr[-2000:]
    row = json.loads((tmp_path / "later.json").read_text())["summary"][0]
    assert row["pretrained"]["mean"] == pytest.approx(np.mean([45.0, 47.0, 46.0]))
    assert row["random"]["mean"] == pytest.approx(np.mean([30.0, 31.5, 29.0]))
    assert row["random"]["std"] == pytest.approx(np.std([30.0, 31.5, 29.0], ddof=1))
    assert "The random arm's runs are those of" in done.stdout

    # Another shape, another setting, or both arms asked for: refused in one line.
    (second / "bert_config.json").write_text(json.dumps({"hidden_size": 128}))
    done = _cli(*common, *reuse)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "its bert_config.json differ from this study's" in done.stderr
    (second / "bert_config.json").write_text(json.dumps({"hidden_size": 256}))
    done = _cli(*common, *reuse, "--train_batch_size=16")
    assert "its train_batch_size differ from this study's" in done.stderr
    done = _cli(*common, *[f for f in reuse if not f.startswith("--arms")])
    assert "run this one with --arms=pretrained" in done.stderr
