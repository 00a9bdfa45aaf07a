#!/usr/bin/env python3
"""tests/bench/run.py - `make bench`: envshim against its floor and its peers.

Every timing figure is a ratio between configurations measured in the same
run: configurations alternate round by round (A B C D, B C D A, ...), each
round gives one paired ratio, and the figure is the median of those ratios.
Absolute medians are printed for context only.  Instruction counts come from
callgrind and are deterministic.  Nothing here is part of `make check`.

A benchmark whose subject is missing (the shim, the sandbox helper, the
engine) is reported as MISSING with the reason, and the run exits 1 after
writing the table: a missing subject never looks fast.

Environment: B (build dir), CC, ES_WARN (from the Makefile), BENCH_QUICK=1
for a short pass, BENCH_NO_DOC=1 to leave docs/performance.md alone.
"""

import atexit
import datetime
import glob
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

QUICK = os.environ.get("BENCH_QUICK") == "1"
ROOT = os.getcwd()
B = os.path.join(ROOT, os.environ.get("B", "build"))
BB = os.path.join(B, "bench")
CC = os.environ.get("CC", "cc")
WARN = shlex.split(os.environ.get("ES_WARN", "-Wall -Wextra -Werror"))
SHIM = os.path.join(B, "libenvshim.so")
HELPER = os.path.join(B, "envshim-sandbox")
ENVSHIM = os.path.join(B, "envshim")
DOC = os.path.join(ROOT, "docs", "performance.md")
# The engine room (shim/engine/), as the Makefile builds it.
CORE = sorted(os.path.basename(p)[:-2] for p in glob.glob("shim/engine/*.c")
              if not os.path.basename(p).startswith("gen_"))
NOBODY = 65534
PYTHON = "/usr/bin/python3"	# not a pyenv shim: that is a shell script
VG_TOOL = "/usr/libexec/valgrind/callgrind-amd64-linux"
CPU = ["-c", "1"] if (os.cpu_count() or 1) > 1 else []

# Sizes and rounds: the full run stays under ~10 minutes on 2 cores.
if QUICK:
    SPAWN_N, SPAWN_ROUNDS = 100, 9
    AGENT_N, AGENT_ROUNDS = 100, 5
    SBX_N, SBX_ROUNDS = 10, 7
    CONTAIN_N, CONTAIN_ROUNDS = 10, 5
    ALL_N, ALL_ROUNDS = 10, 5
    RSS_ROUNDS = 5
else:
    SPAWN_N, SPAWN_ROUNDS = 300, 31
    AGENT_N, AGENT_ROUNDS = 500, 15
    SBX_N, SBX_ROUNDS = 30, 21
    CONTAIN_N, CONTAIN_ROUNDS = 30, 15
    ALL_N, ALL_ROUNDS = 50, 11
    RSS_ROUNDS = 11

rows = []		# (benchmark, subject, context, ratio, goal, result)
commands = []		# (benchmark, command line)
failures = []		# subjects that were missing or broke
notes = []		# facts found on the way (snoopy's syslog, ...)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- tools -----------------------------------------------------------------

def find_snoopy():
    for pat in ("/lib/*/libsnoopy.so", "/usr/lib/*/libsnoopy.so",
                "/lib/*/libsnoopy.so.0", "/usr/lib/*/libsnoopy.so.0"):
        hits = sorted(glob.glob(pat))
        if hits:
            return hits[0]
    return None


def ensure_tools():
    """Install what the benchmarks run, as root via apt-get; else say how."""
    want = {
        "snoopy": find_snoopy() is not None,
        "bubblewrap": shutil.which("bwrap") is not None,
        "valgrind": os.path.exists(VG_TOOL),
        "nodejs": shutil.which("node") is not None,
        "python3": os.path.exists(PYTHON),
        "util-linux": shutil.which("unshare") and shutil.which("setpriv"),
    }
    missing = [p for p, ok in want.items() if not ok]
    if not missing:
        return
    cmd = ["apt-get", "install", "-y", "--no-install-recommends"] + missing
    if os.geteuid() != 0:
        log("bench: missing tools; run as root:\n  " + " ".join(cmd))
        sys.exit(1)
    log("bench: installing " + " ".join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if subprocess.run(cmd, env=env).returncode != 0:
        subprocess.run(["apt-get", "update"], env=env, check=True)
        subprocess.run(cmd, env=env, check=True)


def build():
    """Compile the drivers; the engine driver may fail (engine not there)."""
    os.makedirs(BB, exist_ok=True)
    base = [CC, "-std=c11", "-D_GNU_SOURCE", "-O2", "-g"] + WARN
    jobs = [
        ("spawn", ["spawn.c"], []),
        ("maxrss", ["maxrss.c"], []),
        ("allocprobe", ["allocprobe.c"], ["-ldl"]),
        ("empty_preload.so", ["empty_preload.c"], ["-fPIC", "-shared", "-ldl"]),
        ("mallocount.so", ["mallocount.c"], ["-fPIC", "-shared"]),
    ]
    for out, srcs, extra in jobs:
        cmd = base + ["-o", os.path.join(BB, out)] + \
            [os.path.join("tests/bench", s) for s in srcs] + extra
        subprocess.run(cmd, check=True)
    objs = [os.path.join(B, "obj", "engine", o + ".o") for o in CORE]
    gone = [o for o in objs if not os.path.exists(o)]
    if gone:
        return "engine objects not built: " + " ".join(
            os.path.relpath(o) for o in gone)
    # -z now, as libenvshim.so is linked: lazy binding of the first
    # strlen or memchr would otherwise count inside es_filter.
    r = subprocess.run(base + ["-Iinclude", "-Wl,-z,now",
                               "-o", os.path.join(BB, "engine"),
                               "tests/bench/engine.c"] + objs,
                       capture_output=True, text=True)
    if r.returncode != 0:
        undef = sorted(set(re.findall(r"undefined reference to `(\w+)'",
                                      r.stderr)))
        if undef:
            return "engine not written yet (undefined: %s)" % ", ".join(undef)
        err = [l for l in r.stderr.splitlines() if "error" in l]
        return "engine driver does not build: " + (err or ["?"])[0]
    return None


# ---- the environment every benchmark runs with ----------------------------

def dev_env(home):
    """A typical developer's environment: 60 variables, some of them secret.

    The tokens are fake but have the shapes real ones have, so the filter
    does the work it would do for a real user."""
    a36 = "0123456789abcdefghijABCDEFGHIJklmnop"
    ls_colors = ":".join("*.%s=01;3%d" % (e, i % 8) for i, e in enumerate(
        "tar tgz arc arj taz lha lz4 lzh lzma tlz txz tzo t7z zip z dz gz "
        "lrz lz lzo xz zst tzst bz2 bz tbz tbz2 tz deb rpm jar war ear sar "
        "rar alz ace zoo cpio 7z rz cab wim swm dwm esd jpg jpeg mjpg mjpeg "
        "gif bmp pbm pgm ppm tga xbm xpm tif tiff png svg svgz mng pcx mov "
        "mpg mpeg m2v mkv webm webp ogm mp4 m4v mp4v vob qt nuv wmv asf rm "
        "rmvb flc avi fli flv gl dl xcf xwd yuv cgm emf ogv ogx aac au flac "
        "m4a mid midi mka mp3 mpc ogg ra wav oga opus spx xspf".split()))
    return [
        ("PATH", "%s/.local/bin:%s/.cargo/bin:/usr/local/bin:/usr/bin:/bin:"
         "/usr/local/sbin:/usr/sbin:/sbin" % (home, home)),
        ("HOME", home), ("USER", "dev"), ("LOGNAME", "dev"),
        ("SHELL", "/bin/bash"), ("LANG", "C.UTF-8"), ("LANGUAGE", "en"),
        ("TERM", "xterm-256color"), ("COLORTERM", "truecolor"),
        ("TERM_PROGRAM", "tmux"), ("TMUX", "/tmp/tmux-1000/default,1234,0"),
        ("TMUX_PANE", "%3"), ("PWD", home + "/src/project"),
        ("OLDPWD", home + "/src"), ("SHLVL", "2"), ("EDITOR", "vim"),
        ("VISUAL", "vim"), ("PAGER", "less"), ("LESS", "-FRX"),
        ("LS_COLORS", ls_colors), ("HISTSIZE", "100000"),
        ("HISTCONTROL", "ignoreboth"), ("MAIL", "/var/mail/dev"),
        ("TZ", "Europe/Paris"),
        ("SSH_AUTH_SOCK", "/tmp/ssh-XXXXabcd/agent.4242"),
        ("SSH_AGENT_PID", "4243"),
        ("SSH_CONNECTION", "192.0.2.10 51234 192.0.2.20 22"),
        ("SSH_CLIENT", "192.0.2.10 51234 22"), ("SSH_TTY", "/dev/pts/3"),
        ("GPG_TTY", "/dev/pts/3"), ("DISPLAY", ":0"),
        ("XDG_RUNTIME_DIR", "/run/user/1000"), ("XDG_SESSION_ID", "7"),
        ("XDG_SESSION_TYPE", "tty"), ("XDG_SESSION_CLASS", "user"),
        ("XDG_DATA_DIRS", "/usr/local/share:/usr/share"),
        ("XDG_CONFIG_DIRS", "/etc/xdg"),
        ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"),
        ("GOPATH", home + "/go"), ("CARGO_HOME", home + "/.cargo"),
        ("RUSTUP_HOME", home + "/.rustup"), ("NVM_DIR", home + "/.nvm"),
        ("VIRTUAL_ENV", home + "/src/project/.venv"),
        ("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"),
        ("MANPATH", "/usr/local/share/man:/usr/share/man"),
        ("GIT_EDITOR", "vim"), ("GIT_AUTHOR_NAME", "Dev Eloper"),
        ("GIT_AUTHOR_EMAIL", "dev@example.org"),
        ("DEBEMAIL", "dev@example.org"), ("KUBECONFIG", home + "/.kube/config"),
        ("NO_PROXY", "localhost,127.0.0.1,.internal"),
        ("AWS_REGION", "eu-west-3"), ("AWS_PROFILE", "dev"),
        ("GITHUB_TOKEN", "ghp_" + a36),
        ("NPM_TOKEN", "npm_" + a36),
        ("OPENAI_API_KEY", "sk-proj-" + a36 + a36),
        ("ANTHROPIC_API_KEY", "sk-ant-api03-" + a36 + a36 + "-" + a36[:8]),
        ("AWS_ACCESS_KEY_ID", "AKIA" + a36[:16].upper()),
        ("AWS_SECRET_ACCESS_KEY", (a36 + a36)[:40]),
        ("DATABASE_URL", "postgres://app:hunter2@db.internal:5432/app"),
    ]


def synth_env(base, n):
    """n entries: the 60 above, then renamed copies keeping their shapes."""
    out = ["%s=%s" % kv for kv in base]
    i = 0
    while len(out) < n:
        name, val = base[i % len(base)]
        out.append("B%05d_%s=%s" % (i, name, val))
        i += 1
    return out[:n]


def clean_env(home):
    """The launch environment: the developer's, no ENVSHIM_* or LD_*."""
    return dict(dev_env(home))


def with_preload(env, lib):
    e = dict(env)
    if lib:
        e["LD_PRELOAD"] = lib
    return e


# ---- measuring -------------------------------------------------------------

def run_value(cmd, env, cwd=None):
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError((r.stderr.strip() or "exit %d" % r.returncode)
                           .splitlines()[-1])
    return float(r.stdout.split()[0])


def alternate(configs, rounds, label):
    """configs: [(name, cmd, env, cwd)].  Runs them in rotating order, one
    sample each per round.  A config that fails is dropped and reported."""
    samples = {c[0]: [] for c in configs}
    broken = {}
    for r in range(rounds):
        order = configs[r % len(configs):] + configs[:r % len(configs)]
        for name, cmd, env, cwd in order:
            if name in broken:
                continue
            try:
                samples[name].append(run_value(cmd, env, cwd))
            except RuntimeError as e:
                broken[name] = str(e)
                samples[name] = []
        log("  %s: round %d/%d" % (label, r + 1, rounds))
    return samples, broken


def paired(samples, a, b):
    """Median over rounds of a/b (samples of one round are paired)."""
    xs, ys = samples.get(a) or [], samples.get(b) or []
    if not xs or not ys or len(xs) != len(ys):
        return None
    return statistics.median(x / y for x, y in zip(xs, ys))


def fmt_ratio(x):
    return "-" if x is None else "%.3fx" % x


def spread(samples, a, b):
    """" [q1-q3]": the interquartile range of the paired ratios, so a reader
    sees how far apart rounds were."""
    xs, ys = samples.get(a) or [], samples.get(b) or []
    if a == b or len(xs) < 4 or len(xs) != len(ys):
        return ""
    q = statistics.quantiles([x / y for x, y in zip(xs, ys)], n=4)
    return " [IQR %.3f-%.3f]" % (q[0], q[2])


def ratios(s, name, refs):
    """"1.012x empty [IQR ...], 0.900x snoopy": name against each (config,
    label); the spread is given for the first reference, the one the goal
    names."""
    out = []
    for i, (c, label) in enumerate(refs):
        out.append("%s %s%s" % (fmt_ratio(paired(s, name, c)), label,
                                spread(s, name, c) if i == 0 else ""))
    return ", ".join(out)


def verdict(ok):
    return "met" if ok else "MISSED"


def rel(s):
    """Paths inside the tree, relative to it, as a reader would type them."""
    return " ".join(os.path.relpath(w) if w.startswith(ROOT) else w
                    for w in s.split(" "))


def show_cmd(env_extra, cmd, cwd=None):
    pre = " ".join("%s=%s" % (k, shlex.quote(rel(v)))
                   for k, v in env_extra.items())
    s = " ".join(shlex.quote(rel(c)) for c in cmd)
    s = (pre + " " + s).strip()
    return s if not cwd else "(cd WS && %s)" % s


def missing(bench, subject, why, goal=""):
    rows.append((bench, subject, "MISSING", "-", goal, "MISSING: " + why))
    failures.append("%s / %s: %s" % (bench, subject, why))


# ---- subjects --------------------------------------------------------------

def shim_status(home):
    """None and the environment a child of the shim sees, or the reason the
    shim cannot be measured."""
    if not os.path.exists(SHIM):
        return "build/libenvshim.so not built (make all failed above)", None
    r = subprocess.run(["nm", "-D", "--defined-only", SHIM],
                       capture_output=True, text=True)
    if not re.search(r" T execve$", r.stdout, re.M):
        return "libenvshim.so defines no execve (shim not written yet)", None
    # The root is timeout, the child printenv: a different executable,
    # started from a fork (env's exec in place would hand the agent on).
    r = subprocess.run(["/usr/bin/timeout", "60", "/usr/bin/printenv"],
                       env=with_preload(clean_env(home), SHIM),
                       capture_output=True, text=True)
    child = dict(l.split("=", 1) for l in r.stdout.splitlines() if "=" in l)
    if r.returncode != 0:
        return "a launch under the shim failed: " + r.stderr.strip(), None
    if "ENVSHIM_LAUNCH" not in child or "GITHUB_TOKEN" in child:
        return "the shim loaded but did not filter a child's environment", None
    # The root's session went with it: its temporary directory, which the
    # child was handed, is gone (valgrind cannot start there).
    tmp = os.path.join(home, "tmp")
    os.makedirs(tmp, exist_ok=True)
    for k in ("TMPDIR", "TMP", "TEMP", "CLAUDE_CODE_TMPDIR"):
        if k in child and not os.path.isdir(child[k]):
            child[k] = tmp
    return None, child


def shells_policy(home):
    """The developer's own policy in the shared home: `sandbox shells`.
    The process-start, agent, constructor, memory and allocation rows
    measure the shim itself, on launches that are not sandboxed: every
    launch inside the sandbox, or the agent's under `sandbox shells`.
    Under the default, `sandbox all`, each launch the agent makes goes
    to the sandbox; bench_sandbox_all measures what that costs."""
    d = os.path.join(home, ".config", "envshim")
    os.makedirs(d)
    with open(os.path.join(d, "policy"), "w") as f:
        f.write("sandbox shells\n")
    os.chmod(os.path.join(d, "policy"), 0o644)


def nobody_prefix():
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
            "--clear-groups"]


def helper_status(ws, env):
    if not os.access(HELPER, os.X_OK):
        return "build/envshim-sandbox not built (make all failed above)"
    r = subprocess.run(nobody_prefix() + [HELPER, "--", "/bin/sh", "-c",
                                          "echo ok"],
                       env=env, cwd=ws, capture_output=True, text=True)
    if r.returncode != 0 or r.stdout.strip() != "ok":
        return "envshim-sandbox -- /bin/sh -c 'echo ok' failed: " + \
            (r.stderr.strip() or "exit %d" % r.returncode)[-200:]
    return None


# ---- 1. process start ------------------------------------------------------

def bench_spawn(home, shim_err, child_env, snoopy):
    """The envshim rows come twice: whole (driver and children preloaded),
    and children only (the driver starts each child with the environment a
    shim child receives, but has no shim itself), which splits the cost
    into its parent side and its child side."""
    log("== process start: /bin/true x%d, %d rounds" % (SPAWN_N, SPAWN_ROUNDS))
    env = clean_env(home)
    libs = [("none", None), ("empty preload", os.path.join(BB, "empty_preload.so"))]
    if shim_err is None:
        libs.append(("envshim", SHIM))
        libs.append(("envshim, children only", SHIM))
        kid = {k: v for k, v in child_env.items() if k != "LD_PRELOAD"}
    libs.append(("snoopy", snoopy))
    for mode in ("posix_spawn", "fork", "vfork"):
        bench = "start /bin/true (%s+exec)" % mode if mode != "posix_spawn" \
            else "start /bin/true (posix_spawn)"
        cfgs = []
        for name, lib in libs:
            cmd = [os.path.join(BB, "spawn")] + CPU + [mode, str(SPAWN_N),
                                                      "/bin/true"]
            if name.endswith("children only"):
                cmd[1 + len(CPU):1 + len(CPU)] = ["-l", lib]
                cfgs.append((name, cmd, kid, None))
                commands.append((bench + ", " + name, "ENVSHIM_*=(what a "
                                 "shim child receives) " + show_cmd({}, cmd)))
                continue
            cfgs.append((name, cmd, with_preload(env, lib), None))
            commands.append((bench + ", " + name,
                             show_cmd({"LD_PRELOAD": lib} if lib else {}, cmd)))
        s, broken = alternate(cfgs, SPAWN_ROUNDS, mode)
        for name, _ in libs:
            if name in broken:
                missing(bench, name, broken[name])
                continue
            ctx = "%.0f us" % (statistics.median(s[name]) / 1e3)
            ratio = ratios(s, name, (("empty preload", "empty"),
                                     ("snoopy", "snoopy")))
            goal, res = "", ""
            if name == "envshim":
                re_, rs = paired(s, name, "empty preload"), \
                    paired(s, name, "snoopy")
                goal = "<=1.05x empty, <1x snoopy"
                res = verdict(re_ is not None and re_ <= 1.05 and
                              rs is not None and rs < 1)
            rows.append((bench, name, ctx, ratio, goal, res))
        if shim_err is not None:
            missing(bench, "envshim", shim_err, "<=1.05x empty, <1x snoopy")


# ---- 2. node and python as agents -----------------------------------------

NODE_JS = ("const {spawnSync}=require('child_process');"
           "const n=+process.argv[1];const t=process.hrtime.bigint();"
           "for(let i=0;i<n;i++){const r=spawnSync('true');"
           "if(r.error||r.status!==0){console.error(r.error||r.status);"
           "process.exit(1)}}"
           "console.log(Number(process.hrtime.bigint()-t)/n)")
PY_SRC = ("import subprocess,sys,time\n"
          "n=int(sys.argv[1]);t=time.perf_counter_ns()\n"
          "for _ in range(n): subprocess.run(['true'],check=True)\n"
          "print((time.perf_counter_ns()-t)/n)")


def bench_agents(home, shim_err):
    log("== agents: %d launches of true, %d rounds" % (AGENT_N, AGENT_ROUNDS))
    env = clean_env(home)
    libs = [("none", None), ("empty preload", os.path.join(BB, "empty_preload.so"))]
    if shim_err is None:
        libs.append(("envshim", SHIM))
    for bench, cmd in (
            ("node: %d x spawnSync('true')" % AGENT_N,
             ["/usr/bin/node", "-e", NODE_JS, str(AGENT_N)]),
            ("python: %d x subprocess.run(['true'])" % AGENT_N,
             [PYTHON, "-c", PY_SRC, str(AGENT_N)])):
        cfgs = [(n, cmd, with_preload(env, l), home) for n, l in libs]
        for n, l in libs:
            commands.append((bench + ", " + n,
                             show_cmd({"LD_PRELOAD": l} if l else {},
                                      cmd[:2] + ["SCRIPT", cmd[-1]])))
        s, broken = alternate(cfgs, AGENT_ROUNDS, bench.split(":")[0])
        for n, _ in libs:
            if n in broken:
                missing(bench, n, broken[n])
                continue
            ctx = "%.0f us/launch" % (statistics.median(s[n]) / 1e3)
            rn = paired(s, n, "none")
            goal = res = ""
            if n == "envshim":
                goal, res = "<=1.05x none", verdict(rn is not None and rn <= 1.05)
            rows.append((bench, n, ctx, ratios(s, n, (
                ("none", "none"), ("empty preload", "empty"))), goal, res))
        if shim_err is not None:
            missing(bench, "envshim", shim_err, "<=1.05x none")


# ---- 3. instructions -------------------------------------------------------

def callgrind(cmd, env, toggle=None, cwd=None):
    """Total instructions callgrind counts (inside toggle only, if given).
    The tool binary is run directly: /usr/bin/valgrind is a shell script,
    and a preloaded shim must not see valgrind's own launcher."""
    fd, out = tempfile.mkstemp(prefix="cg.", dir=BB)
    os.close(fd)
    e = dict(env, VALGRIND_LIB="/usr/libexec/valgrind",
             VALGRIND_LAUNCHER="/usr/bin/valgrind.bin")
    vg = [VG_TOOL, "--tool=callgrind", "-q", "--callgrind-out-file=" + out]
    if toggle:
        vg.append("--toggle-collect=" + toggle)
    try:
        r = subprocess.run(vg + cmd, env=e, cwd=cwd, capture_output=True,
                           text=True)
        if r.returncode != 0:
            raise RuntimeError("callgrind %s: %s" % (
                " ".join(cmd[:1]), r.stderr.strip()[-200:]))
        m = re.search(r"^totals:\s+(\d+)", open(out).read(), re.M)
        return int(m.group(1)), r.stdout
    finally:
        os.unlink(out)


def ctor_name():
    """The shim's constructor, read from its sources (style(9): the name
    starts the line after the return type)."""
    for path in sorted(glob.glob("shim/*/*.c")):
        src = open(path).read()
        m = re.search(r"constructor\)\)[^\n]*\n\s*(\w+)\s*\(", src) or \
            re.search(r"constructor\)\)[^(\n]*?(\w+)\s*\(", src)
        if m:
            return m.group(1)
    return None


def bench_engine(home, engine_err):
    log("== engine: callgrind")
    bench = "es_filter, builtin policy"
    sizes = (60, 600, 20000)
    goal = "<300 instr/var, linear"
    if engine_err:
        for n in sizes:
            missing("%s, %d vars" % (bench, n), "es_filter", engine_err, goal)
        return
    base = dev_env(home)
    per = {}
    for n in sizes:
        path = os.path.join(BB, "env%d.txt" % n)
        with open(path, "w") as f:
            f.write("\n".join(synth_env(base, n)) + "\n")
        cmd = [os.path.join(BB, "engine"), path]
        commands.append(("%s, %d vars" % (bench, n), "valgrind --tool=callgrind "
                         "--toggle-collect=es_filter " + show_cmd({}, cmd)))
        try:
            ir, out = callgrind(cmd, os.environ, toggle="es_filter")
        except RuntimeError as e:
            missing("%s, %d vars" % (bench, n), "es_filter", str(e), goal)
            continue
        dropped = out.split("\n", 1)[1]
        if n == 60 and not re.search(r"^GITHUB_TOKEN ", dropped, re.M):
            missing("%s, %d vars" % (bench, n), "es_filter",
                    "engine kept GITHUB_TOKEN: not a real filter yet", goal)
            return
        per[n] = ir / n
        rows.append(("%s, %d vars" % (bench, n), "es_filter",
                     "%d instr (%s)" % (ir, out.split("\n", 1)[0]),
                     "%.0f instr/var" % per[n], "<300 instr/var",
                     verdict(per[n] < 300)))
    if 600 in per and 20000 in per:
        lin = per[20000] / per[600]
        rows.append((bench + ", growth", "es_filter", "-",
                     "%.3fx per-var cost 20000 vs 600 vars" % lin,
                     "linear (<=1.2x)", verdict(lin <= 1.2)))


def bench_ctor(home, shim_err, child_env, snoopy):
    log("== constructor: callgrind /bin/true")
    bench = "load + constructor in /bin/true"
    goal = "<50,000 instr"
    env = clean_env(home)
    empty = os.path.join(BB, "empty_preload.so")
    try:
        base = {n: callgrind(["/bin/true"], with_preload(env, l))[0]
                for n, l in (("none", None), ("empty preload", empty),
                             ("snoopy", snoopy))}
    except RuntimeError as e:
        missing(bench, "baselines", str(e))
        return
    commands.append((bench, "valgrind --tool=callgrind /bin/true, with "
                     "LD_PRELOAD unset / empty_preload.so / libsnoopy.so / "
                     "libenvshim.so (root: fresh env; child: the env a shim "
                     "child receives)"))
    rows.append((bench, "none", "%d instr" % base["none"], "-", "", ""))
    rows.append((bench, "empty preload", "%d instr" % base["empty preload"],
                 "+%d vs none" % (base["empty preload"] - base["none"]),
                 "", ""))
    rows.append((bench, "snoopy", "%d instr" % base["snoopy"],
                 "+%d vs empty" % (base["snoopy"] - base["empty preload"]),
                 "", ""))
    if shim_err:
        missing(bench, "envshim", shim_err, goal)
        return
    ctor = ctor_name()
    for who, e in (("envshim, launch root", with_preload(env, SHIM)),
                   ("envshim, child", child_env)):
        try:
            tot = callgrind(["/bin/true"], e)[0]
            only = callgrind(["/bin/true"], e, toggle=ctor)[0] if ctor else None
        except RuntimeError as ex:
            missing(bench, who, str(ex), goal)
            continue
        delta = tot - base["empty preload"]
        ratio = "+%d vs empty" % delta
        if only is not None:
            ratio += "; %s() alone %d" % (ctor, only)
        # The goal is the child's: the root reads the policy files once
        # per agent, so its figure is context.
        child = who.endswith("child")
        rows.append((bench, who, "%d instr" % tot, ratio,
                     goal if child else "",
                     verdict((only if only is not None else delta) < 50000)
                     if child else ""))


# ---- 4. sandboxed shell ----------------------------------------------------

def nobody_dirs():
    """A workspace and a home owned by uid 65534.  The helper refuses a
    workspace that is HOME or holds it: a project directory and a home of
    their own, as a user has."""
    dirs = (tempfile.mkdtemp(prefix="envshim-bench-ws."),
            tempfile.mkdtemp(prefix="envshim-bench-home."))
    for d in dirs:
        os.chmod(d, 0o755)
        if os.geteuid() == 0:
            os.chown(d, NOBODY, NOBODY)
    return dirs


# A session directory as the launch root names it (es_session.h),
# "PID.START.XXXXXX" with this process as the root, so the session's keeper
# (shim/sandbox/keeper.c) holds its view while this process runs, as it
# would for an agent.  Source text: GO_TIMER runs it in a process of its own.
MAKE_SESSION = r"""
def make_session(base):
    import os, random, string
    with open("/proc/self/stat") as f:
        start = f.read().rsplit(") ", 1)[1].split()[19]
    while True:
        d = os.path.join(base, "%d.%s.%s" % (os.getpid(), start, "".join(
            random.choice(string.ascii_letters) for _ in range(6))))
        try:
            os.mkdir(d, 0o700)
            return d
        except FileExistsError:
            continue
"""
exec(MAKE_SESSION)


SESSION_BASE = []


def nobody_session_base():
    """A session base of uid 65534's (es_session.h): a 0700 directory of
    its own that no other user could have made (es_session_safe), made
    once and removed at exit, so no directory of another uid is left."""
    if not SESSION_BASE:
        base = tempfile.mkdtemp(prefix="envshim-bench-sessions.")
        if os.geteuid() == 0:
            os.chown(base, NOBODY, NOBODY)
        atexit.register(shutil.rmtree, base, True)
        SESSION_BASE.append(base)
    return SESSION_BASE[0]


def nobody_session():
    """A session directory for uid 65534: what a sandboxed command of a
    running agent run joins."""
    d = make_session(nobody_session_base())
    for sub in ("", "tmp", "var-tmp", "home"):
        p = os.path.join(d, sub)
        if sub:
            os.mkdir(p, 0o700)
        if os.geteuid() == 0:
            os.chown(p, NOBODY, NOBODY)
    return d


def bench_session_start(ws, hd):
    """The launch root's part of a session, once per agent: make the
    directory, point TMPDIR at it, remove it at exit.  Each /bin/true is
    a launch root (no ENVSHIM_LAUNCH); 'sandbox off' makes no session."""
    bench = "agent start: the launch root with a session (uid 65534)"
    pol = os.path.join(ws, "off.policy")
    with open(pol, "w") as f:
        f.write("sandbox off\n")
    os.chmod(pol, 0o644)
    if os.geteuid() == 0:
        os.chown(pol, NOBODY, NOBODY)
    # spawn -l: the shim is preloaded into the children only
    base = clean_env(hd)
    off = dict(base, ENVSHIM_POLICY=pol)
    cfgs = []
    for n, e in (("session", base), ("sandbox off (no session)", off)):
        cmd = nobody_prefix() + [os.path.join(BB, "spawn")] + CPU + \
            ["-l", SHIM, "posix_spawn", str(SBX_N * 10), "/bin/true"]
        cfgs.append((n, cmd, e, ws))
        commands.append((bench + ", " + n, show_cmd(
            {} if n == "session" else {"ENVSHIM_POLICY": "off.policy"},
            cmd)))
    s, broken = alternate(cfgs, SBX_ROUNDS, "session start")
    rows_against(bench, cfgs, s, broken, "%.3f ms",
                 ("sandbox off (no session)", "no session"))


def rows_against(bench, cfgs, s, broken, fmt, ref):
    """One row per config: its median (fmt, in ms) and its ratio to ref
    (config, label); no goal."""
    for n, _, _, _ in cfgs:
        if n in broken:
            missing(bench, n, broken[n])
            continue
        rows.append((bench, n, fmt % (statistics.median(s[n]) / 1e6),
                     ratios(s, n, (ref,)), "", ""))
# One build, timed: a fresh session (or, without envshim, a fresh GOCACHE)
# made for it and removed after, so every build starts with an empty cache.
GO_TIMER = MAKE_SESSION + r"""
import os, shutil, subprocess, sys, time
mode, base, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
d = make_session(base)
for sub in ("tmp", "var-tmp", "home"):
    os.mkdir(os.path.join(d, sub), 0o700)
env = dict(os.environ)
if mode == "session":
    env["ENVSHIM_SESSION"] = d
else:
    env["GOCACHE"] = os.path.join(d, "home", "go-build")
t = time.perf_counter_ns()
r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL)
t = time.perf_counter_ns() - t
subprocess.run(["chmod", "-R", "u+rwx", d])
shutil.rmtree(d, ignore_errors=True)
if r.returncode != 0:
    sys.exit("go build failed: exit %d" % r.returncode)
print(t)
"""
GO_ROUNDS = 5 if QUICK else 11


def bench_go_build(ws, hd, env):
    """The first `go build` of a fresh agent run: the sandbox in a new
    session (its home layer empty, so Go's build cache starts empty),
    against the same build without envshim with an empty GOCACHE."""
    bench = "first `go build` in a fresh session (uid 65534)"
    go = shutil.which("go")
    if go is None:
        missing(bench, "envshim-sandbox, fresh session", "go not installed")
        return
    mod = os.path.join(ws, "gomod")
    os.makedirs(mod, exist_ok=True)
    with open(os.path.join(mod, "go.mod"), "w") as f:
        f.write("module example.com/bench\n\ngo 1.19\n")
    with open(os.path.join(mod, "main.go"), "w") as f:
        f.write('package main\n\nimport (\n\t"fmt"\n\t"strings"\n)\n\n'
                'func main() { fmt.Println(strings.ToUpper("ok")) }\n')
    base = nobody_session_base()
    if os.geteuid() == 0:
        for n in (mod, os.path.join(mod, "go.mod"), os.path.join(mod, "main.go")):
            os.chown(n, NOBODY, NOBODY)
    e = dict(env, GOFLAGS="-mod=mod", GOPROXY="off")
    build = [go, "build", "-o", "/dev/null", "."]
    cfgs = []
    for n, mode, cmd in (("go build", "plain", build),
                         ("envshim-sandbox, fresh session", "session",
                          [HELPER, "--"] + build)):
        c = nobody_prefix() + [PYTHON, "-c", GO_TIMER, mode, base] + cmd
        cfgs.append((n, c, e, mod))
        commands.append((bench + ", " + n, show_cmd(
            {"GOFLAGS": "-mod=mod", "GOPROXY": "off"} if mode == "session"
            else {"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOCACHE": "EMPTY"},
            cmd, cwd=mod).replace(ws, "WS")))
    s, broken = alternate(cfgs, GO_ROUNDS, "go build")
    rows_against(bench, cfgs, s, broken, "%.0f ms", ("go build", "go build"))


# What a developer's home holds: credential stores the hide list names
# (the sandbox finds and hides each at every start) among ordinary files.
SBX_STORES = [
    ".ssh/id_ed25519", ".ssh/id_rsa", ".ssh/known_hosts", ".ssh/config",
    ".claude/.credentials.json", ".claude.json", ".claude/history.jsonl",
    ".claude/projects/", ".claude/shell-snapshots/", ".codex/auth.json",
    ".codex/tmp/", ".gemini/oauth_creds.json", ".npmrc", ".netrc",
    ".pypirc", ".git-credentials", ".bash_history", ".zsh_history",
    ".python_history", ".psql_history", ".lesshst", ".viminfo",
    ".cargo/credentials.toml", ".pgpass", ".vault-token",
    ".cache/huggingface/token", ".aws/", ".config/gh/", ".config/gcloud/",
    ".docker/", ".kube/", ".gnupg/", ".local/share/keyrings/", ".mozilla/",
    ".config/google-chrome/", ".config/Code/User/globalStorage/", "key.pem",
]
SBX_HOME_ENTRIES = 200


def seed_home(hd, every=False):
    """SBX_HOME_ENTRIES top-level entries: the stores above (or, with
    every, one for each entry of the builtin hide list), then ordinary
    dotfiles and directories."""
    stores = list(SBX_STORES)
    if every:
        out = subprocess.run([ENVSHIM, "policy", "--builtin"],
                             capture_output=True, text=True).stdout
        stores = [l[len("#\t~/"):].replace("*", "x")
                  for l in out.splitlines() if l.startswith("#\t~/")]
    for st in stores:
        p = os.path.join(hd, st)
        if os.path.isabs(st) or not p.startswith(hd + "/"):
            raise RuntimeError("seed_home: %r is not below the home" % st)
        os.makedirs(os.path.dirname(p.rstrip("/")), exist_ok=True)
        if st.endswith("/"):
            os.makedirs(p, exist_ok=True)
        else:
            with open(p, "w") as f:
                f.write("x\n")
    i = 0
    while len(os.listdir(hd)) < SBX_HOME_ENTRIES:
        p = os.path.join(hd, ".tool%d" % i if i % 2 else "file%d" % i)
        if i % 3 == 0:
            os.makedirs(p)
        else:
            with open(p, "w") as f:
                f.write("x\n")
        i += 1
    if os.geteuid() == 0:
        for d, dirs, files in os.walk(hd):
            for n in [d] + [os.path.join(d, x) for x in dirs + files]:
                os.chown(n, NOBODY, NOBODY)
    return len(stores)


def bench_sandbox(home):
    log("== sandbox: sh -c true x%d, %d rounds" % (SBX_N, SBX_ROUNDS))
    ws, hd = nobody_dirs()
    sess = None
    every = tempfile.mkdtemp(prefix="envshim-bench-home.")
    os.chmod(every, 0o755)
    try:
        nstores = seed_home(hd)
        nevery = seed_home(every, every=True)
        env = dict(dev_env(hd))
        env["ENVSHIM_WORKSPACE"] = ws
        env_every = dict(dev_env(every))
        env_every["ENVSHIM_WORKSPACE"] = ws
        sh = ["/bin/sh", "-c", "true"]
        subjects = [
            ("plain", sh, env),
            ("unshare -Urmpf", ["/usr/bin/unshare", "-Urmpf", "--mount-proc"] + sh,
             env),
            ("bubblewrap", ["/usr/bin/bwrap", "--unshare-all", "--ro-bind", "/",
                            "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs",
                            "/tmp", "--bind", ws, ws, "--die-with-parent",
                            "--new-session"] + sh, env),
        ]
        herr = helper_status(ws, env)
        envs = {}
        if herr is None:
            subjects.append(("envshim-sandbox", [HELPER, "--"] + sh, env))
            subjects.append(("envshim-sandbox, every store", [HELPER, "--"] + sh,
                             env_every))
            # a command of a running agent run: the session's /tmp and
            # copy-on-write home (an overlay per command)
            sess = nobody_session()
            envs["envshim-sandbox, in a session"] = sess
            subjects.append(("envshim-sandbox, in a session",
                             [HELPER, "--"] + sh,
                             dict(env, ENVSHIM_SESSION=sess)))
        cfgs = []
        for n, c, e in subjects:
            cmd = nobody_prefix() + [os.path.join(BB, "spawn")] + CPU + \
                ["posix_spawn", str(SBX_N)] + c
            cfgs.append((n, cmd, e, ws))
            commands.append(("sandboxed sh -c true, " + n,
                             show_cmd({"ENVSHIM_SESSION": "SESSION"}
                                      if n in envs else {}, cmd,
                                      cwd=ws).replace(ws, "WS")))
        s, broken = alternate(cfgs, SBX_ROUNDS, "sandbox")
        bench = "sandboxed `sh -c true` (uid 65534)"
        notes.append("sandboxed `sh -c true`: the home holds %d entries, %d "
                     "of them credential stores the hide list names; \"every "
                     "store\": one for each of the list's %d home entries, "
                     "no goal" % (SBX_HOME_ENTRIES, nstores, nevery))
        for n, _, _ in subjects:
            if n in broken:
                missing(bench, n, broken[n])
                continue
            ctx = "%.2f ms" % (statistics.median(s[n]) / 1e6)
            ratio = ratios(s, n, (("bubblewrap", "bwrap"),
                                  ("unshare -Urmpf", "unshare"),
                                  ("plain", "plain")))
            goal = res = ""
            if n in ("envshim-sandbox", "envshim-sandbox, in a session"):
                rb, ru = paired(s, n, "bubblewrap"), paired(s, n, "unshare -Urmpf")
                goal = "<=0.5x bwrap, <=1.5x unshare"
                res = verdict(rb is not None and rb <= 0.5 and
                              ru is not None and ru <= 1.5)
            rows.append((bench, n, ctx, ratio, goal, res))
        if herr is not None:
            missing(bench, "envshim-sandbox", herr,
                    "<=0.5x bwrap, <=1.5x unshare")
        bench_session_start(ws, hd)
        if herr is None:
            bench_go_build(ws, hd, env)
    finally:
        shutil.rmtree(ws, ignore_errors=True)
        shutil.rmtree(hd, ignore_errors=True)
        if sess is not None:
            # overlay's work directories are made with mode 0
            subprocess.run(["chmod", "-R", "u+rwx", sess])
            shutil.rmtree(sess, ignore_errors=True)
        shutil.rmtree(every, ignore_errors=True)


# ---- 4b. contain mode ------------------------------------------------------

def vs_run_mode(s, name):
    """The ratio column of a row measured against plain `envshim --`."""
    return fmt_ratio(paired(s, name, "envshim --")) + " envshim --" + \
        spread(s, name, "envshim --")


def bench_contain(home, shim_err):
    """What --contain adds over the plain run mode: once per agent (the
    user and mount namespace, the overlay on /etc), and per tool (each
    program filters itself in its constructor, then executes itself again
    through the helper, where the plain mode's hook sends it there at
    once).  As uid 65534 from a workspace, as a user runs it, with the
    default policy: every tool, /bin/true, goes to the sandbox in both."""
    log("== contain: agent start x%d and %d tools, %d rounds" %
        (CONTAIN_N, AGENT_N, CONTAIN_ROUNDS))
    if shim_err is not None or not os.access(ENVSHIM, os.X_OK):
        for b in ("agent start (`/bin/true` as the agent)",
                  "agent running %d tools" % AGENT_N):
            missing("contain mode: " + b, "envshim --contain",
                    shim_err or "build/envshim not built")
        return
    ws, hd = nobody_dirs()
    try:
        env = clean_env(hd)
        for bench, agent, n in (
                ("agent start (`/bin/true` as the agent)", ["/bin/true"], None),
                ("agent running %d tools" % AGENT_N,
                 [PYTHON, "-c", PY_SRC, str(AGENT_N)], AGENT_N)):
            cfgs = []
            for name, mode in (("envshim --", []), ("envshim --contain", ["--contain"])):
                run = [ENVSHIM] + mode + ["--"] + agent
                if n is None:
                    cmd = nobody_prefix() + [os.path.join(BB, "spawn")] + \
                        CPU + ["posix_spawn", str(CONTAIN_N)] + run
                else:
                    cmd = nobody_prefix() + run
                cfgs.append((name, cmd, env, ws))
                commands.append(("contain mode: %s, %s" % (bench, name),
                                 show_cmd({}, ["SCRIPT" if c == PY_SRC else c
                                               for c in cmd], cwd=ws)))
            s, broken = alternate(cfgs, CONTAIN_ROUNDS, "contain")
            full = "contain mode: " + bench
            for name, _, _, _ in cfgs:
                if name in broken:
                    missing(full, name, broken[name])
                    continue
                med = statistics.median(s[name])
                extra = ""
                if name == "envshim --contain" and "envshim --" not in broken:
                    extra = ", %+.2f ms" % ((med - statistics.median(
                        s["envshim --"])) / 1e6)
                ctx = ("%.2f ms" if n is None else "%.0f us/launch") % \
                    (med / (1e6 if n is None else 1e3))
                rows.append((full, name, ctx + extra,
                             vs_run_mode(s, name), "", ""))
    finally:
        shutil.rmtree(ws, ignore_errors=True)
        shutil.rmtree(hd, ignore_errors=True)


# ---- 4c. sandbox all -------------------------------------------------------

def bench_sandbox_all(home, shim_err):
    """What the default, `sandbox all`, costs an agent's own launches: each
    program it starts goes to the sandbox (its git status, a tool on PATH;
    crush's in-process shell runs every command so).  As uid 65534 from a
    workspace, a Python agent running `true` ALL_N times, with the
    built-in policy and with `sandbox shells` (the way back), where the
    same launches run outside, filtered."""
    bench = "sandbox all: agent running %d tools" % ALL_N
    log("== " + bench + ", %d rounds" % ALL_ROUNDS)
    if shim_err is not None or not os.access(ENVSHIM, os.X_OK):
        missing(bench, "envshim -- (sandbox all, the default)",
                shim_err or "build/envshim not built")
        return
    ws, hd = nobody_dirs()
    pol = os.path.join(hd, "shells.policy")
    try:
        with open(pol, "w") as f:
            f.write("sandbox shells\n")
        os.chmod(pol, 0o644)
        env = clean_env(hd)
        cfgs = []
        for name, extra in (("envshim -- (sandbox shells)", ["--policy", pol]),
                            ("envshim -- (sandbox all, the default)", [])):
            cmd = nobody_prefix() + [ENVSHIM] + extra + \
                ["--", PYTHON, "-c", PY_SRC, str(ALL_N)]
            cfgs.append((name, cmd, env, ws))
            commands.append(("%s, %s" % (bench, name),
                             show_cmd({}, ["SCRIPT" if c == PY_SRC else c
                                           for c in cmd], cwd=ws)))
        s, broken = alternate(cfgs, ALL_ROUNDS, "sandbox all")
        base = "envshim -- (sandbox shells)"
        for name, _, _, _ in cfgs:
            if name in broken:
                missing(bench, name, broken[name])
                continue
            ratio = "-" if base in broken else \
                fmt_ratio(paired(s, name, base)) + " sandbox shells" + \
                spread(s, name, base)
            rows.append((bench, name, "%.0f us/launch" %
                         (statistics.median(s[name]) / 1e3), ratio, "", ""))
    finally:
        shutil.rmtree(ws, ignore_errors=True)
        shutil.rmtree(hd, ignore_errors=True)


# ---- 5. memory -------------------------------------------------------------

def bench_memory(home, shim_err, snoopy):
    log("== memory: peak RSS of node -e 0, %d rounds" % RSS_ROUNDS)
    bench = "peak RSS, `node -e 0`"
    env = clean_env(home)
    libs = [("none", None), ("empty preload", os.path.join(BB, "empty_preload.so")),
            ("snoopy", snoopy)]
    if shim_err is None:
        libs.append(("envshim", SHIM))
    cmd = [os.path.join(BB, "maxrss"), "/usr/bin/node", "-e", "0"]
    for n, l in libs:
        commands.append((bench + ", " + n,
                         show_cmd({"LD_PRELOAD": l} if l else {}, cmd)))
    s, broken = alternate([(n, cmd, with_preload(env, l), home)
                           for n, l in libs], RSS_ROUNDS, "rss")
    for n, _ in libs:
        if n in broken:
            missing(bench, n, broken[n])
            continue
        d = statistics.median(x - y for x, y in zip(s[n], s["none"]))
        goal = res = ""
        if n == "envshim":
            goal, res = "<1024 KiB more", verdict(d < 1024)
        rows.append((bench, n, "%.0f KiB" % statistics.median(s[n]),
                     "%+.0f KiB vs none" % d, goal, res))
    if shim_err is not None:
        missing(bench, "envshim", shim_err, "<1024 KiB more")


def bench_alloc(home, shim_err, snoopy):
    log("== allocations on the launch path")
    bench = "allocations during one launch"
    goal = "0"
    mc = os.path.join(BB, "mallocount.so")
    probe = os.path.join(BB, "allocprobe")
    commands.append((bench, show_cmd({"LD_PRELOAD": SHIM + " " + mc},
                                     [probe, "MODE", "/bin/true"])))
    modes = ["execve", "execv", "execvp", "execvpe", "fork-execve",
             "vfork-execve", "posix_spawn", "posix_spawnp"]

    def probe_count(lib, mode, env):
        prog = "true" if mode.endswith(("p", "pe")) else "/bin/true"
        return int(run_value([probe, mode, prog],
                             with_preload(env, lib + " " + mc)))

    base = dev_env(home)
    try:
        ctl = probe_count(os.path.join(BB, "empty_preload.so"), "control",
                          clean_env(home))
        sn = probe_count(snoopy, "execve", clean_env(home))
    except RuntimeError as e:
        missing(bench, "probe", str(e))
        return
    rows.append((bench, "probe control (strdup before execve)",
                 "%d" % ctl, "-", ">=1 (the probe sees allocations)",
                 verdict(ctl >= 1)))
    rows.append((bench, "snoopy, execve", "%d" % sn, "-", "", ""))
    if shim_err:
        missing(bench, "envshim", shim_err, goal)
        return
    for nvars in (60, 2000):
        env = dict(kv.split("=", 1) for kv in synth_env(base, nvars))
        counts, errs = {}, {}
        for m in modes:
            try:
                counts[m] = probe_count(SHIM, m, env)
            except RuntimeError as e:
                errs[m] = str(e)
        for m, e in errs.items():
            missing("%s (%d vars)" % (bench, nvars), "envshim, " + m, e, goal)
        if counts:
            bad = {m: c for m, c in counts.items() if c}
            rows.append(("%s (%d vars)" % (bench, nvars), "envshim",
                         ", ".join("%s %d" % mc_ for mc_ in counts.items()),
                         "-", goal, verdict(not bad)))


# ---- report ----------------------------------------------------------------

def machine():
    cpu = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break

    def ver(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True
                                  ).stdout.strip().splitlines()[0]
        except (OSError, IndexError):
            return "?"
    head = ver(["git", "rev-parse", "--short", "HEAD"])
    dirty = ver(["git", "status", "--porcelain", "--untracked-files=no"])
    return [
        ("date", datetime.datetime.now(datetime.timezone.utc)
         .strftime("%Y-%m-%d %H:%M UTC")),
        ("commit", head + (" (with uncommitted changes)" if dirty != "?" and
                           dirty else "")),
        ("CPUs (nproc)", str(os.cpu_count())), ("CPU", cpu),
        ("kernel", platform.release()),
        ("glibc", os.confstr("CS_GNU_LIBC_VERSION")),
        ("node", ver(["/usr/bin/node", "--version"])),
        ("python", ver([PYTHON, "--version"])),
        ("snoopy", ver(["dpkg-query", "-W", "-f", "${Version}", "snoopy"])),
        ("bubblewrap", ver(["bwrap", "--version"])),
        ("valgrind", ver(["/usr/bin/valgrind.bin", "--version"])),
        ("pass", "quick (BENCH_QUICK=1)" if QUICK else "full"),
        ("sizes", "start: %d launches x %d rounds; agents: %d x %d; "
         "sandbox: %d x %d; RSS: %d rounds" % (
             SPAWN_N, SPAWN_ROUNDS, AGENT_N, AGENT_ROUNDS, SBX_N, SBX_ROUNDS,
             RSS_ROUNDS)),
    ]


def table():
    head = ("benchmark", "subject", "median / count (context)", "ratio",
            "goal", "result")
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(" --- " for _ in head) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(
            " ".join(c.split()).replace("|", "\\|") for c in r) + " |")
    return lines


def report():
    out = ["Machine and run:", ""]
    out += ["- %s: %s" % kv for kv in machine()]
    out += [""] + table()
    if notes:
        out += ["", "Observed during the run:", ""] + ["- " + n for n in notes]
    out += ["", "Commands (WS: a workspace owned by uid 65534; SCRIPT: "
            "tests/bench/run.py NODE_JS / PY_SRC):", ""]
    out += ["- %s: `%s`" % c for c in commands]
    return out


def write_doc(lines):
    begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
    text = open(DOC).read()
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        log("bench: %s has no %s/%s markers; not rewritten" % (DOC, begin, end))
        return
    text = text[:i + len(begin)] + "\n" + "\n".join(lines) + "\n" + text[j:]
    with open(DOC, "w") as f:
        f.write(text)


def snoopy_notes(snoopy):
    """What snoopy does per exec here: where its log line goes."""
    if not shutil.which("strace"):
        return
    r = subprocess.run(["strace", "-f", "-e", "trace=connect,openat",
                        "/bin/sh", "-c", "/bin/true; :"],
                       env={"LD_PRELOAD": snoopy, "PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True)
    con = sorted(set(re.findall(r'connect\(\d+, \{sa_family=AF_UNIX, '
                                r'sun_path="([^"]+)"\}.*= (-?\d+ ?\w*)',
                                r.stderr)))
    opened = sorted(set(re.findall(r'openat\([^"]*"(/etc/[^"]+|/proc/[^"]+)"',
                                   r.stderr)))
    r2 = subprocess.run(["nm", "-D", "--defined-only", snoopy],
                        capture_output=True, text=True)
    hooks = re.findall(r" T ((?:exec|posix_spawn|system|popen)\w*)$",
                       r2.stdout, re.M)
    notes.append("snoopy hooks only %s: launches by posix_spawn, execvp "
                 "and the rest reach the kernel without it (glibc calls "
                 "them internally), so its posix_spawn row is only the cost "
                 "of being loaded" % ", ".join(hooks))
    notes.append("snoopy per logged exec: opens %s; connects to %s "
                 "(a result of -1 means the log line is lost: no syslog "
                 "daemon listens)" % (", ".join(opened) or "nothing",
                                     "; ".join("%s -> %s" % c for c in con)
                                     or "nothing"))


def main():
    ensure_tools()
    engine_err = build()
    snoopy = find_snoopy()
    home = tempfile.mkdtemp(prefix="envshim-bench-home.")
    try:
        os.makedirs(os.path.join(home, "src", "project"))
        shells_policy(home)
        shim_err, child_env = shim_status(home)
        if shim_err:
            log("bench: envshim rows will be MISSING: " + shim_err)
        snoopy_notes(snoopy)
        bench_spawn(home, shim_err, child_env, snoopy)
        bench_agents(home, shim_err)
        bench_engine(home, engine_err)
        bench_ctor(home, shim_err, child_env, snoopy)
        bench_sandbox(home)
        bench_contain(home, shim_err)
        bench_sandbox_all(home, shim_err)
        bench_memory(home, shim_err, snoopy)
        bench_alloc(home, shim_err, snoopy)
        logs = glob.glob(os.path.join(home, ".local/state/envshim/*"))
        if logs:
            notes.append("envshim's default audit log during the run: " +
                         ", ".join("%s %d bytes" % (os.path.basename(p),
                                                     os.path.getsize(p))
                                   for p in logs))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    lines = report()
    print("\n".join(lines))
    if os.environ.get("BENCH_NO_DOC") != "1":
        write_doc(lines)
    if failures:
        log("\nbench: FAILED, subjects missing or broken:\n  " +
            "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
