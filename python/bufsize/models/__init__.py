"""The analytic buffer-sizing models, one module per paper (see MODELS.md)."""
