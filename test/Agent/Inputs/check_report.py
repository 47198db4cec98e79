"""Checks on tiletag-agent output directories, for the lit tests.

  check_report.py same DIR1 DIR2      the two runs made the same attempts
  check_report.py better DIR FILE     DIR's best estimate >= FILE's, in
                                      TFLOP/s (JSON of --estimate --json)
  check_report.py count DIR N         DIR holds N distinct attempts
  check_report.py field DIR I K V     attempt I's field K is V
"""
import json
import sys


def attempts(d):
    return json.load(open(d + "/report.json"))["attempts"]


def summary(a):
    return (a.get("recipe"), json.dumps(a.get("params"), sort_keys=True),
            a["status"], a.get("reason"), a.get("score") and a["score"]["time_us"])


cmd = sys.argv[1]
if cmd == "same":
    x, y = [list(map(summary, attempts(d))) for d in sys.argv[2:4]]
    assert x == y, "runs differ:\n%s\n%s" % (x, y)
    print("same %d attempts" % len(x))
elif cmd == "better":
    best = json.load(open(sys.argv[2] + "/report.json"))["best"]["score"]["tflops"]
    peer = json.load(open(sys.argv[3]))["tflops"]
    assert best >= peer - 1e-9, (best, peer)
    print("best %.1f >= %.1f TFLOP/s" % (best, peer))
elif cmd == "count":
    keys = [a["key"] for a in attempts(sys.argv[2])]
    assert len(keys) == len(set(keys)), "an attempt was repeated"
    assert len(keys) == int(sys.argv[3]), (len(keys), sys.argv[3])
    print("%d distinct attempts" % len(keys))
elif cmd == "field":
    a = attempts(sys.argv[2])[int(sys.argv[3]) - 1]
    value = a
    for part in sys.argv[4].split("."):
        value = value[part]
    assert str(value) == sys.argv[5], (sys.argv[4], value, sys.argv[5])
    print("%s = %s" % (sys.argv[4], value))
