"""Helpers shared by the benchmarks that compare two sides: ratios with spread, fsync, load.

A comparison on a shared machine is only fair when both sides see the same load,
so runners alternate the sides at the finest grain that makes sense (a query, a
batch of appends, a block of calls), reverse the order every other step (ABBA),
and report the median of the per-step ratios with its quartiles.
"""
from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Sequence


def percentile(values: Sequence[float], p: float) -> float:
    """Linear-interpolated percentile, *p* in [0, 1] (nan when empty)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


@dataclass
class RatioStats:
    """Median of per-step ratios with quartiles and extremes."""

    median: float
    q1: float
    q3: float
    low: float
    high: float
    steps: int

    def text(self) -> str:
        return f"{self.median:.2f}x (IQR {self.q1:.2f}-{self.q3:.2f}, n={self.steps})"

    def as_dict(self) -> dict[str, float]:
        return {"median": round(self.median, 3), "q1": round(self.q1, 3), "q3": round(self.q3, 3),
                "min": round(self.low, 3), "max": round(self.high, 3), "steps": self.steps}


def ratio_stats(ratios: Sequence[float]) -> RatioStats:
    """Summary of per-step ratios (each step timed both sides under the same load)."""
    clean = [r for r in ratios if r == r and r not in (float("inf"), 0.0)]
    if not clean:
        return RatioStats(float("nan"), float("nan"), float("nan"), float("nan"), float("nan"), 0)
    return RatioStats(statistics.median(clean), percentile(clean, 0.25), percentile(clean, 0.75),
                      min(clean), max(clean), len(clean))


def alternate(step: int, first: Callable[[], float], second: Callable[[], float]) -> tuple[float, float]:
    """Run both sides once, in A-B order on even steps and B-A on odd ones; return (a, b)."""
    if step % 2 == 0:
        a = first()
        b = second()
    else:
        b = second()
        a = first()
    return a, b


def fsync_probe(directory: str, count: int = 200, size: int = 4096) -> dict[str, float]:
    """Time of one *size*-byte write + fsync in *directory* (what a durable commit waits for)."""
    path = os.path.join(directory, ".fsync_probe")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    times = []
    block = b"x" * size
    try:
        for i in range(count):
            os.pwrite(fd, block, (i % 16) * size)
            started = time.perf_counter()
            os.fsync(fd)
            times.append(time.perf_counter() - started)
    finally:
        os.close(fd)
        os.unlink(path)
    return {"p50_ms": round(percentile(times, 0.5) * 1e3, 4), "p95_ms": round(percentile(times, 0.95) * 1e3, 4)}


def fsync_bound(fsync_ms: float) -> float | None:
    """Durable commits per second the disk allows at *fsync_ms* per commit (None: no measurable cost)."""
    return 1000.0 / fsync_ms if fsync_ms > 0.001 else None


def bytes_written() -> int:
    """Bytes this process has handed to write() so far (/proc/self/io wchar; 0 where unknown)."""
    try:
        with open("/proc/self/io", encoding="ascii") as io:
            for line in io:
                if line.startswith("wchar:"):
                    return int(line.split(":")[1])
    except OSError:
        pass
    return 0


def filesystem(directory: str) -> str:
    """The filesystem type holding *directory* (tmpfs, ext4, ...), from /proc/mounts."""
    best, kind = "", "unknown"
    real = os.path.realpath(directory)
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                parts = line.split()
                if len(parts) > 2 and real.startswith(parts[1]) and len(parts[1]) > len(best):
                    best, kind = parts[1], parts[2]
    except OSError:
        pass
    return kind


def machine() -> dict[str, object]:
    """Date, CPU, cores, Python, SQLite and load average: printed beside every figure."""
    import sqlite3

    cpu = platform.processor() or ""
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout.splitlines():
            if line.startswith("Model name:"):
                cpu = line.split(":", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpu": cpu, "cores": os.cpu_count(),
            "python": platform.python_version(), "sqlite": sqlite3.sqlite_version, "load": load()}


def load() -> str:
    """The 1/5/15-minute load averages, as uptime prints them."""
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "n/a"
