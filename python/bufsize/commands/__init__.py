"""CLI subcommands, one module each; every module exposes ``register(group)``."""
