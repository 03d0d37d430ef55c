import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
every = int(sys.argv[2]) if len(sys.argv) > 2 else 10
for r in rows[::every] + [rows[-1]]:
    procs = r["procs"]
    desc = " | ".join(f"{p['rss_mb']}M/{p['fds']}fd/{p['threads']}t" for p in procs)
    print(f"t={r['t']:6.1f} ckpt={r['ckpt']:5d} nck={r['nck']} du={r['du_kb']}K nproc={len(procs)} :: {desc}")
