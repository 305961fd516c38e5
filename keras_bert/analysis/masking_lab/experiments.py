"""The masking lab's named experiments: which pretraining variants each compares, and their flags."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class Variant:
    """One pretraining recipe of the lab; everything not named here is shared by all variants.

    Attributes:
        name: str, the run's directory name.
        label: str, how plots and the report name it.
        objective: `run_pretraining --objective`.
        mask_token_rate, random_token_rate: the replacement split of masked-LM targets (the
            rest stay unchanged); ignored for next-token objectives.
        shuffled: bool, pretrain on text whose words are shuffled within each sentence.
        num_hidden_layers: int or None (the lab's config).
        fine_tune: bool, fine-tune it on the GLUE tasks (controls that only show a training
            effect are not).
        pretrain: bool, False for the untrained baseline (the same initialization, 0 steps).
    """

    name: str
    label: str
    objective: str = "mlm"
    mask_token_rate: float = 0.8
    random_token_rate: float = 0.1
    shuffled: bool = False
    num_hidden_layers: int = None
    fine_tune: bool = True
    pretrain: bool = True


VARIANTS = {
    v.name: v
    for v in (
        Variant("random_init", "no pretraining", pretrain=False),
        Variant("mlm", "MLM 80/10/10"),
        Variant("causal_lm", "causal LM", objective="causal_lm"),
        Variant("mask_100", "MLM 100% [MASK]", mask_token_rate=1.0, random_token_rate=0.0),
        Variant("mask80_same20", "MLM 80/0/20 (same)", mask_token_rate=0.8, random_token_rate=0.0),
        Variant("mask80_random20", "MLM 80/20/0 (random)", mask_token_rate=0.8, random_token_rate=0.2),
        Variant("mlm_shuffled", "MLM, shuffled words", shuffled=True),
        Variant("see_itself", "bidirectional LM (4 layers)", objective="bidirectional_lm"),
        Variant(
            "see_itself_1layer", "bidirectional LM (1 layer)", objective="bidirectional_lm",
            num_hidden_layers=1, fine_tune=False,
        ),
    )
}

# experiment -> (variants compared, the claim tested).
EXPERIMENTS = {
    "objectives": (
        ("mlm", "causal_lm"),
        "Masking (MLM) makes BERT learn context better than a left-to-right LM objective; under "
        "MLM, layers first lose information about their input token and later regain it, while "
        "an LM's representations drift away from it monotonically (Voita et al. 2019).",
    ),
    "replacement": (
        ("mask_100", "mlm", "mask80_same20", "mask80_random20"),
        "The 80/10/10 replacement split matters: 100% [MASK] leaves the representations of "
        "observed (unmasked) tokens poor; [MASK]+same lets the model copy; [MASK]+random teaches "
        "it the observed word is never right.",
    ),
    "word_order": (
        ("mlm", "mlm_shuffled"),
        "Word order matters surprisingly little for MLM pretraining (Sinha et al. 2021).",
    ),
    "see_itself": (
        ("see_itself", "see_itself_1layer", "causal_lm"),
        "Bidirectional conditioning without input masking lets a token see itself through a "
        "second layer, so the prediction task becomes trivial (Devlin et al. 2018, section 3.1).",
    ),
}


# Every experiment's tables also show the untrained baseline.
BASELINE = "random_init"

# What testing each claim at full scale would take (the report quotes it).
FULL_SCALE = {
    "objectives": "BERT-base (or at least 12 layers) for 1M steps of 256 x 512 tokens on books + "
    "Wikipedia, each objective, 3+ seeds, fine-tuned on all of GLUE with a learning-rate sweep; "
    "Voita et al. used 12-layer models trained to convergence on WMT data.",
    "replacement": "BERT-base pretrained per split to convergence (the BERT paper's ablation, "
    "Table 8, used 1M steps), then MNLI and NER (feature-based as well as fine-tuned, where "
    "the mismatch between [MASK] in pretraining and its absence later shows most).",
    "word_order": "Sinha et al. pretrained RoBERTa-base on 100M+ words per shuffle level and "
    "fine-tuned on GLUE and PAWS with several seeds; the same here needs base size and a "
    "syntax-sensitive evaluation (CoLA, PAWS, probing for dependency structure).",
    "see_itself": "Nothing more: the leak is architectural. More steps only make the trivial "
    "solution more complete; the 1-layer control must stay at language-model accuracy.",
}


def experiment_variants(names):
    """The variants the experiments `names` need, each once, in a stable order (with the
    untrained baseline)."""
    unknown = [n for n in names if n not in EXPERIMENTS]
    if unknown:
        raise ValueError(f"Unknown experiment(s) {unknown}; use {sorted(EXPERIMENTS)} or all.")
    wanted = {v for n in names for v in EXPERIMENTS[n][0]} | {BASELINE}
    return [v for name, v in VARIANTS.items() if name in wanted]
