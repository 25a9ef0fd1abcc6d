"""examples/tour.ipynb runs green from top to bottom (so it cannot rot), and what it shows is
there: the recommendation table, the simulations, the sweep and fit figures, the reproduced figure."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "tour.ipynb"


@pytest.mark.slow
def test_tour_notebook_executes_without_errors(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")

    nb = nbformat.read(NOTEBOOK, as_version=4)
    # the per-cell timeout only stops a hung kernel; the whole notebook takes well under a minute
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()   # raises CellExecutionError on the first failing cell

    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o.data["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("bufsize recommendation" in h for h in html)        # Recommendation._repr_html_
    assert any("bufsize simulation" in h for h in html)            # SimResult._repr_html_
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 3                                         # sweep, fit, reproduced figure
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "003-Fig4:" in text and "checks pass" in text
    assert any("R²" in h and "C·To" in h for h in html)             # FitResult._repr_html_


def test_committed_notebook_has_its_outputs():
    nbformat = pytest.importorskip("nbformat")

    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.execution_count for c in code)
    assert sum("image/png" in o.get("data", {}) for c in code for o in c.outputs) >= 3
