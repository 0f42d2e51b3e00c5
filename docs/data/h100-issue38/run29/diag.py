# issue 38 (session 4): h3, h10, h12 each on its own connection as bench_sql runs them, the cache's state after each read
import sqlite3, sys, time, json, os, subprocess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from diag_q import Q
lib = os.environ['GPUAGG_MODULE']
def smi():
    return subprocess.run(['nvidia-smi','--query-gpu=memory.used,memory.total','--format=csv,noheader'],capture_output=True,text=True).stdout.strip()
for name in sys.argv[2:]:
    c = sqlite3.connect(sys.argv[1])
    c.enable_load_extension(True); c.load_extension(lib)
    c.execute("SELECT gpuagg_backend('auto'), gpuagg_config('threads', 16)").fetchall()
    c.execute("CREATE VIRTUAL TABLE temp.q USING gpu_query((%s))" % Q[name])
    for k in range(4):
        t = time.time(); n = len(c.execute("SELECT * FROM q").fetchall()); t = (time.time()-t)*1e3
        info = json.loads(c.execute("SELECT gpuagg_info()").fetchone()[0])
        cc = info['cache']; last = info['query']['last']
        print(f"{name} read {k+1}: {t:.1f} ms, {n} rows; cache budget {cc['budget']} bytes {cc['bytes']} dev {cc['device_bytes']} held {cc['held_bytes']} work {cc['work_bytes']} evictions {cc['evictions']} inval {cc['invalidations']} misses {cc['misses']}; on {last['on']} col {last['columns_ms']} comp {last['compile_ms']} ops {last['operators_ms']}; scans page {info['page_scans']} stmt {info['statement_scans']}; smi {smi()}", flush=True)
    c.close()
    print(f"after {name} closed: smi {smi()}", flush=True)
