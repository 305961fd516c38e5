"""The pretraining ablation's table (issue 29) from the runs of docs/runs/pretraining_ablation.sh.
Makes: docs/pretraining.md, "The budget recipe": the ablation table, written to
docs/runs/pretraining_ablation.md (run 2026-11-27, warm-started, 12 minutes a variant).
Rerun: docs/runs/pretraining_ablation.sh (its last step is the command below).

    .venv/bin/python -m experiments.ablation_table --ablation_dir=runs/ablation \
        --output_file=docs/runs/pretraining_ablation.md

Each variant's folder holds `train_log.jsonl` (run_pretraining's per-loop log) and
`eval_results.json` (its `--do_eval` on the shared held-out rows). A row per variant that has
both, in `VARIANTS` order: optimizer steps and rows seen in the budget, the held-out masked-LM
loss and accuracy, and the loss against the recipe's ("budget"). Lower loss at the same wall
clock is what a choice buys. "budget_seed1" is the recipe again under another seed (data order
and masks): the two runs' loss gap is the run-to-run spread, and a choice is marked as
mattering only when its gap to "budget" exceeds twice that spread (one pair of seeds: a rough
yardstick, said so in the table's note).
"""

import argparse
import json
import os

# name: what it changes from the budget recipe.
VARIANTS = {
    "budget": "**the budget recipe**: packed rows, masked LM only, 15 % masked, no dropout, "
              "bf16 (this CPU), rate to zero at the budget",
    "budget_seed1": "the budget recipe again, --random_seed=1 (data order and masks): the spread",
    "mask30": "30 % of tokens masked",
    "mask40": "40 % of tokens masked",
    "dropout": "dropout 0.1 while pretraining",
    "float32": "float32 instead of bf16",
    "padded": "sentence-pair rows, padded, instead of packed rows",
    "nsp": "sentence-pair rows with the NSP loss",
    "bert": "google-research/bert's recipe: pairs, NSP, dropout 0.1, stored masks, LR 1e-4 "
            "warming up over 10,000 of 1,000,000 steps",
}


def read_variant(folder):
    """`{steps, mlm_loss, mlm_accuracy}` of one run, or None if it has not been scored."""
    log_path = os.path.join(folder, "train_log.jsonl")
    eval_path = os.path.join(folder, "eval_results.json")
    if not (os.path.exists(log_path) and os.path.exists(eval_path)):
        return None
    with open(log_path) as f:
        steps = max(json.loads(line)["step"] for line in f if line.strip())
    with open(eval_path) as f:
        scores = json.load(f)
    return {"steps": steps, "mlm_loss": scores["mlm_loss"],
            "mlm_accuracy": scores["mlm_accuracy"]}


def table(ablation_dir, batch_size=128):
    """The Markdown table of every scored variant."""
    rows = {name: read_variant(os.path.join(ablation_dir, name)) for name in VARIANTS}
    rows = {name: row for name, row in rows.items() if row is not None}
    if not rows:
        raise SystemExit(f"{ablation_dir}: no variant has both train_log.jsonl and "
                         "eval_results.json yet; run docs/runs/pretraining_ablation.sh first.")
    reference = rows.get("budget")
    spread = (abs(rows["budget_seed1"]["mlm_loss"] - reference["mlm_loss"])
              if reference and "budget_seed1" in rows else None)
    lines = ["| variant | what changes | steps | rows seen | held-out MLM loss | MLM accuracy "
             "| loss vs budget | beyond 2x the seed spread |", "|---|---|---|---|---|---|---|---|"]
    for name, row in rows.items():
        delta = row["mlm_loss"] - reference["mlm_loss"] if reference else None
        if name.startswith("budget") or spread is None:
            verdict = "-"
        else:
            verdict = "yes" if abs(delta) > 2 * spread else "no"
        lines.append(f"| {name} | {VARIANTS[name]} | {row['steps']:,} | "
                     f"{row['steps'] * batch_size:,} | {row['mlm_loss']:.3f} | "
                     f"{row['mlm_accuracy']:.3f} | {'-' if delta is None else f'{delta:+.3f}'} "
                     f"| {verdict} |")
    if spread is not None:
        lines.append(f"\nSeed spread (budget vs budget_seed1): {spread:.3f} held-out loss; "
                     "one pair of seeds, so the yes/no column is a rough yardstick.")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ablation_dir", default="runs/ablation")
    parser.add_argument("--output_file", required=True)
    parser.add_argument("--batch_size", type=int, default=128)
    args = parser.parse_args()
    text = table(args.ablation_dir, args.batch_size)
    partial = args.output_file + ".tmp"
    with open(partial, "w") as f:
        f.write(text)
    os.replace(partial, args.output_file)
    print(text, end="")


if __name__ == "__main__":
    main()
