#!/usr/bin/env python3
"""The report of scripts/gpu_check.sh: report.md and report.json in its state folder.

    python3 scripts/gpu_check_report.py build-gpu/gpu_check

Reads what the stages recorded (device.txt, stages/*.status, items/*/*.result, the bench
JSON files, the gpu tests' JUnit file) and writes both files from whatever is there, so a
partial run gives a partial report. Python 3's standard library only.
"""
import json
import os
import sys
import xml.etree.ElementTree as ET

STAGES = ["build", "gpu-tests", "memcheck", "racecheck", "initcheck", "synccheck", "bench",
          "interop"]
TOOLS = ["memcheck", "racecheck", "initcheck", "synccheck"]
SOLVERS = ["wcsph", "pcisph", "pbf", "dfsph"]


def read_kv(path):
    values = {}
    if os.path.isfile(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if "=" in line:
                    key, value = line.rstrip("\n").split("=", 1)
                    values[key] = value
    return values


def read_items(state, stage):
    folder = os.path.join(state, "items", stage)
    items = {}
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".result"):
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    parts = f.read().rstrip("\n").split("\t", 2) + ["", ""]
                items[name[:-len(".result")]] = {
                    "status": parts[0],
                    "seconds": int(parts[1]) if parts[1].isdigit() else None,
                    "detail": parts[2],
                }
    return items


def read_gpu_tests(state):
    path = os.path.join(state, "items", "gpu-tests", "junit.xml")
    tests = []
    if not os.path.isfile(path):
        return tests
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        return tests
    for case in root.iter("testcase"):
        status = case.get("status") or "run"
        if case.find("failure") is not None or case.find("error") is not None:
            status = "failed"
        elif case.find("skipped") is not None or status in ("notrun", "disabled"):
            status = "skipped"
        elif status == "run":
            status = "passed"
        detail = ""
        if status == "skipped":  # gtest prints "file:line: Skipped" and then the reason
            lines = (case.findtext("system-out") or "").splitlines()
            for i, line in enumerate(lines[:-1]):
                if line.endswith(": Skipped"):
                    detail = lines[i + 1].strip()
                    break
        tests.append({"name": case.get("name"), "status": status,
                      "seconds": float(case.get("time") or 0), "detail": detail})
    return tests


def read_bench(state):
    folder = os.path.join(state, "bench")
    rows = []
    if not os.path.isdir(folder):
        return rows

    def size_key(name):
        head = name.split("-", 1)[0]
        return (int(head) if head.isdigit() else 0, name)

    for name in sorted(os.listdir(folder), key=size_key):
        if not name.endswith(".json"):
            continue
        setting = name[:-len(".json")].split("-", 1)[1] if "-" in name else ""
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        for run in data.get("runs", []):
            rows.append({
                "setting": "realtime" if setting.startswith("realtime") else "defaults",
                "scene": run.get("scene"),
                "solver": run.get("solver"),
                "backend": run.get("backend") or run.get("backend_requested"),
                "status": run.get("status"),
                "reason": run.get("reason"),
                "particles_requested": run.get("particles_requested"),
                "particles": run.get("particles"),
                "steps": run.get("steps"),
                "ms_per_step": run.get("ms_per_step"),
                "wall_s_per_simulated_s": run.get("wall_s_per_simulated_s"),
                "mean_dt_ms": run.get("mean_dt_ms"),
                "density_error_mean_percent": run.get("density_error_mean_percent"),
                "mean_iterations": run.get("mean_iterations"),
                "backend_description": run.get("backend_description"),
                "phases": run.get("phases"),
            })
    return rows


def fmt(value, digits=3):
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def main():
    state = sys.argv[1] if len(sys.argv) > 1 else "build-gpu/gpu_check"
    device = read_kv(os.path.join(state, "device.txt"))
    stages = {}
    for stage in STAGES:
        marker = read_kv(os.path.join(state, "stages", stage + ".status"))
        stages[stage] = {
            "status": marker.get("status", "not run"),
            "seconds": int(marker["seconds"]) if marker.get("seconds", "").isdigit() else None,
            "note": marker.get("note", ""),
            "items": read_items(state, stage),
        }
    gpu_tests = read_gpu_tests(state)
    bench = read_bench(state)
    dependencies = ""
    dep_path = os.path.join(state, "build", "dependencies.txt")
    if os.path.isfile(dep_path):
        with open(dep_path, encoding="utf-8", errors="replace") as f:
            dependencies = f.read()

    report = {"tidepool_gpu_check": 1, "device": device, "stages": stages,
              "gpu_tests": gpu_tests, "bench": bench,
              "dependencies": dependencies.splitlines()}
    with open(os.path.join(state, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
        f.write("\n")

    md = ["# Tidepool GPU check", ""]
    if device:
        md += [f"- Device: **{device.get('name', '?')}**, compute capability "
               f"{device.get('compute_capability', '?')}, {fmt(int(device['memory_mib']))} MiB, "
               f"{device.get('multiprocessors', '?')} multiprocessors"
               if device.get("memory_mib", "").isdigit() else
               f"- Device: **{device.get('name', '?')}**",
               f"- Driver {device.get('driver', '?')} (CUDA {device.get('cuda_driver', '?')}), "
               f"nvcc {device.get('nvcc', '?')}, CMake {device.get('cmake', '?')}, "
               f"{device.get('cxx', '?')}",
               f"- Host: {device.get('os', '?')}, glibc {device.get('glibc', '?')}, "
               f"{device.get('cores', '?')} cores of {device.get('cpu', '?')}",
               f"- Tidepool at {device.get('commit', '?')}", ""]
    else:
        md += ["No device recorded (the GPU gate has not run).", ""]

    md += ["## Stages", "", "| stage | status | seconds | |", "|---|---|---|---|"]
    for stage in STAGES:
        s = stages[stage]
        md.append(f"| {stage} | {s['status']} | {fmt(s['seconds'])} | {cell(s['note'])} |")
    md.append("")

    build_items = stages["build"]["items"]
    if build_items:
        md += ["## Build", ""]
        for name, item in build_items.items():
            md.append(f"- {name}: {item['status']} ({fmt(item['seconds'])} s) {cell(item['detail'])}")
        if dependencies:
            md += ["", "Where the dependencies came from:", "", "```", dependencies.rstrip(), "```"]
        md.append("")

    if gpu_tests or stages["gpu-tests"]["items"]:
        md += ["## gpu-labelled tests", ""]
        for item in stages["gpu-tests"]["items"].values():
            md.append(f"{item['status']}: {cell(item['detail'])}")
            md.append("")
        if gpu_tests:
            md += ["| test | status | seconds | |", "|---|---|---|---|"]
            for t in gpu_tests:
                md.append(f"| {cell(t['name'])} | {t['status']} | {t['seconds']:.2f} | "
                          f"{cell(t['detail'])} |")
            md.append("")

    scenes = sorted({name.rsplit("-", 1)[0] for tool in TOOLS
                     for name in stages[tool]["items"]})
    if scenes:
        md += ["## compute-sanitizer", "",
               "Each cell: the tool's result on a short headless CUDA run of the scene with "
               "the solver.", ""]
        for tool in TOOLS:
            items = stages[tool]["items"]
            md += [f"### {tool}: {stages[tool]['status']}", "",
                   "| scene | " + " | ".join(SOLVERS) + " |",
                   "|---|" + "---|" * len(SOLVERS)]
            notes = []
            for scene in scenes:
                cells = []
                for solver in SOLVERS:
                    item = items.get(f"{scene}-{solver}")
                    if item is None:
                        cells.append("not run")
                        continue
                    text = item["status"]
                    if item["status"] == "passed":
                        text = "pass" + (f" ({item['detail'].split(', ', 1)[1]})"
                                         if ", " in item["detail"] else "")
                    elif item["status"] != "unavailable":
                        notes.append(f"- {scene} / {solver}: {item['status']}: {item['detail']}")
                    cells.append(text)
                md.append(f"| {scene} | " + " | ".join(cells) + " |")
            reasons = sorted({i["detail"] for i in items.values() if i["status"] == "unavailable"})
            md += [""] + notes + [f"- unavailable: {r}" for r in reasons]
            md.append("")

    if bench or stages["bench"]["items"]:
        md += ["## Bench", "",
               "`tidepool --bench --backend cpu,cuda` on the default scene: the four solvers at "
               "their defaults, and PBF at the realtime quality. ms/step is wall time per step; "
               "wall/sim is wall seconds per simulated second; speed-up is the CPU's ms/step "
               "over CUDA's.", "",
               "| setting | solver | particles | CPU ms/step | CUDA ms/step | speed-up | "
               "CPU wall/sim | CUDA wall/sim | CUDA rho err % | CUDA iters |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        groups = {}
        for row in bench:
            key = (row["setting"], row["solver"], row["particles_requested"])
            groups.setdefault(key, {})[row["backend"]] = row
        for (setting, solver, requested), by_backend in groups.items():
            cpu, cuda = by_backend.get("cpu"), by_backend.get("cuda")

            def ok(row):
                return row is not None and row.get("status") == "ok"

            speedup = ""
            if ok(cpu) and ok(cuda) and cuda["ms_per_step"]:
                speedup = f"{cpu['ms_per_step'] / cuda['ms_per_step']:.1f}x"
            particles = next((r["particles"] for r in (cuda, cpu) if ok(r)), requested)

            def show(row, key):
                if row is None:
                    return "not run"
                if row.get("status") != "ok":
                    return row.get("status") or "?"
                return fmt(row.get(key))

            md.append(f"| {setting} | {solver} | {fmt(particles)} | {show(cpu, 'ms_per_step')} | "
                      f"{show(cuda, 'ms_per_step')} | {speedup} | "
                      f"{show(cpu, 'wall_s_per_simulated_s')} | "
                      f"{show(cuda, 'wall_s_per_simulated_s')} | "
                      f"{show(cuda, 'density_error_mean_percent')} | "
                      f"{show(cuda, 'mean_iterations') if ok(cuda) else ''} |")
        reasons = sorted({r["reason"] for r in bench if r.get("reason")})
        md += [""] + [f"- {r}" for r in reasons]
        for name, item in stages["bench"]["items"].items():
            if item["status"] != "passed":
                md.append(f"- {name}: {item['status']}: {item['detail']}")
        md.append("")

    if stages["interop"]["items"]:
        md += ["## CUDA-GL interop", ""]
        for name, item in stages["interop"]["items"].items():
            md.append(f"- {name}: {item['status']} {cell(item['detail'])}")
        md.append("")

    md += [f"Logs of every item: `{os.path.join(state, 'items', 'STAGE', 'ITEM.log')}`.", ""]
    with open(os.path.join(state, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
