"""The result of :func:`bufsize.recommendation.recommend`: every model's row, the models' pick, and
(where it ran) the verified answer; the displays live in :mod:`bufsize.recommendation.display`."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from bufsize._json import json_safe
from bufsize.recommendation.inputs import LinkInput
from bufsize.recommendation.models import ModelRow


@dataclass
class Recommendation:
    """The result of :func:`recommend`: every model's row, the models' pick, and where verification
    ran the verified answer. :attr:`recommended` is the one answer every surface shows (the text, the
    repr, the HTML, ``--json``'s ``recommended``): the verified size where the simulator was run,
    else the models' pick, saying which (``source``)."""

    input: LinkInput
    models: list[ModelRow]
    #: the size the models pick for the goals (``id`` of the model that set it, ``reasons``)
    models_pick: dict[str, Any]
    predicted: dict[str, Any]
    traffic: dict[str, Any] = field(default_factory=dict)
    #: the verified answer (:class:`bufsize.recommendation.verification.Verified`), None when not verified
    verified: Any = None
    #: why the answer was not verified (e.g. the estimated cost of verifying), None when it was
    verify_skipped: str | None = None
    #: where the search did not fit the interactive budget: the models' pick alone simulated and judged
    #: (:func:`bufsize.recommendation.check.check_size`: its means over seeds, each goal's verdict,
    #: ``verdict``), None when not checked
    pick_check: dict[str, Any] | None = None
    #: what may make the answer wrong for the user's port, shown with it (e.g. a capture begun
    #: mid-stream, or taken at a host rather than at the port)
    warnings: list[str] = field(default_factory=list)
    #: what reading the user's traffic (``traffic=``) found, in words
    traffic_notes: list[str] = field(default_factory=list)

    @property
    def recommended(self) -> dict[str, Any]:
        """The answer: ``buffer_packets``, ``buffer_bytes``, ``queueing_delay_s`` (a full buffer at
        line rate), ``source`` (``"verified"``: the smallest size shown on the simulator to meet the
        goals; ``"models"``: the models' pick) and ``meets_goals`` (True where shown, False where no
        buffer meets them and this is the best one found, None where not simulated). Where the search
        did not fit the budget and the pick was checked alone (:attr:`pick_check`), ``checked`` is its
        verdict ("meets", "fails" or "unclear") and ``meets_goals`` True, False or None with it. The
        models' pick is under :attr:`models_pick` either way."""
        v = self.verified
        if v is None:
            c = self.pick_check
            if c is None:
                return {**self.models_pick, "source": "models", "meets_goals": None}
            # the pick checked alone: shown to meet, shown to miss, or unclear (None)
            met = {"meets": True, "fails": False}.get(c["verdict"])
            return {**self.models_pick, "source": "models", "meets_goals": met, "checked": c["verdict"]}
        inp = self.input
        b: float | None
        if v.buffer_packets is not None:
            b, meets = float(v.buffer_packets), True
        else:
            b, meets = (v.best or {}).get("buffer_packets"), False
        if b is None:
            return {"id": "verified", "source": "verified", "buffer_packets": None, "buffer_bytes": None,
                    "queueing_delay_s": None, "meets_goals": False, "statement": v.statement}
        out = {"id": "verified", "source": "verified", "buffer_packets": b, "buffer_bytes": b * inp.packet_bytes,
               "queueing_delay_s": b / inp.capacity_pps, "meets_goals": meets, "status": v.status,
               "statement": v.statement}
        aqm = getattr(v, "aqm", None)
        if aqm is not None:   # the hard limit behind this discipline, run at these settings
            from bufsize.recommendation.verification import AQM_SETTINGS

            out.update(discipline=aqm, settings=dict(getattr(v, "aqm_settings", None) or AQM_SETTINGS[aqm]))
            if getattr(v, "senders", None):   # K means little without the senders that answer the marks
                out["senders"] = v.senders
            work = getattr(v, "aqm_dropping", None)
            if work:   # how much of the dropping the discipline did at the answer (not the hard limit)
                out["discipline_share"] = work["discipline_share"]
        return out

    @property
    def buffer_packets(self) -> float | None:
        """The answer in packets (:attr:`recommended`'s)."""
        b = self.recommended.get("buffer_packets")
        return None if b is None else float(b)

    def verdict(self, model_id: str) -> str | None:
        """safe / unsafe / wasteful for a model's size on the simulated traffic (None: not verified)."""
        if self.verified is None:
            return None
        d = self.verified.verdicts.get(model_id)
        return None if d is None else d["verdict"]

    def to_frame(self):
        """One row per model (pandas DataFrame): its size, whether it applies, and, when verified,
        its verdict on the simulated traffic with the utilization and loss measured at its size."""
        from bufsize.recommendation.display import recommendation_frame

        df = recommendation_frame(self)
        if self.verified is not None:
            vd = self.verified.verdicts
            df["verdict"] = [vd.get(m, {}).get("verdict") for m in df["model"]]
            df["misses"] = [", ".join(vd.get(m, {}).get("misses") or []) or None for m in df["model"]]
            df["simulated_utilization"] = [vd.get(m, {}).get("utilization") for m in df["model"]]
            df["simulated_loss"] = [vd.get(m, {}).get("loss_rate") for m in df["model"]]
            df["verdict_simulated"] = [vd.get(m, {}).get("simulated") for m in df["model"]]
        # the rules beyond the five papers, and where they come from
        df["beyond_papers"] = [m.beyond_papers for m in self.models]
        df["source"] = [m.source for m in self.models]
        return df

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (infinite or missing sizes are ``None``)."""
        inp = asdict(self.input)
        inp["bdp_packets"] = self.input.bdp_packets
        inp["capacity_pps"] = self.input.capacity_pps
        out: dict[str, Any] = {
            "input": inp,
            "bdp_packets": self.input.bdp_packets,
            "bdp_bytes": self.input.bdp_packets * self.input.packet_bytes,
            "models": [asdict(m) for m in self.models],
            "recommended": self.recommended,
            "models_pick": self.models_pick,
            "predicted": self.predicted,
            "traffic": self.traffic,
            "verified": None if self.verified is None else self.verified.to_dict(),
        }
        if self.verify_skipped is not None:
            out["verify_skipped"] = self.verify_skipped
        if self.pick_check is not None:
            out["pick_check"] = self.pick_check
        out["warnings"] = list(self.warnings)
        if self.verified is not None:
            for m in out["models"]:
                m["verdict"] = self.verified.verdicts.get(m["id"], {}).get("verdict")
        return json_safe(out)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def model(self, model_id: str) -> ModelRow:
        for m in self.models:
            if m.id == model_id:
                return m
        raise KeyError(model_id)

    def text(self, *, explain: bool = False) -> str:
        """The report ``bufsize recommend`` prints: the answer first, then the models compactly
        (``explain=True``: with each model's reasons)."""
        from bufsize.recommendation.display import report_text

        return report_text(self, explain=explain)

    def tc_commands(self, dev: str = "eth0") -> list[str]:
        """The ``tc`` lines that set a Linux port to the answer (``--emit tc``): a bfifo of its bytes,
        or with ``aqm=`` the discipline with its settings and hard limit."""
        from bufsize.recommendation.display import tc_lines

        return tc_lines(self, dev)

    def plot(self, path: str | None = None) -> Any:
        """The figure of ``--plot``: the simulated utilization, loss and queueing delay against the
        buffer with every model's size (the models' curves when not verified). With ``path`` it is
        written there (PNG/PDF/SVG by the suffix); without, the matplotlib figure is returned."""
        from bufsize.plots.recommend import plot_recommendation

        return plot_recommendation(self, path)

    # displays (bufsize.recommendation.display): one line at the prompt, a table in Jupyter
    def __repr__(self) -> str:
        from bufsize.recommendation.display import recommendation_repr

        return recommendation_repr(self)

    def _repr_html_(self) -> str:
        from bufsize.recommendation.display import recommendation_html

        return recommendation_html(self)
