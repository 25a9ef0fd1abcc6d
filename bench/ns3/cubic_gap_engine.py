"""One OC3-grid point (profile ns3, cubic) on a scratch build of the engine's example runner (cubic_gap.md).

    RUN_BIN=/tmp/t/release/examples/run [FIX_FRIENDLY=1] [NS3_SS=1] [SEED=s] .venv/bin/python bench/ns3/cubic_gap_engine.py N B ['{tcp overrides}']

The profile is expanded by bufsize's Python side, then the scenario JSON goes to RUN_BIN.
"""
import json, sys, subprocess, tempfile, os
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402
from bufsize.simulate import _as_scenario  # noqa: E402
n, B = int(sys.argv[1]), int(sys.argv[2]); seed = int(os.environ.get('SEED', '1'))
rtts, starts = compare.flow_inputs(n, seed)
p = dict(n=n, buffer=B, duration=40.0, warmup=10.0, seed=seed, profile='ns3', cc='cubic')
sc = compare.bufsize_scenario(p, rtts, starts)
for e in sys.argv[3:]:
    sc['dumbbell']['tcp'].update(json.loads(e))
js = _as_scenario(sc).to_json()
with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
    f.write(js)
r = subprocess.run([os.environ['RUN_BIN'], f.name], capture_output=True, text=True)
os.unlink(f.name)
d = json.loads(r.stdout)
flags = ','.join(k for k in ('NS3_SS', 'FIX_FRIENDLY') if os.environ.get(k) == '1') or 'stock'
print(json.dumps(dict(n=n, B=B, seed=seed, flags=flags, extra=sys.argv[3:], utilization=round(d['utilization'], 4),
                      loss_rate=round(d['loss_rate'], 5), mean_queue=round(d['mean_queue_packets'], 1),
                      timeouts=d['timeouts'], fast_retransmits=d.get('fast_retransmits'))))
