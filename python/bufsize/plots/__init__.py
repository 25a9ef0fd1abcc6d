"""Figures: recommend.py (model curves), simulation.py (queue and cwnd traces). matplotlib, Agg backend."""
