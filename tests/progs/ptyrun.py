#!/usr/bin/env python3
"""A terminal for a test: runs a command on a new pty and plays steps on it.

Usage: ptyrun.py [STEP...] -- COMMAND [ARG...]

The command starts as the leader of a new session whose controlling
terminal is the pty's slave (as node-pty, script(1) and sshd start one),
24 rows by 80 columns.  Then each step, in order:

  expect:TEXT     read what the terminal shows until TEXT appears (after
                  the previous expect's match)
  send:TEXT       type TEXT; Python escapes: \\n, \\x03 (^C), \\x04 (^D)
  size:ROWSxCOLS  resize the terminal: its foreground group gets SIGWINCH

Then everything until the command and all it left on the terminal end,
printed as the terminal showed it (CR LF as LF), and a last line
"exit N" or "signal N".  An expect the output never meets prints
"missing: TEXT" and exits 4.  A test that hangs is cut after 120 s
("timeout", exit 3): a guard, not an assertion.
"""
import codecs
import fcntl
import os
import pty
import signal
import struct
import sys
import termios


def winsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("usage: ptyrun.py [STEP...] -- COMMAND [ARG...]")
    steps, cmd = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        winsize(0, 24, 80)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)

    def timeout(*_):
        sys.stdout.write(seen.decode(errors="replace") + "\ntimeout\n")
        os.kill(pid, signal.SIGKILL)
        os._exit(3)

    seen, pos = b"", 0
    signal.signal(signal.SIGALRM, timeout)
    signal.alarm(120)

    def more():
        nonlocal seen
        try:
            b = os.read(fd, 65536)
        except OSError:	# EIO: no process holds the slave any more
            b = b""
        seen += b
        return b != b""

    for s in steps:
        kind, _, arg = s.partition(":")
        if kind == "expect":
            want = codecs.decode(arg, "unicode_escape").encode()
            while seen.find(want, pos) == -1:
                if not more():
                    out = seen.decode(errors="replace").replace("\r\n", "\n")
                    sys.stdout.write(out + "\nmissing: " + arg + "\n")
                    sys.exit(4)
            pos = seen.find(want, pos) + len(want)
        elif kind == "send":
            os.write(fd, codecs.decode(arg, "unicode_escape").encode())
        elif kind == "size":
            rows, cols = arg.split("x")
            winsize(fd, int(rows), int(cols))
        else:
            sys.exit("ptyrun.py: unknown step " + s)
    while more():
        pass
    _, st = os.waitpid(pid, 0)
    sys.stdout.write(seen.decode(errors="replace").replace("\r\n", "\n"))
    if os.WIFSIGNALED(st):
        print("\nsignal", os.WTERMSIG(st))
    else:
        print("\nexit", os.WEXITSTATUS(st))


main()
