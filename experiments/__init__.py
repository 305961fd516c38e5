"""One-off studies behind the docs' figures and tables: each module's docstring names what it
makes and how to rerun it (experiments/README.md lists them). Not part of the pip package."""
