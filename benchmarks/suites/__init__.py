"""One module per suite; each has `run(config_name, options, log) -> dict` (see `benchmarks.run`)."""
