"""Verdicts of the checkers as Python data.

`Kernel.verify()` returns a Verdict: one Obligation per thing the checkers
proved or failed to prove, and for a failure a Counterexample -- the problem
sizes, program ids and loop values of a concrete execution that breaks it,
the memory it touches, and the tiletag-run command that replays it. The
fields are those of the C API (include/TileTag-c/Verification.h) and of
``tiletag-opt --tiletag-verify=format=json``.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple


@dataclass(frozen=True)
class Access:
    """Memory a program point touches."""
    kind: str                 # "slot", "block", "element" or "mbarrier"
    index: Tuple[int, ...]    # the slot, block or element index
    buffer: str               # "A" (a kernel operand) or "%a_ring (line 32)"


@dataclass(frozen=True)
class Point:
    """One execution of an op in a counterexample."""
    op: str                   # e.g. "tile.copy"
    location: str             # "file:line:col"
    loops: Dict[str, int]     # loop name -> value, e.g. {"iv0@line39": 0}
    accesses: Tuple[Access, ...]
    memory: str               # the accesses as text


@dataclass(frozen=True)
class Counterexample:
    """A concrete execution that violates an obligation."""
    values: Dict[str, int]    # "size.M", "A.dim1", "nprog0", "pid0", scalars
    points: Tuple[Point, ...]
    replay: str               # the tiletag-run command line that replays it
    replay_flags: str         # its flags alone

    @property
    def sizes(self):
        """The problem sizes, by name ({"M": 1, ...})."""
        return {k[5:]: v for k, v in self.values.items() if k.startswith("size.")}

    @property
    def program_ids(self):
        """The program ids, by grid dimension name ({"pid0": 0, ...})."""
        return {k: v for k, v in self.values.items() if k.startswith("pid")}


@dataclass(frozen=True)
class Obligation:
    checker: str              # "definedness", "tags", "contract" or "schedule"
    status: str               # "proved", "failed" or "unknown"
    what: str                 # the obligation, or for a failure the error
    location: str             # "file:line:col" of its op
    resources: int            # Z3 resources of the query that decided it
    notes: Tuple[str, ...]
    counterexample: Optional[Counterexample]

    @property
    def proved(self):
        return self.status == "proved"


@dataclass(frozen=True)
class Verdict:
    kernel: str
    proved: bool
    queries: int
    resources: int
    largest_query: int
    milliseconds: float
    obligations: Tuple[Obligation, ...]

    @property
    def failures(self) -> List[Obligation]:
        """The obligations that were not proved (failed or unknown)."""
        return [o for o in self.obligations if o.status != "proved"]

    def __bool__(self):
        return self.proved


def _counterexample(d):
    if d is None:
        return None
    points = tuple(Point(p["op"], p["location"], dict(p["loops"]),
                         tuple(Access(a["kind"], tuple(a["index"]), a["buffer"])
                               for a in p["accesses"]),
                         ", ".join("%s [%s] of %s" % (a["kind"],
                                                       ", ".join(map(str, a["index"])),
                                                       a["buffer"])
                                   for a in p["accesses"]))
                   for p in d["points"])
    return Counterexample(dict(d["values"]), points, d["replay"], d["replay_flags"])


def verdict_from_dict(d):
    """A Verdict from the extension's dict (or the JSON of one kernel)."""
    return Verdict(d["kernel"], d["proved"], d["queries"], d["resources"],
                   d["largest_query"], d["milliseconds"],
                   tuple(Obligation(o["checker"], o["status"], o["what"],
                                    o["location"], o["resources"],
                                    tuple(o.get("notes", ())),
                                    _counterexample(o.get("counterexample")))
                         for o in d["obligations"]))
