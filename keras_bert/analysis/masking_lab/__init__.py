"""The masking lab: equal-budget pretraining variants, fine-tuned and compared layer by layer.

`experiments` names the variants each experiment compares, `lab` runs the stages of a lab
directory, `report` writes the Markdown report and `plots` its figures.
"""
