"""How a recommendation looks: the report a terminal shows (the answer first, then a compact
comparison of the models; ``explain=True`` adds every model's reasons), one line at the Python
prompt, HTML in Jupyter, and a DataFrame. Every surface leads with the same answer,
:attr:`Recommendation.recommended`: the verified size where the simulator ran, else the models' pick."""

from __future__ import annotations

import html
import math
import textwrap
from typing import TYPE_CHECKING, Any

from bufsize import units
from bufsize.display import html_table, num_text
from bufsize.recommendation.inputs import mix_text
from bufsize.recommendation.verification import goal_line

if TYPE_CHECKING:
    import pandas as pd

    from bufsize.recommendation.result import Recommendation

__all__ = ["dropping_text", "recommendation_frame", "recommendation_repr", "recommendation_html", "report_text",
           "verdict_text", "buffer_comparison", "models_text", "tc_lines", "aqm_beside_text",
           "settings_lines", "ecn_threshold_tc"]

#: The report's width: the compact table and every wrapped sentence fit in it.
WIDTH = 100


def _rtt_text(rec: Recommendation) -> str:
    inp = rec.input
    if inp.rtt_distribution == "uniform":
        return f"RTT {units.format_time(inp.rtt_min_s)}..{units.format_time(inp.rtt_max_s)}"
    if inp.rtt_distribution == "list" and inp.rtt_list_s:
        return "RTTs " + ", ".join(units.format_time(t) for t in inp.rtt_list_s)
    return f"RTT {units.format_time(inp.rtt_s)}"


def _link_text(rec: Recommendation) -> str:
    inp = rec.input
    parts = [units.format_rate(inp.capacity_bps), _rtt_text(rec)]
    if inp.flows is not None:
        parts.append(f"{inp.flows:,} flow{'s' if inp.flows != 1 else ''}")
    if inp.mix:
        parts.append(mix_text(inp.mix))
    return ", ".join(parts)


def _packets(b: float) -> str:
    return f"{b:,.0f}" if float(b).is_integer() or b >= 100 else f"{b:.3g}"


def _size_text(rec: Recommendation) -> str:
    """'53 packets = 79.5 kB, 6.36 ms when full, verified' (the answer and where it comes from)."""
    r = rec.recommended
    b = r.get("buffer_packets")
    if b is None or not math.isfinite(b):
        return "no finite size" + (" (no buffer meets the goals)" if r.get("source") == "verified" else "")
    how = ("verified on the simulator" if r.get("meets_goals") else "the best size found; no size meets the goals")
    if r.get("source") != "verified":
        checked = _CHECKED.get(str(r.get("checked")))
        how = f"the models' pick ({r.get('id')}), " + (f"checked on the simulator: {checked[0]}" if checked
                                                       else "not verified")
    if r.get("discipline"):
        return (f"{r['discipline']} ({_discipline_words(r['discipline'], r['settings'])}) with a hard limit of "
                f"{_packets(b)} packets = {units.format_size(r['buffer_bytes'])}, {how}")
    return (f"{_packets(b)} packets = {units.format_size(r['buffer_bytes'])}, "
            f"{units.format_time(r['queueing_delay_s'])} when full, {how}")


#: what the check of the models' pick alone found (``rec.pick_check``), by its verdict: as the answer line
#: says it, as its own sentence says it (``{misses}``: the goals missed), and what --verify would add
_CHECKED = {"meets": ("meets the goals", "meets every goal",
                      "Larger than needed, perhaps: only the search finds the smallest size (--verify)."),
            "fails": ("misses the goals", "misses {misses}", "A larger size is needed: the search finds it (--verify)."),
            "unclear": ("unclear after six seeds", "neither shown to meet nor to miss the goals",
                        "The search decides it (--verify).")}


def pick_check_text(rec: Recommendation) -> str | None:
    """The check of the models' pick alone, in one sentence (None when not checked)."""
    c = rec.pick_check
    if not c:
        return None
    _, verdict, then = _CHECKED[c["verdict"]]
    cached = f" + {c['cached_runs']} from the run cache" if c.get("cached_runs") else ""
    pick = rec.models_pick.get("buffer_packets")
    whole = (f" (the whole packets {_packets(pick)} packets' bytes hold)"
             if pick is not None and _packets(pick) != f"{c['buffer_packets']:,}" else "")
    return (f"checked on the simulator instead, the models' pick alone: {c['buffer_packets']:,} packets{whole} "
            f"{verdict.format(misses=_goals_text(c.get('misses') or []))} over {len(c['seeds'])} seeds "
            f"({goal_line(c)}; {c['runs']} runs{cached}, {c['wall_seconds']:.3g} s). {then}")


#: goal names as a sentence says them
_GOAL_WORDS = {"delay": "the delay limit", "delay_p99": "the p99 delay", "fct": "the completion time",
               "overflow_share": "the share rule (the hard limit did more than its share of the dropping)"}


def _goals_text(names: list[str]) -> str:
    return ", ".join(_GOAL_WORDS.get(n, n) for n in names)


def _settings_text(settings: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in settings.items())


def _discipline_words(name: str, settings: dict[str, Any]) -> str:
    """'target 10ms, interval 100ms, ...; the target sized, the rest Linux's defaults', or the threshold's K."""
    from bufsize.recommendation.verification import AQM_SETTINGS

    if name == "ecn_threshold":
        return f"marks CE on arrivals finding more than K = {str(settings['K']).removesuffix('pkt')} packets"
    if settings == AQM_SETTINGS.get(name):
        return f"{_settings_text(settings)}; Linux's defaults"
    return f"{_settings_text(settings)}; the target sized, the rest Linux's defaults"


def settings_lines(ver: Any) -> list[str]:
    """How the discipline's settings were found (each one tried, at the largest hard limit), the
    senders behind a marking threshold and the DCTCP paper's guideline for K beside the answer."""
    out: list[str] = []
    ss = getattr(ver, "settings_search", None)
    if ss:
        key = ss["what"]
        tried = "; ".join(f"{'K = ' if key == 'K' else ''}{t[key]}: utilization {t['utilization']:.4f}, "
                          f"{t['verdict']}" for t in ss["tried"])
        out += _wrap(f"settings: {ss['text']} ({tried})")
    if getattr(ver, "senders", None):
        out += _wrap(f"senders simulated: {ver.senders}; every sender negotiates ECN")
    rule = getattr(ver, "dctcp_rule", None)
    if rule:
        out += _wrap(f"the DCTCP paper's guideline K > C·RTT/7 (Alizadeh et al., SIGCOMM 2010, §3.3): "
                     f"{rule['mean_rtt']:,.1f} packets at the mean RTT, {rule['longest_rtt']:,.1f} at the longest; "
                     f"derived for DCTCP senders sharing one RTT, shown for comparison, not the answer")
    return out


def dropping_text(ver: Any) -> str | None:
    """'at 68 packets fq_codel did 99 % of the dropping: 1,830 drops by CoDel, 12 overflow drops at the
    hard limit (3 runs)': who dropped or marked at the answer, behind a discipline."""
    d = getattr(ver, "aqm_dropping", None)
    b = ver.buffer_packets if ver.buffer_packets is not None else (ver.best or {}).get("buffer_packets")
    if not d or b is None:
        return None
    runs = len((ver.at_size or ver.best or {}).get("seeds") or [])
    counts = (f"{d['discipline_drops']:,} drops" + (f" and {d['marks']:,} marks" if d["marks"] else "")
              + f" by the discipline, {d['overflow_drops']:,} overflow drops at the hard limit"
              + (f" ({runs} runs)" if runs else ""))
    if d["discipline_share"] is None:
        return f"at {b:,} packets no packet was dropped or marked ({runs} runs)"
    what = "dropping and marking" if d["marks"] else "dropping"
    return f"at {b:,} packets {ver.aqm} did {100 * d['discipline_share']:.1f} % of the {what}: {counts}"


def aqm_beside_text(ver: Any) -> str | None:
    """One line on what an AQM at its defaults gives on the same traffic, beside a drop-tail answer."""
    b = getattr(ver, "aqm_beside", None)
    if not b:
        return None
    miss = b.get("misses") or []
    return (f"An AQM instead, on the same traffic: {b['discipline']} ({_settings_text(b['settings'])}, hard limit "
            f"{b['buffer_packets']:,} packets, Linux's defaults): {goal_line(b)} — "
            + (f"misses {_goals_text(miss)}" if miss else "meets the goals") + " (--aqm sizes its hard limit)")


def tc_lines(rec: Recommendation, dev: str = "eth0") -> list[str]:
    """``tc`` commands that configure a Linux port as the answer says: a bfifo of the answer's bytes
    (drop-tail), or the discipline with its settings and hard limit (``--aqm``). For a port whose
    rate is shaped below the line rate, the qdisc goes under the shaper's class instead of root."""
    r = rec.recommended
    b = r.get("buffer_packets")
    if b is None:
        return [f"# no size to configure: {r.get('statement', 'no buffer meets the goals')}"]
    limit = max(1, int(round(b)))
    head = [f"# {dev}: replace with the port's device; {units.format_rate(rec.input.capacity_bps)}, "
            f"{'verified' if r.get('source') == 'verified' else 'the models pick, not verified'}"]
    d = r.get("discipline")
    if d is None:
        return head + [f"tc qdisc replace dev {dev} root bfifo limit {int(round(b * rec.input.packet_bytes))}",
                       f"# or in packets: tc qdisc replace dev {dev} root pfifo limit {limit}"]
    st = r["settings"]
    if d == "fq_codel":
        return head + [f"tc qdisc replace dev {dev} root fq_codel limit {limit} target {st['target']} "
                       f"interval {st['interval']} flows {st['flows']} quantum 1514"]
    if d == "codel":
        return head + [f"tc qdisc replace dev {dev} root codel limit {limit} target {st['target']} "
                       f"interval {st['interval']}"]
    if d == "pie":
        return head + [f"tc qdisc replace dev {dev} root pie limit {limit} target {st['target']} "
                       f"tupdate {st['tupdate']} alpha 2 beta 20"]
    pkt = int(rec.input.packet_bytes)
    if d == "ecn_threshold":
        return head + ecn_threshold_tc(dev, int(str(st["K"]).removesuffix("pkt")), limit, pkt,
                                       rec.input.capacity_bps)
    return head + [f"tc qdisc replace dev {dev} root red limit {limit * pkt} min {5 * pkt} max {15 * pkt} "
                   f"avpkt {pkt} burst 9 probability 0.1 bandwidth {int(rec.input.capacity_bps)}bit"]


def ecn_threshold_tc(dev: str, k: int, limit: int, pkt: int, capacity_bps: float) -> list[str]:
    """A marking threshold of ``k`` packets behind a hard limit of ``limit`` packets as Linux takes
    it: Linux has no threshold qdisc, so RED as a step marker (DCTCP's usual configuration), marking
    with probability 1 once the average passes ``min`` = K packets' bytes, ``max`` one packet above
    (half a packet where the hard limit is K + 1 packets: tc needs max > min, and the limit above
    max), ``burst`` = K, the smallest tc accepts for that ``min`` (tc-red(8): burst
    ≥ min/avpkt), which gives the shortest averaging tc allows (weight 1/2), ``ecn`` so ECN-capable
    packets are marked, and the hard limit in bytes. Beside it, as a comment, FQ-CoDel's
    ``ce_threshold``, a sojourn-time step per flow queue: another discipline, not what was simulated."""
    ce_us = max(1, int(round(k / max(capacity_bps / (8.0 * pkt), 1e-9) * 1e6)))
    # max one packet above min, or half a packet where the hard limit is K + 1 packets (limit > max)
    top = (k + 1) * pkt if limit > k + 1 else k * pkt + max(1, pkt // 2)
    lines = [f"tc qdisc replace dev {dev} root red limit {limit * pkt} min {k * pkt} max {top} "
             f"avpkt {pkt} burst {k} probability 1 ecn bandwidth {int(capacity_bps)}bit"]
    if limit * pkt <= top + k * pkt:
        lines.append(f"# tc-red(8) advises a limit above max + burst ({top + k * pkt} bytes); the hard limit "
                     f"above was verified on the simulator's instantaneous queue")
    lines += ["# Linux's RED averages the queue (weight 1/2 at this burst), so it marks on an almost, not exactly, "
              "instantaneous queue (the simulated threshold compares the queue itself)",
              f"# not simulated, another discipline: tc qdisc replace dev {dev} root fq_codel limit {limit} "
              f"ce_threshold {ce_us}us (K packets of sojourn time, per flow queue)"]
    return lines


def verdict_text(ver: Any, model_id: str, short: bool = False) -> str:
    """'safe', 'unsafe: utilization 0.948', 'wasteful: 4.3× the need', 'unclear' for one model."""
    d = ver.verdicts.get(model_id)
    if d is None:
        return "—"
    v = str(d["verdict"])
    if short:
        return v
    extra = ""
    if v == "unsafe":
        parts = []
        for g in d.get("misses") or []:
            if g == "utilization" and d.get("utilization") is not None:
                parts.append(f"utilization {d['utilization']:.3f}")
            elif g == "loss" and d.get("loss_rate") is not None:
                parts.append(f"loss {d['loss_rate'] * 100:.2g} %")
            else:
                parts.append(g)
        extra = ": " + ", ".join(parts) if parts else ""
    elif v == "wasteful" and ver.buffer_packets:
        x = d["buffer_packets"] / ver.buffer_packets
        extra = f": {x:.2g}× the need" if x < 10 else f": {x:,.0f}× the need"
    elif v == "safe" and d.get("borderline"):
        extra = " (borderline)"
    elif v == "unclear" and ver.buffer_packets:
        extra = f": below {ver.buffer_packets:,}"
    return v + extra + ("" if d.get("simulated", True) else " †")


def _delta_time(dt: float) -> str:
    return ("+" if dt >= 0 else "−") + units.format_time(abs(dt), 3)


def buffer_comparison(rec: Recommendation) -> str | None:
    """One sentence on what the buffer the user has costs or buys against the answer, e.g. '2 MB:
    +142 ms of mean queueing (p99 +154 ms) for +0.5 points of utilization over 53 packets, 25× the
    memory'; None when no buffer was given or there is no answer to compare with."""
    ver = rec.verified
    have = None if ver is None else ver.at_buffer
    ans = None if ver is None else ver.at_size
    if not have or not ans or ver.buffer_packets is None:
        return None
    b, a = have["buffer_packets"], ver.buffer_packets
    du = 100.0 * (have["utilization"] - ans["utilization"])      # points
    dl = 100.0 * (have["loss_rate"] - ans["loss_rate"])
    dd = have["queue_delay_mean_s"] - ans["queue_delay_mean_s"]
    dp = have["queue_delay_p99_s"] - ans["queue_delay_p99_s"]
    ratio = b / max(a, 1)
    if b == a:
        return f"{have['given']} is the verified size"
    if b > a:
        return (f"{have['given']} against the verified {a:,} packets: {_delta_time(dd)} of mean queueing "
                f"(p99 {_delta_time(dp)}) for {du:+.2g} points of utilization and {dl:+.2g} points of "
                f"loss, {ratio:.3g}× the memory ({units.format_size(have['buffer_bytes'])} "
                f"instead of {units.format_size(a * rec.input.packet_bytes)} per port)")
    miss = have.get("misses") or []
    return (f"{have['given']} against the verified {a:,} packets: "
            + (f"misses {_goals_text(miss)} ({du:+.2g} points of utilization, {dl:+.2g} of loss)"
               if miss else f"{du:+.2g} points of utilization and {dl:+.2g} of loss")
            + f" for {_delta_time(dd)} of mean queueing; {a - b:,} packets "
              f"({units.format_size((a - b) * rec.input.packet_bytes)}) more reach the goals")


def _wrap(text: str, indent: str = "  ", first: str | None = None) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent if first is None else first,
                         subsequent_indent=indent + "  ", break_on_hyphens=False) or [indent]


def _answer_lines(rec: Recommendation) -> list[str]:
    ver = rec.verified
    lines = _wrap("Answer: " + _size_text(rec), "", "")
    for w in rec.warnings:   # before anything else the answer says: what may make it wrong for this port
        lines += _wrap(f"warning: {w}")
    if ver is None:
        lines += _wrap(("search not run: " if rec.pick_check else "models only: ")
                       + (rec.verify_skipped or "verification off (--no-verify, verify=False); the simulator would "
                                                "judge this size"))
        checked = pick_check_text(rec)
        if checked:
            lines += _wrap(checked)
        for reason in rec.models_pick.get("reasons", []):   # with no simulation, the models' reasons are the answer's
            lines += _wrap(f"• {reason}")
        for fig in rec.predicted.get("figures", []):
            lines += _wrap(f"model prediction: {fig['text']}")
        return lines
    goals = [] if ver.goals.utilization is None else [f"utilization ≥ {ver.goals.utilization:.4g}"]
    if ver.goals.max_loss is not None:
        goals.append(f"loss ≤ {ver.goals.max_loss:g}")
    if ver.goals.max_delay_s is not None:
        goals.append(f"queueing ≤ {units.format_time(ver.goals.max_delay_s)} (B ≤ C·λ)")
    if ver.goals.max_fct_s is not None:
        goals.append(f"short-flow completion ≤ {units.format_time(ver.goals.max_fct_s)}")
    if ver.goals.max_delay_p99_s is not None:
        goals.append(f"p99 queueing delay ≤ {units.format_time(ver.goals.max_delay_p99_s)} (measured)")
    share = getattr(ver.goals, "max_overflow_share", None)
    if share is not None:
        goals.append(f"and the discipline does the dropping (overflow drops at the hard limit ≤ {100 * share:g} % of the "
                     f"port's drops and marks, our convention)")
    lines += _wrap("goals: " + ", ".join(goals))
    lines += settings_lines(ver)
    if ver.status != "infeasible" and ver.statement:
        lines += _wrap(ver.statement)   # the bracket and the seeds' own crossing points
    if ver.at_size and ver.status != "infeasible":
        lines += _wrap(f"at {ver.buffer_packets:,} packets: {goal_line(ver.at_size)}")
    work = dropping_text(ver)
    if work:
        lines += _wrap(work)
    if (getattr(ver, "aqm_dropping", None) or {}).get("set_by_share"):
        lines += _wrap(ver.aqm_dropping["set_by_share"])
    if getattr(ver, "aqm_idle", None):
        lines += _wrap(f"warning: {ver.aqm_idle}")
    if ver.status == "infeasible":
        lines += _wrap(ver.statement)
    if ver.at_half and ver.at_half.get("not_run"):
        h = ver.at_half
        lines += _wrap(f"at half, {h['buffer_packets']:,} packets: misses {_goals_text(h['misses'])} (not run: the "
                       f"larger {h['implied_by']['buffer_packets']:,} packets already miss it)")
    elif ver.at_half:
        miss = ver.at_half.get("misses") or []
        lines += _wrap(f"at half, {ver.at_half['buffer_packets']:,} packets: {goal_line(ver.at_half)}"
                       + (f" — misses {_goals_text(miss)}" if miss else " — still meets the goals"))
    if ver.simulated:
        lines += _wrap(f"simulated: {ver.simulated}")
    lines += _wrap(f"{ver.runs} runs" + (f" (+ {ver.cached_runs} from the run cache)" if getattr(ver, "cached_runs", 0) else "")
                   + (f", {ver.settled_runs} of them stopped once settled (batch means)" if getattr(ver, "settled_runs", 0) else "")
                   + f", {ver.wall_seconds:.3g} s wall"
                   + (f"; 2 seeds per size, {len(ver.seeds)} and more where unclear, {ver.run.why}" if ver.run else ""))
    beside = aqm_beside_text(ver)
    if beside:
        lines += _wrap(beside)
    have = ver.at_buffer
    if have:
        miss = have.get("misses") or []
        lines.append("")
        lines += _wrap(f"Your buffer, {have['given']} ({have['buffer_packets']:,} packets, "
                       f"{units.format_size(have['buffer_bytes'])} per port, {units.format_time(have['full_delay_s'])} "
                       f"when full): {goal_line(have)} — "
                       + (f"misses {_goals_text(miss)}" if miss else "meets the goals"), "", "")
        cmp = buffer_comparison(rec)
        if cmp:
            lines += _wrap(cmp)
    return lines


def _table_lines(rec: Recommendation) -> list[str]:
    """The compact comparison: one row per model with a size, in WIDTH columns."""
    ver = rec.verified
    rows = []
    for m in rec.models:
        if m.buffer_packets is None:
            continue
        b = m.buffer_packets
        size = "∞" if not math.isfinite(b) else (f"{b:,.1f}" if b < 100 else f"{b:,.0f}")
        delay = "∞" if m.queueing_delay_s is None or not math.isfinite(m.queueing_delay_s) \
            else units.format_time(m.queueing_delay_s, 3)
        byte = "∞" if m.buffer_bytes is None or not math.isfinite(m.buffer_bytes) else units.format_size(m.buffer_bytes, 3)
        cells = [m.id + ("*" if m.beyond_papers else ""), "yes" if m.applies else "no", size, byte, delay]
        if ver is not None:
            cells.append(verdict_text(ver, m.id))
        rows.append(cells)
    head = ["model", "applies", "packets", "bytes", "delay"] + (["on this traffic"] if ver is not None else [])
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
    rest = WIDTH - sum(widths) - 2 * 5 - 2
    out = []
    for r in [head] + rows:
        line = "  " + "  ".join(c.ljust(w) if i in (0, 1) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        if len(r) > 5:
            tail = textwrap.wrap(r[5], max(rest, 20)) or [""]
            out.append(line + "  " + tail[0])
            out += [" " * len(line) + "  " + t for t in tail[1:]]
        else:
            out.append(line)
    return out


def models_text(rec: Recommendation) -> str:
    """The models' compact table alone (what a terminal shows while the verification runs)."""
    return "\n".join(["Models (before the simulator's verdicts):"] + _table_lines(rec))


def report_text(rec: Recommendation, *, explain: bool = False) -> str:
    """The terminal report: the link, the answer and what it was measured at (and the buffer the
    user has, when given), then the models in a compact table; ``explain`` adds each model's
    equation and why it applies or not, the models' reasons for their pick and their predictions."""
    inp = rec.input
    link = (f"{units.format_rate(inp.capacity_bps)}, {_rtt_text(rec)}"
            + (f" (harmonic mean {units.format_time(inp.rtt_harmonic_s)})" if inp.rtt_max_s > inp.rtt_min_s else "")
            + (f", {inp.flows:,} long flows" if inp.flows else "")
            + (f", {mix_text(inp.mix)}" if inp.mix else "")
            + f", {inp.packet_bytes:g}-byte packets"
            + (f", Γ = {inp.gamma:g}" if inp.gamma is not None else "")
            + f"; BDP {inp.bdp_packets:,.0f} packets ({units.format_size(inp.bdp_packets * inp.packet_bytes)})")
    lines = _wrap("Link: " + link, "", "") + [""] + _answer_lines(rec) + [""]
    ver = rec.verified
    lines += _wrap("Models" + (" (the simulator's verdict on each size: 'on this traffic')" if ver is not None else "")
                   + "; --explain for why each applies:", "", "")
    lines += _table_lines(rec)
    if ver is not None and any(not d.get("simulated", True) for d in ver.verdicts.values()):
        lines += _wrap("† not simulated at that size: judged from the sizes run around it (more buffer, more "
                       "utilization and less loss)", "  ")
    if rec.input.mix is None and not rec.input.paced:
        from bufsize import profiles

        cc = profiles.get().tcp["cc"]
        if cc not in ("reno", "newreno"):
            lines += _wrap(f"the models read the flows as Reno (the papers' TCP; give --cc or --mix to size "
                           f"another); the simulator runs the {profiles.name()} profile's {cc}", "  ")
    for src in sorted({m.source for m in rec.models if m.beyond_papers and m.source}):
        lines += _wrap(f"* {src}", "  ")
    pick = rec.models_pick
    pb = pick.get("buffer_packets")
    if pb is not None and ver is not None:
        lines += _wrap(f"Models' pick: {_packets(pb)} packets ({pick.get('id')})"
                       + (f", {verdict_text(ver, pick['id'])} on this traffic" if pick.get("id") in ver.verdicts else ""),
                       "", "")
    if explain:
        lines += ["", "Why each model applies or not:"]
        for m in rec.models:
            lines += _wrap(f"{m.id} ({m.paper} {m.equation}): {m.reason}", "  ")
        if ver is not None:   # unverified, the answer block has them already
            lines += ["", "The models' pick" + (f", {_packets(pb)} packets ({pick.get('id')}):" if pb is not None
                                               else ":")]
            for reason in pick.get("reasons", []):
                lines += _wrap(f"• {reason}", "  ")
            for fig in rec.predicted.get("figures", []):
                lines += _wrap(f"model prediction: {fig['text']}", "  ")
    if ver is not None:
        lines += [f"  note: {n}" for n in ver.notes]
    return "\n".join(lines)


def recommendation_frame(rec: Recommendation) -> pd.DataFrame:
    """One row per model: id, paper, equation, goal, whether it applies and why, its buffer in
    packets, bytes and queueing time, and whether it is the models' pick (``models_pick``)."""
    import pandas as pd

    rows = []
    for m in rec.models:
        rows.append({"model": m.id, "paper": m.paper, "equation": m.equation, "goal": m.goal,
                     "applies": m.applies, "buffer_packets": m.buffer_packets, "buffer_bytes": m.buffer_bytes,
                     "queueing_delay_s": m.queueing_delay_s, "models_pick": m.id == rec.models_pick.get("id"),
                     "reason": m.reason})
    return pd.DataFrame(rows, columns=["model", "paper", "equation", "goal", "applies", "buffer_packets",
                                       "buffer_bytes", "queueing_delay_s", "models_pick", "reason"])


def recommendation_repr(rec: Recommendation) -> str:
    """One line: the link and the answer (verified or the models' pick, said which)."""
    pick = rec.models_pick
    extra = ""
    if rec.recommended.get("source") == "verified" and pick.get("buffer_packets") is not None:
        v = rec.verdict(pick.get("id", ""))
        extra = f"; models' pick {num_text(pick['buffer_packets'])} ({pick.get('id')}{', ' + v if v else ''})"
    return (f"<Recommendation {_link_text(rec)}: {_size_text(rec)}{extra}; {len(rec.models)} models "
            f"(.to_frame() for the table, .text() for the report)>")


def recommendation_html(rec: Recommendation) -> str:
    """The size and its reasons, then the per-model table (the recommended model in bold)."""
    r = rec.models_pick
    reasons = "".join(f"<li>{html.escape(str(t))}</li>" for t in r.get("reasons", []))
    v = rec.verified
    verdicts: dict[str, Any] = dict(getattr(v, "verdicts", None) or {}) if v is not None else {}
    rows, chosen = [], set()
    for i, m in enumerate(rec.models):
        if m.id == r.get("id"):   # the models' pick in bold
            chosen.add(i)
        row = [m.id, m.equation, m.goal, "yes" if m.applies else "no", num_text(m.buffer_packets),
               "–" if m.queueing_delay_s is None else units.format_time(m.queueing_delay_s)]
        if v is not None:
            row.append(str((verdicts.get(m.id) or {}).get("verdict") or "–"))
        rows.append(row + [m.reason])
    header = ["model", "equation", "goal", "applies", "buffer (pkt)", "delay"] + \
        (["on the simulator"] if v is not None else []) + ["why"]
    statement = str(getattr(v, "statement", "") or "") if v is not None else ""
    skipped = getattr(rec, "verify_skipped", None)
    pred = rec.predicted
    pred_txt = ", ".join(f"{k} {num_text(v, 3)}" for k, v in pred.items() if isinstance(v, (int, float)))
    cmp = buffer_comparison(rec)
    pick_txt = (f"{num_text(r.get('buffer_packets'))} packets ({r.get('id')})" if r.get("buffer_packets") is not None
                else "none")
    warn = "".join(f"<div><b>warning:</b> {html.escape(w)}</div>" for w in rec.warnings)
    return (f"<div><b>bufsize recommendation</b> for {html.escape(_link_text(rec))}<br>"
            f"<b>Answer: {html.escape(_size_text(rec))}</b>" + warn
            + (f"<div><b>Verified:</b> {html.escape(statement)}</div>" if statement else "")
            + (f"<div><b>Your buffer:</b> {html.escape(cmp)}</div>" if cmp else "")
            + f"<div>Models' pick: {html.escape(pick_txt)}</div>"
            f"<ul style='margin:4px 0'>{reasons}</ul>"
            + (f"<div>Not verified: {html.escape(str(skipped))}</div>" if skipped else "")
            + (f"<div>{html.escape(str(pick_check_text(rec)))}</div>" if rec.pick_check else "")
            + (f"<div>Predicted at this size: {html.escape(pred_txt)}</div>" if pred_txt else "")
            + html_table(header, rows, chosen)
            + "</div>")
