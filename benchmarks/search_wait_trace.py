#!/usr/bin/env python3
"""What a search waits for while writer processes append, from a scheduler trace.

search_under_load.py splits each search's wall time into CPU, run-queue wait
(the thread's schedstat) and the rest ("blocked"). That says *how long* the
searcher waited for a core, not *who had the cores*. This script runs the same
measurement under ``perf record`` (sched_switch and sched_wakeup on every CPU,
CLOCK_MONOTONIC timestamps, so they line up with the searches' own clock) and,
for every moment the searching thread was runnable but not running during a
timed search, charges each CPU's time to what ran on it:

  writers          the writer processes' main threads (appending, indexing)
  writer threads   their other threads (the background checkpointer)
  searcher process the searching process's other threads
  kernel           kernel threads (I/O completion, writeback, journal, RCU), by name
  idle             nothing: the searcher was queued on a busy CPU while another was free
  others           everything else on the machine (other users' work)

It also lists who preempted the searcher (the task switched in when it was
switched out runnable), the searcher's blocked episodes (switched out sleeping:
a lock, I/O, a page fault) and the CPU time each group used over the timed
window, so "the writers use 0.6 cores" is checked against the trace.

Needs perf with access to the sched tracepoints (root, or perf_event_paranoid
<= -1). The database is copied first and never modified.

    python3 benchmarks/search_wait_trace.py --db .bench/session_store/ours_normal.db
    python3 benchmarks/search_wait_trace.py --db ... --writer-rate 25 --pace-ms 20 --json
"""
from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import search_under_load  # noqa: E402
from fair import machine, percentile  # noqa: E402

_HEADER = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<pid>-?\d+)/(?P<tid>-?\d+)\s+\[(?P<cpu>\d+)\]\s+"
                     r"(?P<time>\d+\.\d+):\s+sched:(?P<event>\w+):\s+(?P<rest>.*)$")
_SWITCH = re.compile(r"prev_comm=(?P<pcomm>.*?) prev_pid=(?P<ppid>\d+) prev_prio=\d+ prev_state=(?P<pstate>\S+) "
                     r"==> next_comm=(?P<ncomm>.*?) next_pid=(?P<npid>\d+) next_prio=\d+")
_WAKEUP = re.compile(r"comm=(?P<comm>.*?) pid=(?P<pid>\d+) prio=\d+ target_cpu=(?P<cpu>\d+)")
_KERNEL_NAMES = re.compile(r"^(kworker|jbd2|ksoftirqd|rcu_|migration|kswapd|kcompactd|kdamond|khugepaged|"
                           r"kthreadd|irq/|cpuhp|watchdog|ext4|flush-|scsi|kblockd|oom_reaper|idle_inject)")


class Timeline:
    """The timed searches, in order: class, start and end (CLOCK_MONOTONIC ns)."""

    def __init__(self, searches: list[tuple[str, int, int]]) -> None:
        self.searches = searches
        self.starts = [s[1] for s in searches]

    def at(self, t_ns: int) -> int | None:
        """Index of the search running at *t_ns*, or None."""
        i = bisect.bisect_right(self.starts, t_ns) - 1
        if i >= 0 and t_ns <= self.searches[i][2]:
            return i
        return None

    def overlap(self, a: int, b: int) -> Iterator[tuple[int, int, int]]:
        """(search index, start, end) of the parts of [a, b) that fall inside searches."""
        i = max(bisect.bisect_right(self.starts, a) - 1, 0)
        while i < len(self.searches) and self.searches[i][1] < b:
            lo, hi = max(a, self.searches[i][1]), min(b, self.searches[i][2])
            if lo < hi:
                yield i, lo, hi
            i += 1


class Attribution:
    """Who ran on each CPU while the searcher waited, and who it waited behind."""

    def __init__(self, searcher: int, writer_pids: set[int], timeline: Timeline, window: tuple[int, int]) -> None:
        self.searcher = searcher
        self.writers = writer_pids
        self.timeline = timeline
        self.window = window
        self.tgid: dict[int, int] = {}
        self.comm: dict[int, str] = {}
        self.running: dict[int, tuple[int, int]] = {}  # cpu -> (tid, since ns)
        self.state = "running"  # running, waiting (runnable) or the sleep state it left in
        self.since = 0
        self.waiting_since: int | None = None
        self.last = 0
        self.wait_by_group: collections.Counter[str] = collections.Counter()  # CPU-ns, all CPUs
        self.wait_by_task: collections.Counter[str] = collections.Counter()
        self.per_search_wait: collections.Counter[int] = collections.Counter()
        # the part of it when no CPU ran another user's work: what the store's own processes cost
        self.per_search_own_wait: collections.Counter[int] = collections.Counter()
        self.preempted_by: collections.Counter[str] = collections.Counter()
        self.episodes: dict[str, list[int]] = collections.defaultdict(list)  # wait ns per episode, by preemptor
        self.preemptor = "woken"
        self.bursts: dict[str, list[int]] = collections.defaultdict(list)  # ns per time on a CPU, by group
        self.blocked: list[tuple[int, str]] = []  # (ns, state) of sleeps inside searches
        self.cpu_by_group: collections.Counter[str] = collections.Counter()
        self.cpu_by_task: collections.Counter[str] = collections.Counter()
        self.cpus: set[int] = set()

    def group(self, tid: int) -> str:
        if tid == 0:
            return "idle"
        pid = self.tgid.get(tid, tid)
        if pid in self.writers:
            return "writers" if tid == pid else "writer threads"
        if pid == self.tgid.get(self.searcher, -1):
            return "searcher process"
        comm = self.comm.get(tid, "")
        if pid == tid and _KERNEL_NAMES.match(comm):
            return "kernel"
        return "others"

    def label(self, tid: int) -> str:
        group = self.group(tid)
        if group in ("kernel", "others"):
            return f"{group}: " + re.sub(r"[/:]\d+.*$", "", self.comm.get(tid, "?"))
        return group

    def _charge(self, t: int) -> None:
        """Account [last, t) to what each CPU ran (for the waits, and CPU per group)."""
        lo, hi = max(self.last, self.window[0]), min(t, self.window[1])
        if hi > lo:
            for cpu, (tid, _) in self.running.items():
                if tid != 0:
                    self.cpu_by_group[self.group(tid)] += hi - lo
                    self.cpu_by_task[self.label(tid)] += hi - lo
        if self.waiting_since is not None and t > self.last:
            groups = [self.group(self.running.get(cpu, (0, 0))[0]) for cpu in self.cpus]
            foreign = "others" in groups
            for index, a, b in self.timeline.overlap(self.last, t):
                self.per_search_wait[index] += b - a
                if not foreign:
                    self.per_search_own_wait[index] += b - a
                for cpu in self.cpus:
                    tid = self.running.get(cpu, (0, 0))[0]
                    self.wait_by_group[self.group(tid)] += b - a
                    self.wait_by_task[self.label(tid)] += b - a
        self.last = t

    def feed(self, t: int, cpu: int, event: str, rest: str) -> None:
        self.cpus.add(cpu)
        self._charge(t)
        if event == "sched_switch":
            m = _SWITCH.match(rest)
            if not m:
                return
            prev, nxt = int(m["ppid"]), int(m["npid"])
            self.comm[prev], self.comm[nxt] = m["pcomm"], m["ncomm"]
            ran = self.running.get(cpu)
            if ran is not None and ran[0] == prev and self.window[0] <= t <= self.window[1]:
                self.bursts[self.group(prev)].append(t - ran[1])
            self.running[cpu] = (nxt, t)
            if prev == self.searcher:
                if m["pstate"].startswith("R"):  # preempted: runnable, waiting for a CPU
                    self.state, self.waiting_since = "waiting", t
                    self.preemptor = self.label(nxt)
                    if self.timeline.at(t) is not None:
                        self.preempted_by[self.preemptor] += 1
                else:  # went to sleep (S: a lock, a futex; D: I/O, a page fault)
                    self.state, self.since = m["pstate"], t
            if nxt == self.searcher:
                if self.waiting_since is not None and self.timeline.at(self.waiting_since) is not None:
                    self.episodes[self.preemptor].append(t - self.waiting_since)
                self._woken(t)
                self.state, self.waiting_since = "running", None
        elif event == "sched_wakeup":
            m = _WAKEUP.match(rest)
            if m and int(m["pid"]) == self.searcher and self._woken(t):
                self.state, self.waiting_since, self.preemptor = "waiting", t, "woken"

    def _woken(self, t: int) -> bool:
        """End a sleep at *t* (recording it when it began inside a search); whether there was one."""
        if self.state in ("running", "waiting"):
            return False
        if self.timeline.at(self.since) is not None:
            self.blocked.append((t - self.since, self.state))
        return True


def parse_trace(path: Path, attribution: Attribution) -> int:
    """Feed `perf script` lines of *path* to *attribution*; returns the events read."""
    proc = subprocess.Popen(["perf", "script", "-i", str(path), "--ns", "-F", "comm,pid,tid,cpu,time,event,trace"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors="replace")
    events = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        m = _HEADER.match(line)
        if not m:
            continue
        tid, pid = int(m["tid"]), int(m["pid"])
        if tid > 0:
            attribution.tgid[tid] = pid
        secs, frac = m["time"].split(".")
        t = int(secs) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])
        attribution.feed(t, int(m["cpu"]), m["event"], m["rest"])
        events += 1
    proc.wait()
    return events


def traced_run(args: argparse.Namespace, workdir: Path) -> tuple[dict[str, Any], Attribution, int]:
    copy = workdir / "state.db"
    shutil.copyfile(args.db, copy)
    data = workdir / "sched.data"
    perf = subprocess.Popen(["perf", "record", "-q", "-a", "-k", "CLOCK_MONOTONIC", "-o", str(data),
                             "-e", "sched:sched_switch", "-e", "sched:sched_wakeup"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.0)  # perf is recording once it has opened its events
    if perf.poll() is not None:
        err = perf.stderr.read().decode(errors="replace") if perf.stderr else ""
        raise SystemExit(f"perf record could not start ({err.strip()[:300]}) -> run as root, or set "
                         "kernel.perf_event_paranoid to -1")
    timeline: list[tuple[str, int, int]] = []
    try:
        report = search_under_load.run(copy, writers=args.writers, rate=args.writer_rate, iters=args.iters,
                                       pace_ms=args.pace_ms, warmup_s=args.warmup_s, warm_passes=args.warm_passes,
                                       timeline=timeline)
    finally:
        perf.send_signal(signal.SIGINT)
        perf.wait(timeout=120)
    line = Timeline(timeline)
    window = (timeline[0][1], timeline[-1][2]) if timeline else (0, 0)
    attribution = Attribution(report["searcher_tid"], set(report["writer_pids"]), line, window)
    events = parse_trace(data, attribution)
    return report, attribution, events


def summarise(report: dict[str, Any], att: Attribution, events: int) -> dict[str, Any]:
    searches = att.timeline.searches
    window_s = max((att.window[1] - att.window[0]) / 1e9, 1e-9)
    total_wait = sum(att.per_search_wait.values())
    ncpu = max(len(att.cpus), 1)
    by_class: dict[str, list[float]] = collections.defaultdict(list)
    own_by_class: dict[str, list[float]] = collections.defaultdict(list)
    for i, (cat, _, _) in enumerate(searches):
        by_class[cat].append(att.per_search_wait.get(i, 0) / 1e6)
        own_by_class[cat].append(att.per_search_own_wait.get(i, 0) / 1e6)
    slow = sorted(range(len(searches)), key=lambda i: -att.per_search_wait.get(i, 0))[:max(len(searches) // 20, 1)]
    return {
        "events": events, "searches": len(searches), "cpus": ncpu, "timed_window_s": round(window_s, 2),
        "load": report["load"], "writer_msgs_per_s": report["writer_msgs_per_s"],
        "writer_cpu_share_self_reported": report["writer_cpu_share"],
        "cores_used_in_window": {g: round(ns / 1e9 / window_s, 3) for g, ns in att.cpu_by_group.most_common()},
        "cores_used_by_task": {g: round(ns / 1e9 / window_s, 3) for g, ns in att.cpu_by_task.most_common(10)},
        "runq_wait_total_ms": round(total_wait / 1e6, 1),
        "runq_wait_ms_by_class_p50_p95": {c: [round(percentile(v, 0.5), 3), round(percentile(v, 0.95), 3)]
                                          for c, v in by_class.items()},
        # the same, counting only the moments when no CPU ran another user's work
        "own_runq_wait_ms_by_class_p50_p95": {c: [round(percentile(v, 0.5), 3), round(percentile(v, 0.95), 3)]
                                              for c, v in own_by_class.items()},
        # each CPU's share of the waiting time (all CPUs together: 1.0 per CPU)
        "while_waiting_cpus_ran": {g: round(ns / max(total_wait, 1), 3) for g, ns in att.wait_by_group.most_common()},
        "while_waiting_by_task": {g: round(ns / max(total_wait, 1), 3)
                                  for g, ns in att.wait_by_task.most_common(12)},
        "preempted_by": dict(att.preempted_by.most_common(10)),
        # each wait (switched out runnable, or woken, until running again), by what preempted it
        "wait_episodes_ms_n_p50_p95_max": {k: _dist(v) for k, v in sorted(att.episodes.items(), key=lambda kv: -sum(kv[1]))[:8]},
        # how long each group ran once on a CPU (timed window)
        "bursts_ms_n_p50_p95_max": {k: _dist(v) for k, v in att.bursts.items() if k != "idle"},
        "slowest_5pct_wait_ms": round(sum(att.per_search_wait.get(i, 0) for i in slow) / 1e6, 1),
        "blocked_episodes": len(att.blocked),
        "blocked_ms_p50_p95_max": [round(percentile([b / 1e6 for b, _ in att.blocked], q), 3) for q in (0.5, 0.95)]
        + [round(max((b for b, _ in att.blocked), default=0) / 1e6, 3)],
        "blocked_states": dict(collections.Counter(s for _, s in att.blocked)),
    }


def _dist(values: list[int]) -> list[float]:
    ms = [v / 1e6 for v in values]
    return [len(ms), round(percentile(ms, 0.5), 3), round(percentile(ms, 0.95), 3), round(max(ms, default=0), 3)]


def print_summary(s: dict[str, Any]) -> None:
    print(f"{s['searches']} searches over {s['timed_window_s']} s, {s['events']} scheduler events, "
          f"{s['cpus']} CPUs, load {s['load']}")
    print(f"writers {s['writer_msgs_per_s']} msg/s, self-reported {s['writer_cpu_share_self_reported']} cores")
    print("cores used in the timed window: " + ", ".join(f"{g} {v}" for g, v in s["cores_used_in_window"].items()))
    print("  by task: " + ", ".join(f"{g} {v}" for g, v in s["cores_used_by_task"].items()))
    print(f"searcher run-queue wait {s['runq_wait_total_ms']} ms in all; per class p50/p95 ms, all / "
          "only while no CPU ran another user's work:")
    own = s["own_runq_wait_ms_by_class_p50_p95"]
    for c, (p50, p95) in s["runq_wait_ms_by_class_p50_p95"].items():
        print(f"  {c:<22} {p50:>7.3f} / {p95:<8.3f} {own[c][0]:>7.3f} / {own[c][1]:.3f}")
    print("while it waited, the CPUs ran (share of CPU time, summing to the number of CPUs):")
    for g, v in s["while_waiting_cpus_ran"].items():
        print(f"  {g:<22} {v:.3f}")
    print("  by task: " + ", ".join(f"{g} {v}" for g, v in s["while_waiting_by_task"].items()))
    print("preempted by: " + ", ".join(f"{g} x{n}" for g, n in s["preempted_by"].items()))
    print("wait episodes by preemptor, n / p50 / p95 / max ms:")
    for g, d in s["wait_episodes_ms_n_p50_p95_max"].items():
        print(f"  {g:<22} {d}")
    print("time on a CPU per switch-in, n / p50 / p95 / max ms:")
    for g, d in s["bursts_ms_n_p50_p95_max"].items():
        print(f"  {g:<22} {d}")
    print(f"blocked inside searches: {s['blocked_episodes']} episodes, p50/p95/max ms "
          f"{s['blocked_ms_p50_p95_max']}, states {s['blocked_states']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    search_under_load.load_arguments(ap, iters=100)
    args = ap.parse_args(argv)
    if not args.db.is_file():
        ap.error(f"{args.db} does not exist -> build one with benchmarks/session_store.py first")
    if shutil.which("perf") is None:
        ap.error("perf is not installed -> install linux-perf (or linux-tools) for this kernel")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), str(HERE.parent), os.environ.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory(dir=args.workdir or args.db.parent) as tmp:
        report, att, events = traced_run(args, Path(tmp))
        summary = {"machine": machine(), **summarise(report, att, events), "classes": report["classes"]}
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print_summary(summary)
        search_under_load.print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
